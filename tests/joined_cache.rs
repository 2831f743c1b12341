//! The joined cache (`<workspace>/cache/joined.jsonl`): entries read back equal the ones joined
//! (agents, overridden records, repeats and sub-second times included); a second `status` takes
//! its entries from it and prints what a load from nothing prints; a result file changed, added
//! or removed, or the dataset changed, makes a fresh load; a spoiled cache is said, naming its
//! line, and rebuilt; nothing is cached while a file or the dataset may still be changing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use perftriage::classify::Classifier;
use perftriage::dataset::joined::{self, DatasetKey, Inputs, Joined};
use perftriage::dataset::{self, results};
use std::path::{Path, PathBuf};

const SHORT: &str = "015069b0";
const FULL: &str = "015069b01741e9ecb9e604c7fe87fbdfc306ebe5";

/// A per-role result file dated `at`, in folder `folder`, its TPOT repeated as `samples`.
fn role_file(dir: &Path, folder: &str, role: &str, at: &str, samples: &[f64]) {
    let mean = samples.iter().sum::<f64>() / samples.len() as f64;
    let record = serde_json::json!({
        "human_commit": SHORT, "human_commit_full": FULL, "model": "model-a", "status": "success",
        "error": null, "timestamp": at, "metrics": {"tpot_mean_ms": mean},
        "perftriage": {"repeats": {"samples": {"tpot_mean": samples}}},
    });
    let path = dir.join(folder).join(format!("{SHORT}_{role}_result.json"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, record.to_string()).unwrap();
}

/// The real fixtures, and re-runs of one commit by two agents a fraction of a second apart.
fn results_dir(root: &Path) -> PathBuf {
    let results = root.join("results");
    common::copy_tree(Path::new("fixtures/results"), &results);
    for (n, at) in ["2026-01-12T13:06:28.244855", "2026-01-12T13:06:28.744855"].iter().enumerate() {
        for role in ["baseline", "human"] {
            role_file(&results, &format!("reruns/{n}"), role, at, &[20.0 + n as f64, 21.5, 19.25]);
        }
        let agent = format!("agents/omniperf_results_3way_agent-{n}/{SHORT}");
        role_file(&results, &agent, "agent", at, &[18.0, 18.5, 17.75]);
    }
    results
}

#[test]
fn entries_read_back_from_the_joined_cache_equal_the_ones_joined() {
    let dir = tempfile::tempdir().unwrap();
    let results = results_dir(dir.path());
    let classifier = Classifier::embedded().unwrap();
    let commits = dataset::load_embedded().unwrap().commits;
    let dirs = [results];
    let (entries, warnings) =
        dataset::load_results(|| commits, dataset::Sources::dirs(&dirs), &classifier, &mut |_| {});
    let rich = entries.iter().find(|e| e.commit.short == SHORT).unwrap();
    assert_eq!(rich.agents.len(), 2, "two agents' runs");
    assert!(!rich.overridden.is_empty(), "re-runs replaced");
    let joined = Joined { entries, warnings };
    let inputs = Inputs::of(DatasetKey::Embedded, &results::find(&dirs)).unwrap();
    let cache = dir.path().join("cache/joined.jsonl");
    joined::write(&cache, &inputs, &joined);
    let read = joined::open(&cache, &inputs).unwrap().expect("a cache for these inputs").read().unwrap();
    assert_eq!(read, joined);
}

/// `status --json --verbose` over `results` with `dataset` (else the embedded one), in
/// `workspace`, files cached once they are `settle_ms` old: stdout, stderr, and whether the
/// entries came from the joined cache.
fn run(workspace: &Path, results: &Path, dataset: Option<&Path>, settle_ms: &str) -> (String, String, bool) {
    let mut args = vec!["--results".as_ref(), results.as_os_str()];
    args.extend(dataset.map(|d| ["--dataset".as_ref(), d.as_os_str()]).into_iter().flatten());
    let (stdout, stderr) = common::verbose_status(workspace, settle_ms, &args);
    let joined = stderr.contains("unchanged since the joined cache");
    (stdout, stderr, joined)
}

/// What `status` prints from nothing: a workspace of its own, no cache.
fn from_nothing(results: &Path, dataset: &Path) -> String {
    let fresh = tempfile::tempdir().unwrap();
    run(fresh.path(), results, Some(dataset), "0").0
}

struct Setup {
    _dir: tempfile::TempDir,
    results: PathBuf,
    dataset: PathBuf,
    ws: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let results = results_dir(dir.path());
    let dataset = dir.path().join("dataset.jsonl");
    std::fs::copy("fixtures/dataset/isobench_vllm.jsonl", &dataset).unwrap();
    let ws = dir.path().join("ws");
    Setup { _dir: dir, results, dataset, ws }
}

impl Setup {
    fn status(&self) -> (String, String, bool) {
        run(&self.ws, &self.results, Some(&self.dataset), "0")
    }

    fn cache(&self) -> PathBuf {
        self.ws.join("cache/joined.jsonl")
    }
}

/// The phases `status --verbose` names after "where the time went:", in order.
fn phases(stderr: &str) -> Vec<&str> {
    let line =
        stderr.lines().find_map(|l| l.strip_prefix("perftriage: where the time went: ")).expect(stderr);
    let (phases, total) = line.split_once("; ").expect(line);
    assert!(total.ends_with(" ms from main"), "{line}");
    phases.split(", ").map(|p| p.rsplit_once(' ').expect(p).0).collect()
}

#[test]
fn status_verbose_says_where_its_time_went_whether_the_entries_were_joined_or_read_back() {
    let s = setup();
    let (_, fresh, _) = s.status();
    s.status(); // every file from the digest cache: the joined cache written
    let (_, cached, joined) = s.status();
    assert!(joined, "{cached}");
    let common = ["config", "dataset head read", "result files found"];
    assert_eq!(phases(&fresh), [&common[..], &["results read and joined", "written"]].concat(), "{fresh}");
    assert_eq!(phases(&cached), [&common[..], &["joined cache read", "written"]].concat(), "{cached}");
}

#[test]
fn a_status_after_one_that_found_every_file_as_it_was_takes_its_entries_from_the_joined_cache() {
    let s = setup();
    let (first, _, joined) = s.status();
    assert!(!joined, "nothing was cached yet");
    assert!(!s.cache().exists(), "no file was in the digest cache: files that just changed may change again");
    let (second, _, joined) = s.status();
    assert!(!joined && s.cache().exists(), "every file from the digest cache: the joined cache written");
    let (third, err, joined) = s.status();
    assert!(joined, "{err}");
    assert_eq!((&second, &third), (&first, &first));
    assert_eq!(third, from_nothing(&s.results, &s.dataset));
}

/// A change to the inputs, and what it is.
type Change<'a> = (&'a str, Box<dyn Fn() + 'a>);

#[test]
fn a_result_file_changed_added_or_removed_or_the_dataset_changed_makes_a_fresh_load() {
    let s = setup();
    s.status();
    s.status();
    let changes: [Change; 4] = [
        (
            "changed",
            Box::new(|| role_file(&s.results, "reruns/1", "human", "2026-01-12T13:06:28.744855", &[9.0])),
        ),
        ("added", Box::new(|| role_file(&s.results, "reruns/2", "human", "2026-02-01 10:00:00", &[8.0]))),
        (
            "removed",
            Box::new(|| {
                std::fs::remove_dir_all(s.results.join("agents/omniperf_results_3way_agent-1")).unwrap()
            }),
        ),
        ("dataset", Box::new(|| edit_dataset(&s.dataset))),
    ];
    for (what, change) in changes {
        let before = s.status().0;
        change();
        let (after, err, joined) = s.status();
        assert!(!joined, "{what}: {err}");
        assert_ne!(after, before, "{what}: the change is seen");
        assert_eq!(after, from_nothing(&s.results, &s.dataset), "{what}");
        s.status();
        assert!(s.status().2, "{what}: cached again once the files stood still for a load");
    }
}

/// A commit's subject in the dataset, changed.
fn edit_dataset(dataset: &Path) {
    let text = std::fs::read_to_string(dataset).unwrap();
    let line = text.lines().find(|l| l.contains(SHORT)).unwrap();
    let row: serde_json::Value = serde_json::from_str(line).unwrap();
    let subject = row["subject"].as_str().unwrap();
    std::fs::write(dataset, text.replace(subject, "A subject changed after the cache was written")).unwrap();
}

/// A spoiling of a good cache's lines, and the words of its warning.
type Spoiling = (fn(&mut Vec<String>), &'static str);

fn spoilings() -> [Spoiling; 3] {
    [
        (
            |lines| lines[4] = "{\"commit\": not json".into(),
            "joined.jsonl:5: a joined cache line that cannot be read",
        ),
        (|lines| lines.truncate(lines.len() - 3), "a joined cache cut short (93 of its 96 entries)"),
        (
            |lines| {
                let mut contents: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
                contents["entries"] = serde_json::json!(u64::MAX / 2);
                lines[1] = contents.to_string();
            },
            "a joined cache cut short (96 of its 9223372036854775807 entries)",
        ),
    ]
}

#[test]
fn a_spoiled_joined_cache_is_said_rebuilt_and_changes_nothing_printed() {
    let s = setup();
    let first = s.status().0;
    s.status();
    for (spoil, words) in spoilings() {
        let mut lines: Vec<String> =
            std::fs::read_to_string(s.cache()).unwrap().lines().map(String::from).collect();
        spoil(&mut lines);
        std::fs::write(s.cache(), lines.join("\n") + "\n").unwrap();
        let (out, err, joined) = s.status();
        assert!(!joined);
        assert!(err.contains(words), "{words}: {err}");
        assert_eq!(out, first, "{words}");
        let (again, err, joined) = s.status();
        assert!(joined && !err.contains("; rebuilt"), "{words}: rebuilt: {err}");
        assert_eq!(again, first);
    }
}

#[test]
fn nothing_is_cached_while_a_result_file_or_the_dataset_may_still_change() {
    let s = setup();
    let an_hour = "3600000";
    run(&s.ws, &s.results, Some(&s.dataset), an_hour);
    assert!(!s.cache().exists(), "every file was written within the hour");
    s.status();
    assert!(!s.cache().exists(), "every file was read, none came from the digest cache");
    // Now every file is in the digest cache, settled when it was cached.
    run(&s.ws, &s.results, None, an_hour);
    assert!(s.cache().exists(), "the files from the digest cache, the embedded dataset: settled");
    std::fs::remove_file(s.cache()).unwrap();
    run(&s.ws, &s.results, Some(&s.dataset), an_hour);
    assert!(!s.cache().exists(), "the dataset file was written within the hour");
}

#[test]
fn entries_with_a_number_json_cannot_spell_are_not_cached() {
    let mut entries = common::entries();
    let inputs = Inputs::of(DatasetKey::Embedded, &results::find(&[])).unwrap();
    let settle = std::time::Duration::ZERO;
    let finite = Joined { entries: entries.clone(), warnings: Vec::new() };
    assert!(joined::cacheable(&inputs, &finite, settle));
    entries[0].variants[1].outcome.metrics.insert("tpot_mean".into(), f64::NAN);
    let nan = Joined { entries, warnings: Vec::new() };
    assert!(
        !joined::cacheable(&inputs, &nan, settle),
        "JSON writes NaN as null, which reads back as no number"
    );
}
