//! The status cache (`<workspace>/cache/status.jsonl`): a `status --json` whose entries would
//! come whole from the joined cache prints what the last one printed for the very same inputs,
//! triage book and `--agent` from it, reading no entry, and prints what a load from nothing
//! prints; a mark, a changed result file or another agent is a load that prints the truth and
//! writes the cache again; a cache cut short, spoiled, grown or not a file is said, never
//! printed, and written again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

const DATASET: &str = "fixtures/dataset/isobench_vllm.jsonl";

/// Where a `status --json` took its output from, as `--verbose` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum From {
    ReadFiles,
    JoinedCache,
    StatusCache,
}

struct Setup {
    _dir: tempfile::TempDir,
    results: PathBuf,
    ws: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    common::copy_tree(Path::new("fixtures/results"), &results);
    let ws = dir.path().join("ws");
    Setup { _dir: dir, results, ws }
}

impl Setup {
    /// `perftriage ARGS` on this workspace and its results (no user config, files cached at once).
    fn cli(&self, args: &[&str]) -> std::process::Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
            .arg("--workspace")
            .arg(&self.ws)
            .arg("--results")
            .arg(&self.results)
            .args(["--dataset", DATASET])
            .args(args)
            .env("XDG_CONFIG_HOME", self.ws.join("no-config"))
            .env("PERFTRIAGE_DIGEST_SETTLE_MS", "0")
            .output()
            .unwrap()
    }

    /// `status --json --verbose` and `extra`: stdout, stderr, and where the output came from.
    fn status(&self, extra: &[&str]) -> (String, String, From) {
        let out = self.cli(&[&["--verbose", "status", "--json"], extra].concat());
        let (stdout, stderr) =
            (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap());
        assert!(out.status.success(), "{stderr}");
        let from = match () {
            _ if stderr.contains("unchanged since the status cache") => From::StatusCache,
            _ if stderr.contains("unchanged since the joined cache") => From::JoinedCache,
            _ => From::ReadFiles,
        };
        (stdout, stderr, from)
    }

    /// Three runs: the files read, then taken from the digest cache (the joined cache written),
    /// then the entries from the joined cache (the status cache written); what they printed.
    fn warm(&self, extra: &[&str]) -> String {
        let runs: Vec<_> = (0..3).map(|_| self.status(extra)).collect();
        let from: Vec<From> = runs.iter().map(|r| r.2).collect();
        assert_eq!(from, [From::ReadFiles, From::ReadFiles, From::JoinedCache], "{}", runs[2].1);
        assert!(runs.iter().all(|r| r.0 == runs[0].0), "every load prints the same");
        runs[0].0.clone()
    }

    fn cache(&self) -> PathBuf {
        self.ws.join("cache/status.jsonl")
    }

    /// What this workspace's `status` prints with no status cache to take it from.
    fn truth(&self, extra: &[&str]) -> String {
        let kept = std::fs::read(self.cache()).ok();
        let _ = std::fs::remove_file(self.cache());
        let (out, _, from) = self.status(extra);
        assert_ne!(from, From::StatusCache);
        if let Some(kept) = kept {
            std::fs::write(self.cache(), kept).unwrap();
        }
        out
    }
}

/// What `status` prints from nothing: a workspace of its own, no cache.
fn from_nothing(results: &Path) -> String {
    let dir = tempfile::tempdir().unwrap();
    let fresh = Setup { results: results.to_path_buf(), ws: dir.path().join("ws"), _dir: dir };
    fresh.status(&[]).0
}

/// A result file below `dir`.
fn a_result_file(dir: &Path) -> PathBuf {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    let file = entries.iter().find(|p| p.extension().is_some_and(|e| e == "json"));
    file.cloned().unwrap_or_else(|| a_result_file(entries.iter().find(|p| p.is_dir()).unwrap()))
}

#[test]
fn a_status_for_the_very_same_inputs_prints_what_the_last_printed_from_the_status_cache() {
    let s = setup();
    let warm = s.warm(&[]);
    for _ in 0..2 {
        let (out, err, from) = s.status(&[]);
        assert_eq!(from, From::StatusCache, "{err}");
        assert!(
            err.contains(", inputs taken ") && !err.contains("joined cache read"),
            "no entry read: {err}"
        );
        assert_eq!(out, warm);
    }
    assert_eq!(warm, from_nothing(&s.results));
}

#[test]
fn the_loads_warnings_are_printed_from_the_status_cache_as_the_load_printed_them() {
    let s = setup();
    s.warm(&[]);
    let warnings = |out: std::process::Output| {
        let err = String::from_utf8(out.stderr).unwrap();
        err.lines().filter(|l| l.contains("warning:")).map(String::from).collect::<Vec<_>>()
    };
    let cached = warnings(s.cli(&["status", "--json"]));
    std::fs::remove_file(s.cache()).unwrap();
    let loaded = warnings(s.cli(&["status", "--json"]));
    assert!(!loaded.is_empty(), "the fixtures give warnings");
    assert_eq!(cached, loaded);
}

