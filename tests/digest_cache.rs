//! The digest cache (`<workspace>/cache/digests.jsonl`) over copies of the real result fixtures:
//! a second `status` takes every readable file from it and prints what reading them all prints; a
//! file changed (in place, its old time and size put back), added or removed is read again or
//! dropped; a cache that is corrupt, cut short, or not a file is rebuilt with a warning naming it
//! (and its line) and never changes what is printed; one of another config is not used; a file
//! changed within the settle time is not cached.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

const FIXTURES: &str = "fixtures/results";

/// `status --json --verbose` over `results` in `workspace`, files cached once they are `settle_ms`
/// old: stdout, stderr, and (files read, files from the cache). The joined cache a run before
/// wrote is removed first (these are the digest cache's tests: tests/joined_cache.rs has its own).
fn status(
    workspace: &Path,
    results: &Path,
    settle_ms: &str,
    extra: &[&str],
) -> (String, String, (usize, usize)) {
    let _ = std::fs::remove_file(workspace.join("cache/joined.jsonl"));
    let mut args = vec!["--results".as_ref(), results.as_os_str()];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    let (stdout, stderr) = common::verbose_status(workspace, settle_ms, &args);
    let counts = stderr.lines().find_map(read_counts).unwrap_or_else(|| panic!("no reading line: {stderr}"));
    (stdout, stderr, counts)
}

/// "perftriage: N result files read in S s, M of them unchanged since the digest cache …".
fn read_counts(line: &str) -> Option<(usize, usize)> {
    let rest = line.strip_prefix("perftriage: ")?;
    let (total, rest) = rest.split_once(" result files read in ")?;
    let cached = rest.split_once(", ")?.1.split_once(" of them unchanged")?.0;
    Some((total.parse().ok()?, cached.parse().ok()?))
}

/// Copies of the fixtures, and a workspace.
fn copies() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    common::copy_tree(Path::new(FIXTURES), &results);
    let workspace = dir.path().join("ws");
    (dir, results, workspace)
}

/// What `status` prints over `results` read from nothing (a workspace of its own, no cache).
fn uncached(results: &Path) -> String {
    let fresh = tempfile::tempdir().unwrap();
    let (out, _, (_, cached)) = status(fresh.path(), results, "0", &[]);
    assert_eq!(cached, 0);
    out
}

fn cache_file(workspace: &Path) -> PathBuf {
    workspace.join("cache/digests.jsonl")
}

/// Lines of the cache after its header: one per cached file.
fn cached_lines(workspace: &Path) -> usize {
    std::fs::read_to_string(cache_file(workspace)).unwrap().lines().count() - 1
}

#[test]
fn a_second_status_takes_every_readable_file_from_the_cache_and_prints_the_same() {
    let (_dir, results, ws) = copies();
    let (first, _, (total, cached)) = status(&ws, &results, "0", &[]);
    assert_eq!(cached, 0, "nothing was cached yet");
    let lines = cached_lines(&ws);
    assert!(lines >= 40 && lines <= total, "{lines} of {total} files cached");
    let (second, _, (_, cached)) = status(&ws, &results, "0", &[]);
    assert_eq!(cached, lines, "every cached file is taken from the cache");
    assert_eq!(second, first);
    assert_eq!(second, uncached(&results), "the cache changes nothing printed");
}

#[test]
fn a_file_changed_in_place_with_its_old_time_and_size_put_back_is_read_again() {
    let (_dir, results, ws) = copies();
    let file = results.join("isobench/claude_code/results/99abb8b6_human_result.json");
    let before = status(&ws, &results, "0", &[]).0;
    let text = std::fs::read_to_string(&file).unwrap();
    let changed = text.replace("22.72", "99.72");
    assert!(changed != text && changed.len() == text.len(), "the real file has its TPOT, 22.72");
    let modified = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::fs::write(&file, &changed).unwrap();
    std::fs::File::options().write(true).open(&file).unwrap().set_modified(modified).unwrap();
    let (after, _, (total, cached)) = status(&ws, &results, "0", &[]);
    assert_ne!(after, before, "the change is seen");
    assert_eq!(after, uncached(&results));
    assert_eq!(cached, cached_lines(&ws) - 1, "all but the changed file of {total} from the cache");
    let (again, _, (_, cached)) = status(&ws, &results, "0", &[]);
    assert_eq!((again, cached), (after, cached_lines(&ws)), "the cache was brought up to date");
}

