//! Months of re-runs of one commit: loading keeps the newest successful record of each kind
//! (variant, workload, metrics) and a small reference to every record a newer one replaced, ties
//! between equally dated records go to the last file whatever thread read it, and reading as a
//! stream gives what reading everything first gives.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use perftriage::app::{Msg, update};
use perftriage::classify::Classifier;
use perftriage::dataset::{self, Entry, Progress, RunStatus, Variant, results};
use perftriage::report::compare;
use std::path::Path;

const SHORT: &str = "015069b0";
const FULL: &str = "015069b01741e9ecb9e604c7fe87fbdfc306ebe5";

/// A per-role result file (the run_3way schema) measuring `ttft` with `model`, dated `at`, in
/// folder `name` (one of 8 hex digits names a commit, not a harness: the files of such folders
/// share the harness of the folder above).
fn role_file(dir: &Path, name: &str, role: &str, model: &str, at: &str, ttft: f64) {
    let record = serde_json::json!({
        "human_commit": SHORT, "human_commit_full": FULL, "model": model, "status": "success",
        "error": null, "timestamp": at,
        "metrics": {"ttft_mean_ms": ttft, "request_throughput_req_s": 10.0},
    });
    let path = dir.join(name).join(format!("{SHORT}_{role}_result.json"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, record.to_string()).unwrap();
}

fn load(dir: &Path) -> Entry {
    let classifier = Classifier::embedded().unwrap();
    let commits = dataset::load_embedded().unwrap().commits;
    let (entries, warnings) = dataset::load_results(
        || commits,
        dataset::Sources::dirs(&[dir.to_path_buf()]),
        &classifier,
        &mut |_| {},
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    entries.into_iter().find(|e| e.commit.short == SHORT).unwrap()
}

/// The day `n` days into 2026 (n < 300), as a result file dates it.
fn day(n: usize) -> String {
    let (month, day) = (1 + n / 28, 1 + n % 28);
    format!("2026-{month:02}-{day:02} 12:00:00")
}

#[test]
fn a_thousand_re_runs_of_one_workload_keep_one_measured_record_and_the_newest_comparable_pair() {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..250 {
        for role in ["baseline", "human"] {
            role_file(dir.path(), &format!("{n:08x}"), role, "model-a", &day(n), 100.0 + n as f64);
        }
    }
    // The newest of each measure different models: not comparable, so the newest pair of one
    // workload (day 249, both at 349 ms: a tie) stands in, named.
    role_file(dir.path(), "fffffffe", "baseline", "model-b", &day(260), 1.0);
    role_file(dir.path(), "ffffffff", "human", "model-c", &day(261), 1.0);
    let entry = load(dir.path());
    assert_eq!(entry.measured.len(), 4, "one per variant and workload, not one per record");
    let pair = compare(&entry).unwrap().pair("human_vs_baseline").unwrap().clone();
    let older = pair.older.as_deref().unwrap_or_else(|| panic!("{pair:?}"));
    assert!(older.contains(&format!("{:08x}", 249)) && older.contains(&day(249)), "{older}");
    assert_eq!(pair.pct, Some(0.0), "{pair:?}");
    assert_eq!(entry.overridden.len(), 2 * 250, "every replaced record, once: {}", entry.overridden.len());
    assert!(entry.overridden.iter().all(|o| o.status == RunStatus::Success && o.source.is_some()));
}

#[test]
fn equally_dated_records_go_to_the_last_file_in_order_whatever_thread_read_it() {
    let dir = tempfile::tempdir().unwrap();
    // Enough files for several chunks on every core.
    for n in 0..1_500 {
        role_file(dir.path(), &format!("run-{n:04}"), "baseline", "model-a", "2026-01-11 16:35:23", n as f64);
    }
    for _ in 0..3 {
        let entry = load(dir.path());
        let baseline = entry.variant(Variant::Baseline);
        assert!(
            baseline.outcome.source.as_deref().unwrap().contains("run-1499"),
            "{:?}",
            baseline.outcome.source
        );
        assert_eq!(baseline.outcome.metrics.get("ttft_mean"), Some(&1499.0));
        assert_eq!(entry.overridden.len(), 1_499);
    }
}

#[test]
fn reading_as_a_stream_joins_what_reading_everything_first_joins() {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..600 {
        let role = ["baseline", "human", "agent"][n % 3];
        role_file(
            dir.path(),
            &format!("run-{n:04}"),
            role,
            ["model-a", "model-b"][n % 2],
            &day(n % 250),
            n as f64,
        );
    }
    std::fs::write(dir.path().join("broken.json"), "{ not json").unwrap();
    let classifier = Classifier::embedded().unwrap();
    let commits = || dataset::load_embedded().unwrap().commits;
    let at_once = dataset::join(commits(), results::read_dirs(&[dir.path().into()]), &classifier);
    let mut heard = Vec::new();
    let streamed =
        dataset::load_results(commits, dataset::Sources::dirs(&[dir.path().into()]), &classifier, &mut |p| {
            heard.push(p.read)
        });
    assert_eq!(streamed, at_once);
    assert_eq!(streamed.1.len(), 1, "the broken file, named: {:?}", streamed.1);
    assert_eq!(heard.first(), Some(&0));
    assert_eq!(heard.last(), Some(&601), "every file counted: {heard:?}");
    assert!(heard.windows(2).all(|w| w[0] < w[1]), "{heard:?}");
    // The dataset made into entries only once a chunk of files is read: that chunk waits for them.
    let (chunk_read, first_chunk) = std::sync::mpsc::channel();
    let late_commits = move || {
        first_chunk.recv().unwrap();
        commits()
    };
    let mut told = false;
    let late = dataset::load_results(
        late_commits,
        dataset::Sources::dirs(&[dir.path().into()]),
        &classifier,
        &mut |p| {
            if p.read > 0 && !std::mem::replace(&mut told, true) {
                chunk_read.send(()).unwrap();
            }
        },
    );
    assert_eq!(late, at_once, "the files read before the entries were made are joined with them");
}

#[test]
fn the_board_draws_the_dataset_while_the_results_are_read_then_takes_them_keeping_its_own_runs() {
    let mut s = common::state();
    update(
        &mut s,
        Msg::Reading(Progress { read: 12_000, total: 300_000, seconds: 0.5, ..Progress::default() }),
    );
    let screen = common::screen_of(&s, 160, 48);
    assert!(screen.contains("reading results 12000/300000 (24000 files/s)"), "{screen}");
    assert!(screen.contains("015069b0"), "the dataset's rows are drawn meanwhile:\n{screen}");
    // A run this board finished while the files were read: newer than any of them.
    let index = s.board.entry_index(SHORT).unwrap();
    let slot = &mut s.board.entries[index].variants[Variant::Human as usize];
    slot.outcome.status = RunStatus::Error;
    slot.outcome.source = Some("the board's own run".into());
    (slot.loaded, slot.at) = (true, results::Stamp::parse("2026-11-22 01:00:00"));
    let dir = tempfile::tempdir().unwrap();
    for role in ["baseline", "human"] {
        role_file(dir.path(), "00000001", role, "model-a", "2026-01-11 16:35:23", 100.0);
    }
    let classifier = Classifier::embedded().unwrap();
    let commits = dataset::load_embedded().unwrap().commits;
    let (entries, _) = dataset::load_results(
        || commits,
        dataset::Sources::dirs(&[dir.path().into()]),
        &classifier,
        &mut |_| {},
    );
    let warnings = vec!["x.json: invalid JSON".to_string()];
    update(&mut s, Msg::ResultsRead { entries, warnings });
    let entry = &s.board.entries[index];
    assert_eq!(entry.variant(Variant::Baseline).outcome.status, RunStatus::Success, "read from the file");
    assert_eq!(entry.variant(Variant::Human).outcome.source.as_deref(), Some("the board's own run"));
    let screen = common::screen_of(&s, 160, 48);
    assert!(!screen.contains("reading results"), "{screen}");
    assert!(screen.contains("1 warning(s); first: x.json: invalid JSON"), "{screen}");
}

/// The board starts from the dataset's first rows (`session::BOARD_HEAD`); the rest come with
/// the results, and the board grows to them (it indexed past its rows, and panicked).
#[test]
fn the_board_drawn_from_the_datasets_first_rows_grows_to_the_rest_with_the_results() {
    let classifier = Classifier::embedded().unwrap();
    let commits = dataset::load_embedded().unwrap().commits;
    let (head, _) = dataset::join(commits[..10].to_vec(), Default::default(), &classifier);
    let mut s = perftriage::app::AppState::new(head, Default::default(), Default::default());
    let last = commits.iter().map(|c| c.short.clone()).max().unwrap();
    assert!(!common::screen_of(&s, 160, 48).contains(last.as_str()), "not yet read");
    let (entries, _) =
        dataset::load_results(|| commits.clone(), dataset::Sources::dirs(&[]), &classifier, &mut |_| {});
    update(&mut s, Msg::ResultsRead { entries, warnings: Vec::new() });
    assert_eq!((s.board.entries.len(), s.board.rows.len()), (commits.len(), commits.len()));
    common::press(&mut s, perftriage::app::Key::ch('G'));
    common::tmux_board::row_of(&common::screen_of(&s, 160, 48), last.as_str());
}

/// The header's "reading results N/" count, once there is one.
fn reading_count(screen: &str) -> Option<String> {
    let after = screen.split("reading results ").nth(1)?;
    after.split('/').next().map(str::to_string)
}

#[test]
#[cfg_attr(not(has_tmux), ignore = "needs tmux")]
fn the_board_in_a_terminal_draws_at_once_says_how_far_reading_has_got_then_shows_the_results() {
    // 100,000 small files: the reading takes long enough to be watched (seconds), in memory
    // where there is a tmpfs (on disk, writing and removing them took most of a minute).
    let shm = std::path::Path::new("/dev/shm");
    let dir = if shm.is_dir() { tempfile::tempdir_in(shm) } else { tempfile::tempdir() }.unwrap();
    for n in 0..100_000 {
        let role = ["baseline", "human", "agent"][n % 3];
        role_file(dir.path(), &format!("{:08x}", n / 3), role, "model-a", "2026-01-11 16:35:23", n as f64);
    }
    let config = dir.path().join("config.toml");
    std::fs::write(&config, format!("results = [{:?}]\n", dir.path().display().to_string())).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let board = common::tmux_board::Board::start(&config, ws.path(), "history", 160);
    let loading = |s: &str| s.contains("finding result files…") || s.contains("reading results ");
    let first = board.until("the first screen", 30, |s| s.contains("All 96"));
    assert!(loading(&first), "the board draws before the files are read:\n{first}");
    assert!(first.contains(SHORT), "the dataset's rows are drawn at once:\n{first}");
    let counted = board.until("a count of files read", 60, |s| s.contains("reading results ") || !loading(s));
    assert!(counted.contains("/100000 ("), "how many of how many, and how fast:\n{counted}");
    // The reading's thread and rayon's at the lowest priority, the board's own as it was started.
    let threads = board.thread_nices();
    // The rules' compile (`rules`) is niced too, while it lasts.
    let reading = |name: &str| ["results-reader", "rules"].contains(&name) || name.starts_with("reading-");
    let niced: Vec<&str> = threads.iter().filter(|(_, n)| *n == 19).map(|(name, _)| name.as_str()).collect();
    // The board's own thread keeps the nice it was started with: this test's (tmux's pane's).
    let own =
        common::tmux_board::name_and_nice(&std::fs::read_to_string("/proc/self/stat").unwrap()).unwrap().1;
    assert!(threads[0].1 == own && niced.iter().all(|n| reading(n)), "at nice {own}: {threads:?}");
    let readers = threads.iter().filter(|(name, _)| reading(name)).count();
    let rayons = niced.iter().filter(|n| n.starts_with("reading-")).count();
    assert!(niced.contains(&"results-reader") && rayons > 0 && readers == niced.len(), "{threads:?}");
    // The reading runs at nice 19: under a loaded CI it crawls (741 files/s seen) but moves.
    let read = board.until_moving("the results", 60, reading_count, |s| !loading(s));
    assert!(common::tmux_board::row_has(&read, SHORT, "✓ 99999 ms"), "the newest of each:\n{read}");
}

#[test]
fn a_record_repeated_in_a_progress_log_is_listed_once_among_the_overridden() {
    let entry = |at: &str| {
        serde_json::json!({"commit_hash": FULL, "status": "success", "timestamp": at,
            "baseline_metrics": {"ttft_mean_ms": 1.0}, "human_metrics": {"ttft_mean_ms": 1.0}})
    };
    let older = entry("2026-01-01 10:00:00");
    let log = serde_json::json!({"results": [older, older, entry("2026-01-02 10:00:00")]});
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("progress.json"), log.to_string()).unwrap();
    let entry = load(dir.path());
    let old: Vec<_> = entry.overridden.iter().map(|o| (o.variant, o.at.map(|t| t.to_string()))).collect();
    let day_one = Some("2026-01-01 10:00:00".to_string());
    // The agent too: a Modal success without agent metrics is the agent's failure.
    let each = Variant::ALL.map(|v| (v, day_one.clone()));
    assert_eq!(old, each, "each once");
}