#[test]
fn a_mark_a_changed_result_file_or_another_agent_prints_the_truth_and_writes_the_cache_again() {
    let s = setup();
    let warm = s.warm(&[]);
    let marked = s.cli(&["mark", "015069b0", "--unfixable", "no GPU of that kind"]);
    assert!(marked.status.success(), "{}", String::from_utf8_lossy(&marked.stderr));
    let (out, _, from) = s.status(&[]);
    assert_eq!(from, From::JoinedCache, "the book changed, the entries did not");
    assert!(out != warm && out.contains("no GPU of that kind"));
    assert_eq!(s.status(&[]).2, From::StatusCache);
    assert_eq!(s.status(&[]).0, s.truth(&[]));

    let agent = ["--agent", "codex"];
    let (codex, _, from) = s.status(&agent);
    assert_eq!(from, From::JoinedCache, "another agent's output is not this cache's");
    let (again, _, from) = s.status(&agent);
    assert!(from == From::StatusCache && again == codex);
    assert_eq!(codex, s.truth(&agent));
    assert_eq!(s.status(&[]).2, From::JoinedCache, "one cache: the last agent's");

    let file = a_result_file(&s.results);
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text} ")).unwrap();
    let (out, _, from) = s.status(&[]);
    assert_eq!(from, From::ReadFiles, "a result file changed: {}", file.display());
    assert_eq!(out, s.truth(&[]));
}

/// A spoiling of a good cache, and the words of its warning.
type Spoiling = (fn(&Path), &'static str);

/// The file at `path`, its bytes changed by `change`.
fn rewrite(path: &Path, change: fn(&mut Vec<u8>)) {
    let mut bytes = std::fs::read(path).unwrap();
    change(&mut bytes);
    std::fs::write(path, bytes).unwrap();
}

fn spoilings() -> [Spoiling; 4] {
    [
        (|p| rewrite(p, |b| b.truncate(b.len() / 2)), "the status cache's last line cannot be read"),
        (
            |p| rewrite(p, |b| b.extend_from_slice(b"{\"perftriage_status\": 1, \"key\": \n")),
            "the status cache's last line cannot be read",
        ),
        (
            |p| {
                rewrite(p, |b| {
                    let mut grown = b"{}\n".to_vec();
                    grown.append(b);
                    *b = grown;
                })
            },
            "bytes of output where its last line says",
        ),
        (
            |p| {
                std::fs::remove_file(p).unwrap();
                std::fs::create_dir(p).unwrap();
            },
            "cannot read the status cache",
        ),
    ]
}

#[test]
fn a_status_cache_cut_short_spoiled_grown_or_not_a_file_is_said_never_printed_and_written_again() {
    let s = setup();
    let warm = s.warm(&[]);
    for (spoil, words) in spoilings() {
        assert_eq!(s.status(&[]).2, From::StatusCache, "{words}: the cache is good before it is spoiled");
        spoil(&s.cache());
        let (out, err, from) = s.status(&[]);
        assert!(
            err.contains(&format!("warning: {}: ", s.cache().display())) && err.contains(words),
            "{words}: {err}"
        );
        assert_eq!((out, from), (warm.clone(), From::JoinedCache), "{words}");
        if s.cache().is_dir() {
            std::fs::remove_dir(s.cache()).unwrap();
            s.status(&[]);
        }
    }
}

#[test]
fn an_output_cut_short_by_a_closed_pipe_leaves_no_status_cache_and_no_temporary_file() {
    let s = setup();
    s.warm(&[]);
    std::fs::remove_file(s.cache()).unwrap();
    let mut status = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .args(["--workspace".as_ref(), s.ws.as_os_str(), "--results".as_ref(), s.results.as_os_str()])
        .args(["--dataset", DATASET, "status", "--json"])
        .env("XDG_CONFIG_HOME", s.ws.join("no-config"))
        .env("PERFTRIAGE_DIGEST_SETTLE_MS", "0")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut first = [0u8; 1];
    std::io::Read::read_exact(status.stdout.as_mut().unwrap(), &mut first).unwrap();
    // The reader goes, as `| head -1` does: the rest of the output (300 KB, more than a pipe
    // holds) has nowhere to go, which is no error to perftriage.
    drop(status.stdout.take());
    assert!(status.wait().unwrap().success());
    let left: Vec<_> =
        std::fs::read_dir(s.ws.join("cache")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(!s.cache().exists() && left.iter().all(|n| !n.to_string_lossy().ends_with(".tmp")), "{left:?}");
    assert_eq!(s.status(&[]).2, From::JoinedCache, "made again from the joined cache");
}