#[test]
fn files_added_and_removed_are_seen() {
    let (_dir, results, ws) = copies();
    status(&ws, &results, "0", &[]);
    let kept = cached_lines(&ws);
    // Moved: gone from where it was cached, and new where it is now.
    std::fs::create_dir_all(results.join("added")).unwrap();
    let name = "99abb8b6_human_result.json";
    std::fs::rename(
        results.join("isobench/claude_code/results").join(name),
        results.join("added").join(name),
    )
    .unwrap();
    let (out, _, (_, cached)) = status(&ws, &results, "0", &[]);
    assert_eq!(out, uncached(&results));
    assert_eq!(cached, kept - 1, "the removed file's line is gone, the added file was read");
    assert_eq!(cached_lines(&ws), kept, "one line dropped, one added");
}

/// A spoiling of a good cache: its name, what it does to the file, and the words of the warning.
type Spoiling = (&'static str, Box<dyn Fn(&Path)>, Option<&'static str>);

fn spoilings() -> Vec<Spoiling> {
    let text = |f: &Path| std::fs::read_to_string(f).unwrap();
    vec![
        (
            "garbage",
            Box::new(|f: &Path| std::fs::write(f, b"\xff\xfe\x00 not a cache\n").unwrap()),
            Some("is not a digest cache"),
        ),
        ("empty", Box::new(|f: &Path| std::fs::write(f, b"").unwrap()), Some("is not a digest cache")),
        (
            "cut mid-line",
            Box::new(move |f: &Path| {
                let t = text(f);
                std::fs::write(f, &t[..t.len() / 2]).unwrap();
            }),
            Some("a digest cache line that cannot be read"),
        ),
        (
            "a digest of the wrong shape",
            Box::new(move |f: &Path| {
                std::fs::write(f, text(f).replacen("\"variant\":\"human\"", "\"variant\":\"humax\"", 1))
                    .unwrap()
            }),
            Some("a cached digest that does not read back"),
        ),
        (
            "a key whose digest length is wrong",
            Box::new(move |f: &Path| {
                let t = text(f);
                let at = t.find(",\"digest\":").unwrap() + ",\"digest\":".len();
                std::fs::write(f, format!("{}1{}", &t[..at], &t[at..])).unwrap();
            }),
            Some("a digest cache line that cannot be read"),
        ),
        (
            "a key whose lengths overflow",
            Box::new(move |f: &Path| {
                let t = text(f);
                let at = t.find(",\"contexts\":").unwrap() + ",\"contexts\":".len();
                let end = at + t[at..].find('}').unwrap();
                std::fs::write(f, format!("{}{}{}", &t[..at], u64::MAX, &t[end..])).unwrap();
            }),
            Some("a digest cache line that cannot be read"),
        ),
    ]
}

#[test]
fn a_spoiled_cache_is_rebuilt_with_a_warning_naming_it_and_changes_nothing_printed() {
    let (_dir, results, ws) = copies();
    let good = status(&ws, &results, "0", &[]).0;
    let lines = cached_lines(&ws);
    for (what, spoil, warning) in spoilings() {
        status(&ws, &results, "0", &[]);
        spoil(&cache_file(&ws));
        let (out, stderr, _) = status(&ws, &results, "0", &[]);
        assert_eq!(out, good, "{what}: the same printed");
        if let Some(words) = warning {
            let said =
                stderr.lines().find(|l| l.contains(words)).unwrap_or_else(|| panic!("{what}: {stderr}"));
            assert!(said.contains(&cache_file(&ws).display().to_string()), "{what}: names the file: {said}");
        }
        let (again, stderr, (_, cached)) = status(&ws, &results, "0", &[]);
        assert_eq!((again, cached), (good.clone(), lines), "{what}: rebuilt whole: {stderr}");
        let warned =
            stderr.lines().any(|l| l.starts_with("perftriage: warning:") && l.contains("digests.jsonl"));
        assert!(!warned, "{what}: no warning once rebuilt: {stderr}");
    }
}

#[test]
fn a_cache_that_is_not_a_file_is_said_and_every_file_is_read() {
    let (_dir, results, ws) = copies();
    std::fs::create_dir_all(cache_file(&ws)).unwrap();
    for _ in 0..2 {
        let (out, stderr, (_, cached)) = status(&ws, &results, "0", &[]);
        assert_eq!(cached, 0);
        assert_eq!(out, uncached(&results));
        assert!(stderr.contains("cannot read the digest cache"), "{stderr}");
    }
}

#[test]
fn files_changed_within_the_settle_time_are_not_cached_until_they_settle() {
    let (_dir, results, ws) = copies();
    status(&ws, &results, "3600000", &[]);
    let (_, _, (_, cached)) = status(&ws, &results, "0", &[]);
    assert_eq!(cached, 0, "files an hour young were not cached");
    let (_, _, (_, cached)) = status(&ws, &results, "0", &[]);
    assert_eq!(cached, cached_lines(&ws), "settled, they are");
}

/// A result file being written (changed within the settle time, as during a campaign) is read
/// again on every load, and the cache file is left as it was rather than written again whole
/// without its line; once the file settles its new line replaces the stale one.
#[test]
fn a_file_being_written_is_read_again_and_the_cache_is_not_rewritten_for_it() {
    use std::os::unix::fs::MetadataExt;
    let (_dir, results, ws) = copies();
    let (_, _, (total, _)) = status(&ws, &results, "0", &[]);
    let inode = || std::fs::metadata(cache_file(&ws)).unwrap().ino();
    let (written, lines) = (inode(), cached_lines(&ws));
    let young =
        results.join("verdicts/2026-01/omniperf_results_3way_codex/results/61b8cea3_agent_result.json");
    let text = std::fs::read_to_string(&young).unwrap();
    std::fs::write(&young, text + "\n").unwrap();
    let (out, _, (_, cached)) = status(&ws, &results, "3600000", &[]);
    assert_eq!(cached, total - 1, "the young file read again");
    assert_eq!(out, uncached(&results));
    assert_eq!(inode(), written, "the cache file was not written again");
    let (_, _, (_, cached)) = status(&ws, &results, "0", &[]);
    assert_eq!(cached, total - 1, "its stale line never used");
    let (_, _, (_, cached)) = status(&ws, &results, "0", &[]);
    assert_eq!((cached, cached_lines(&ws)), (total, lines), "settled: its new line replaced the stale one");
}

#[test]
fn a_cache_of_other_gates_is_not_used() {
    let (dir, results, ws) = copies();
    status(&ws, &results, "0", &[]);
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[gates]\nmax_failed_requests = 3\n").unwrap();
    let lenient = ["--config", config.to_str().unwrap()];
    let (_, _, (_, cached)) = status(&ws, &results, "0", &lenient);
    assert_eq!(cached, 0, "gates decide what a record is");
    let (_, _, (_, cached)) = status(&ws, &results, "0", &lenient);
    assert_eq!(cached, cached_lines(&ws));
}

#[test]
fn a_file_that_is_not_json_is_cached_with_its_warning_and_read_again_once_mended() {
    let (_dir, results, ws) = copies();
    let broken = results.join("isobench/claude_code/results/docker/bfdb1ba5_result.json");
    let (_, stderr, (total, _)) = status(&ws, &results, "0", &[]);
    assert!(stderr.contains("bfdb1ba5_result.json: invalid JSON"), "{stderr}");
    assert_eq!(cached_lines(&ws), total, "every file cached, the broken one with its warning");
    let (_, stderr, (_, cached)) = status(&ws, &results, "0", &[]);
    assert_eq!(cached, total);
    assert!(stderr.contains("bfdb1ba5_result.json: invalid JSON"), "said again from the cache: {stderr}");
    let record = serde_json::json!({"commit_hash": "bfdb1ba5", "status": "error", "error": "mended"});
    std::fs::write(&broken, record.to_string()).unwrap();
    let (out, stderr, (_, cached)) = status(&ws, &results, "0", &[]);
    assert_eq!(cached, total - 1, "the mended file read again");
    assert!(!stderr.contains("invalid JSON"), "{stderr}");
    assert_eq!(out, uncached(&results));
}
