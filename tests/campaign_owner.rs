//! One driver per campaign, on the real engine with the mock vLLM: a second `resume` (or a
//! `start` and a `resume` at once) is refused with the driver's pid and host, no run is launched
//! or ended twice; a SIGKILLed driver is said stopped by `campaign status` and the board's header,
//! with the resume command as it pastes; `pause` asks a live driver, which journals it itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::campaign::campaign_setup;
use common::engine::{Setup, perftriage, ready, text, watched_perftriage};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const START: &[&str] = &["campaign", "start", "--name", "nightly", "--variants", "b,h,a", "--commits"];
const RESUME: &[&str] = &["campaign", "resume", "nightly"];

fn start(s: &Setup, shorts: &[String]) -> common::wait::Watched {
    let list = shorts.join(",");
    watched_perftriage(s, &[START, &[list.as_str()]].concat())
}

fn events(s: &Setup) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(s.root.join("ws/campaigns/nightly/journal.jsonl")).unwrap_or_default();
    text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

/// Until a container of the setup's workspace runs.
fn a_container_runs(s: &Setup, seen: impl Fn() -> String) {
    let label = format!("label=perftriage.workspace={}", s.root.join("ws").display());
    let running = || !common::engine::docker(&["ps", "-q", "--filter", &label]).is_empty();
    common::wait::holds("a container running", 120, running, seen);
}

fn launched(s: &Setup) -> usize {
    events(s).iter().filter(|e| e["event"] == "launched").count()
}

fn status(s: &Setup) -> serde_json::Value {
    let out = perftriage(s, &["campaign", "status", "nightly", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let left = status["outcome"]["left"].as_object().is_some_and(|l| !l.is_empty());
    assert_eq!(out.status.code(), Some(if left { 3 } else { 0 }), "3 when some are left: {}", text(&out));
    status
}

/// No run id launched twice, none ended twice.
fn each_run_once(s: &Setup) {
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    for e in events(s).iter().filter(|e| e["event"] == "launched" || e["event"] == "finished") {
        *counts.entry((e["event"].to_string(), e["run_id"].to_string())).or_default() += 1;
    }
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "runs journalled twice: {twice:?}\n{:#?}", events(s));
}

/// The exit code of a watched perftriage, and what it said.
fn finish(w: common::wait::Watched) -> (Option<i32>, String) {
    let (status, _, stderr) = w.finish();
    (status.code(), stderr)
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_second_driver_of_a_running_campaign_is_refused_with_the_drivers_pid_and_host() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = campaign_setup(&["ok", "ok", "ok"]);
    let driver = start(&s, &shorts);
    common::wait::holds("a run launched", 120, || launched(&s) > 0, || driver.stderr());
    let refused = perftriage(&s, RESUME);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let holder = format!("driven by another perftriage (pid {} on {}", driver.id(), host.trim());
    assert!(text(&refused).contains(&holder), "{}", text(&refused));
    let said = status(&s);
    assert_eq!(said["driver"]["state"], "running", "{said:#}");
    assert_eq!(said["driver"]["pid"], driver.id(), "{said:#}");
    let (code, stderr) = finish(driver);
    assert_eq!(code, Some(3), "the last agent patch does not apply: {stderr}");
    each_run_once(&s);
}

/// SIGKILLed mid-run, then two `resume`s at once: exactly one drives (and ends the campaign),
/// the other is refused; nothing is launched or ended twice.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn two_resumes_at_once_one_drives_and_one_is_refused() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = campaign_setup(&["ok", "ok", "ok"]);
    let first = start(&s, &shorts);
    common::wait::holds("a run launched", 120, || launched(&s) > 0, || first.stderr());
    drop(first); // SIGKILL, reaped
    let both = [watched_perftriage(&s, RESUME), watched_perftriage(&s, RESUME)].map(finish);
    let codes: Vec<Option<i32>> = both.iter().map(|(code, _)| *code).collect();
    let mut sorted = codes.clone();
    sorted.sort();
    assert_eq!(sorted, [Some(2), Some(3)], "one refused, one drove to the end: {both:#?}");
    let refused = &both.iter().find(|(code, _)| *code == Some(2)).unwrap().1;
    assert!(refused.contains("driven by another perftriage (pid "), "{refused}");
    each_run_once(&s);
}

/// `start` and `resume` of one name at once: the resume finds no campaign yet or is refused by
/// the driver; either way one process drives, nothing runs twice.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_start_and_a_resume_at_once_leave_one_driver() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = campaign_setup(&["ok", "ok"]);
    let driver = start(&s, &shorts);
    let resume = watched_perftriage(&s, RESUME);
    let (resumed, said) = finish(resume);
    let (started, stderr) = finish(driver);
    let drove = [resumed, started].iter().filter(|c| **c == Some(3)).count();
    assert_eq!(drove, 1, "start {started:?}: {stderr}\nresume {resumed:?}: {said}");
    assert!([resumed, started].contains(&Some(2)), "the other refused: {said}\n{stderr}");
    each_run_once(&s);
}

/// A SIGKILLed driver: `campaign status` says the campaign stopped, with the resume command as it
/// pastes (this process's --config and --workspace in it), and the running cell says nothing runs
/// it; `pause` then stops it under its lock; the resume goes on to the end.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_killed_driver_is_said_stopped_with_the_resume_command_and_pause_and_resume_go_on() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["ok", "ok"], STARTS_IN_5_S);
    let driver = start(&s, &shorts[..1]);
    a_container_runs(&s, || driver.stderr());
    drop(driver); // SIGKILL, reaped: the kernel has let go of its lock
    let said = status(&s);
    assert_eq!(said["driver"]["state"], "stopped", "{said:#}");
    let cells = said["cells"].as_array().unwrap();
    let mid_run = cells.iter().find(|c| c["state"] == "stopped").expect("a cell stopped mid-run");
    assert!(
        mid_run["why"].as_str().unwrap().ends_with("stopped mid-run: its container still runs"),
        "{mid_run:#}"
    );
    let stopped = said["stopped"].as_str().unwrap_or_default();
    let config = s.config.display().to_string();
    let resume = format!("--config {config} --workspace {}", s.root.join("ws").display());
    assert!(stopped.starts_with("stopped: its process is gone — perftriage "), "{said:#}");
    assert!(stopped.contains(&resume) && stopped.ends_with("campaign resume nightly"), "{said:#}");
    let out = perftriage(&s, &["campaign", "status", "nightly"]);
    assert!(text(&out).contains("(stopped: its process is gone — perftriage"), "{}", text(&out));
    let paused = perftriage(&s, &["campaign", "pause", "nightly"]);
    assert_eq!(paused.status.code(), Some(0), "{}", text(&paused));
    assert_eq!(status(&s)["paused"], true);
    let out = perftriage(&s, RESUME);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    each_run_once(&s);
}

/// `pause` while the driver runs asks it; the driver journals the pause itself and stops.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn pause_asks_the_live_driver_which_journals_it_and_stops() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = campaign_setup(&["ok", "ok", "ok"]);
    let driver = start(&s, &shorts);
    common::wait::holds("a run launched", 120, || launched(&s) > 0, || driver.stderr());
    let pid = driver.id();
    let paused = perftriage(&s, &["campaign", "pause", "nightly"]);
    assert_eq!(paused.status.code(), Some(0), "{}", text(&paused));
    assert!(text(&paused).contains(&format!("paused by its driver (pid {pid} on ")), "{}", text(&paused));
    let (code, stderr) = finish(driver);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("nightly paused"), "{stderr}");
    assert_eq!(status(&s)["paused"], true);
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let dir = s.root.join("ws/campaigns/nightly");
    let files = ["journal.jsonl", "driver.lock"].map(|f| mode(&dir.join(f)));
    assert_eq!((files, mode(&dir)), ([0o600, 0o600], 0o700), "private, as results are");
}

/// The board watching a campaign headless: SIGKILL its driver and the header says it stopped,
/// with the resume command (read every other second; the test allows far more than that, and
/// prints what it took).
#[test]
#[cfg_attr(not(all(has_docker, has_tmux)), ignore = "needs a Docker engine, busybox-static and tmux")]
fn the_boards_header_says_a_killed_driver_stopped() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["ok"], STARTS_IN_5_S);
    let driver = start(&s, &shorts);
    a_container_runs(&s, || driver.stderr());
    let board = common::tmux_board::Board::start(&s.config, &s.root.join("ws"), "owner", 250);
    board.until("the campaign in the header", 60, |t| t.contains("campaign nightly"));
    let killed = Instant::now();
    drop(driver);
    let screen = board.until("stopped in the header", 60, |t| t.contains("stopped: its process is gone"));
    eprintln!("the header said stopped {:.1} s after the kill", killed.elapsed().as_secs_f64());
    assert!(screen.lines().next().unwrap().contains("campaign nightly"), "{screen}");
    // Resumed from the board: `O`, `r`, yes; a new driver goes on to the end (the last agent
    // patch does not apply).
    board.keys("O");
    // The O view's columns are 40 wide: the cell's standing is cut there.
    board.until("the campaign view", 30, |t| t.contains("stopped mid-run: its container still"));
    board.keys("r");
    board.until("the resume's confirm", 30, |t| t.contains("Resume campaign nightly?"));
    board.keys("y");
    board.until("the campaign ended", 300, |t| t.contains("campaign nightly 3/3 ✓2 ✗1"));
    each_run_once(&s);
}

/// A board that connects only after a campaign's driver was SIGKILLed finds the run's container
/// running with its perftriage gone. It is the campaign's (its label names it): the board takes
/// no run over and offers nothing for removal; the resume picks it up and runs nothing twice.
/// (The board used to take it over and remove it once done: the header test then saw "its
/// container is gone" where it waited for "still runs".)
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_board_that_connects_after_a_drivers_kill_leaves_its_container_to_the_campaign() {
    use perftriage::app::{DockerMsg, JobMsg, Msg};
    let Some((rt, _engine)) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["ok"], STARTS_IN_5_S);
    let driver = start(&s, &shorts[..1]);
    a_container_runs(&s, || driver.stderr());
    drop(driver); // SIGKILL, reaped
    let (jobs, mut rx) = common::engine::board_jobs(&rt, &s);
    // After `Connected` the same task re-attaches, then reports the left-behind containers.
    let mut before = Vec::new();
    let orphans = rt.block_on(async {
        loop {
            match rx.recv().await.unwrap() {
                Msg::Docker(DockerMsg::Orphans(orphans)) => break orphans,
                other => before.push(other),
            }
        }
    });
    assert!(!before.iter().any(|m| matches!(m, Msg::Job(JobMsg::Found(_)))), "taken over: {before:#?}");
    assert!(orphans.is_empty(), "offered for removal: {orphans:#?}");
    drop(jobs);
    let out = perftriage(&s, RESUME);
    // The agent's patch does not apply to this checkout: 3, a cell left failed.
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("baseline: picking up run"), "{}", text(&out));
    assert_eq!(launched(&s), 3, "one run a cell, the baseline's picked up: {:#?}", events(&s));
    each_run_once(&s);
}

/// A server that fails four seconds into its start (the image lacks `fa_utils.py`).
const FAILS_LATE: &str = "server = \"env MOCK_FAIL_AFTER_MS=4000 python3 -m vllm.entrypoints.openai.api_server --model {model} --port 8000\"\n";

/// The driver SIGKILLed after its run's server started, the server then failing on its own: the
/// resume reads the exited container (its log classified `fa_utils`, its result written) instead
/// of removing it as a stray and running the cell again.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_resume_reads_a_container_that_exited_after_the_kill_and_runs_nothing_again() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["fa_utils", "ok"], FAILS_LATE);
    let args = ["campaign", "start", "--name", "nightly", "--variants", "b", "--commits", &shorts[0]];
    let driver = watched_perftriage(&s, &args);
    let label = format!("label=perftriage.workspace={}", s.root.join("ws").display());
    let container = || common::engine::docker(&["ps", "-aq", "--filter", &label]);
    let logs = |id: &str| text(&std::process::Command::new("docker").args(["logs", id]).output().unwrap());
    common::wait::holds(
        "the server started",
        120,
        || {
            let id = container();
            !id.is_empty() && logs(&id).contains("vLLM API server version")
        },
        || driver.stderr(),
    );
    drop(driver); // SIGKILL, reaped, while the server still starts
    let id = container();
    let exited = || common::engine::docker(&["inspect", "-f", "{{.State.Status}}", &id]) == "exited";
    common::wait::holds("the container exited on its own", 60, exited, || logs(&id));
    let out = perftriage(&s, RESUME);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let runs: Vec<serde_json::Value> = events(&s).into_iter().filter(|e| e["event"] == "launched").collect();
    assert_eq!(runs.len(), 1, "run once, not again: {:#?}", events(&s));
    let finished = events(&s).into_iter().find(|e| e["event"] == "finished").unwrap();
    assert_eq!(
        (&finished["run_id"], &finished["category"]),
        (&runs[0]["run_id"], &"fa_utils".into()),
        "{finished:#}"
    );
    let result = common::engine::result_of(&s, &shorts[0], "baseline");
    assert_eq!(result["perftriage"]["run_id"], runs[0]["run_id"], "{result:#}");
    assert!(container().is_empty(), "the container is removed once read");
    each_run_once(&s);
}

/// A journal of one campaign over the setup's commit, its `started` event written as the binary
/// writes it, then `more` bytes.
fn journal_of(s: &Setup, more: &[u8]) -> std::path::PathBuf {
    use perftriage::campaigns::{CampaignSpec, Event, Policy, SCHEMA, to_line};
    let spec = CampaignSpec {
        name: "nightly".into(),
        commits: vec![s.short.as_str().into()],
        variants: vec![perftriage::dataset::Variant::Baseline],
        repeat: perftriage::runs::Repeat::Times(1),
        policy: Policy { auto_fix: false, retries: 0, retry_wait_s: 1 },
        concurrency: 1,
        slurm: false,
        only: None,
    };
    let started = Event::Started { schema: SCHEMA, spec, usable: None, at: "2026-11-28T01:00:00Z".into() };
    let path = s.root.join("ws/campaigns/nightly/journal.jsonl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, [to_line(&started).as_bytes(), more].concat()).unwrap();
    path
}

/// A last line cut inside a character (a crash mid-write of a path with `é`) is said by
/// `status` and left out; `pause` (no driver alive) repairs it before it appends, so the journal
/// stays readable; an event kind a newer perftriage wrote is skipped and said, never a stop.
#[test]
fn a_torn_or_newer_journal_is_read_said_and_repaired_by_every_verb() {
    let s = common::engine::setup("perftriage-test/vllm:ok", "python3 benchmarks/benchmark_serving.py", "");
    let mut torn = "{\"event\":\"paused\",\"at\":\"/ws/caf\u{e9}".as_bytes().to_vec();
    torn.pop();
    let path = journal_of(&s, &[b"{\"event\":\"migrated\",\"to\":3}\n".as_slice(), &torn].concat());
    let out = perftriage(&s, &["campaign", "status", "nightly"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("last line was cut short by a crash; it is left out"), "{}", text(&out));
    assert!(
        text(&out).contains("journal line 2: unknown event (a newer perftriage's?): skipped"),
        "{}",
        text(&out)
    );
    let out = perftriage(&s, &["campaign", "pause", "nightly"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("it is dropped"), "{}", text(&out));
    let journal = std::fs::read(&path).unwrap();
    assert!(journal.ends_with(b"\n") && std::str::from_utf8(&journal).is_ok(), "{journal:?}");
    assert_eq!(status(&s)["paused"], true);
}

/// A server that takes five seconds to start: its container runs a while before the run ends.
const STARTS_IN_5_S: &str = "server = \"env MOCK_STARTUP_MS=5000 python3 -m vllm.entrypoints.openai.api_server --model {model} --port 8000\"\n";

/// A server that takes half a minute to start: its run stays in flight while the test acts.
const SLOW_START: &str = "server = \"env MOCK_STARTUP_MS=30000 python3 -m vllm.entrypoints.openai.api_server --model {model} --port 8000\"\n";

/// The run in flight's id, once the journal has one.
fn in_flight(s: &Setup) -> String {
    common::wait::until("a run in flight", Duration::from_secs(120), || {
        let out = perftriage(s, &["campaign", "status", "nightly", "--json"]);
        let said: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let cells = said["cells"].as_array().cloned().unwrap_or_default();
        let running = cells.iter().find(|c| c["state"] == "running");
        running.and_then(|c| c["runs"][0].as_str().map(str::to_string)).ok_or_else(|| format!("{said:#}"))
    })
}

/// `campaign cancel NAME --run RUN` stops that run through its driver, which removes its container,
/// journals it `cancelled_on_request` and leaves its cell, and goes on with the others.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn cancel_run_stops_one_run_through_the_driver_and_leaves_its_cell() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["ok"], SLOW_START);
    let args = ["campaign", "start", "--name", "nightly", "--variants", "b", "--commits", &shorts[0]];
    let driver = watched_perftriage(&s, &args);
    let run = in_flight(&s);
    let out = perftriage(&s, &["campaign", "cancel", "nightly", "--run", &run]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("run {run} stopped by its driver (pid {}", driver.id())),
        "{}",
        text(&out)
    );
    let (code, stderr) = finish(driver);
    assert_eq!(code, Some(3), "the cell is left: {stderr}");
    let cell = &status(&s)["cells"][0];
    assert_eq!(
        (&cell["state"], &cell["category"]),
        (&"left".into(), &"cancelled_on_request".into()),
        "{cell:#}"
    );
    let label = format!("label=perftriage.workspace={}", s.root.join("ws").display());
    assert!(
        common::engine::docker(&["ps", "-aq", "--filter", &label]).is_empty(),
        "its container is removed"
    );
    let again = perftriage(&s, &["campaign", "cancel", "nightly", "--run", &run]);
    assert_eq!(again.status.code(), Some(2), "not in flight any more: {}", text(&again));
    each_run_once(&s);
}

/// On the board, `R` lists the campaign's run with where it runs, Enter follows its server log
/// live, and `x` on the commit asks its driver to stop it (after a confirm that gives the
/// headless command); the header's campaign ends with the cell left.
#[test]
#[cfg_attr(not(all(has_docker, has_tmux)), ignore = "needs a Docker engine, busybox-static and tmux")]
fn x_on_the_board_cancels_a_campaigns_run_through_its_driver() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["ok"], SLOW_START);
    let args = ["campaign", "start", "--name", "nightly", "--variants", "b", "--commits", &shorts[0]];
    let driver = watched_perftriage(&s, &args);
    let run = in_flight(&s);
    let board = common::tmux_board::Board::start(&s.config, &s.root.join("ws"), "owner-x", 250);
    board.until("the campaign in the header", 60, |t| t.contains("campaign nightly 0/1"));
    board.keys("R");
    let view = board.until("the runs view with the campaign's run", 60, |t| {
        t.contains(&run) || t.contains("perftriage-test/vllm:ok @ local")
    });
    assert!(view.contains("queued here, the campaign's 1 running"), "{view}");
    // Enter on it: its server log, followed live from the driver's spool.
    board.keys("Enter");
    board.until("the run's live server log", 60, |t| {
        t.contains("(live;") && t.contains("vLLM API server version")
    });
    board.keys("Escape");
    board.until("the log closed", 30, |t| !t.contains("(live;"));
    board.keys("x");
    board.until("the confirm", 30, |t| {
        t.contains(&format!("Cancel {} baseline (campaign nightly)?", shorts[0]))
    });
    board.keys("y");
    board.until("the campaign ended", 120, |t| t.contains("campaign nightly 1/1 ✓0 ✗1"));
    let (code, stderr) = finish(driver);
    assert_eq!(code, Some(3), "{stderr}");
    assert_eq!(status(&s)["cells"][0]["category"], "cancelled_on_request");
}

/// The evidence rule's other side: a container killed from outside after the driver's SIGKILL
/// (`docker kill`, as a daemon restart does: exit 137) holds nothing of the run's own; the resume
/// runs the cell again instead of reading it as a crash (the 30 × 3 kill test once found an
/// exited container read as `server_crash`).
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_resume_runs_again_a_run_whose_container_was_killed_from_outside() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["ok", "ok"], SLOW_START);
    let args = ["campaign", "start", "--name", "nightly", "--variants", "b", "--commits", &shorts[0]];
    let driver = watched_perftriage(&s, &args);
    let run = in_flight(&s);
    let label = format!("label=perftriage.run={run}");
    let container = || common::engine::docker(&["ps", "-q", "--filter", &label]);
    common::wait::holds("its container running", 120, || !container().is_empty(), || driver.stderr());
    drop(driver); // SIGKILL, reaped
    common::engine::docker(&["kill", &container()]);
    let out = perftriage(&s, RESUME);
    assert_eq!(out.status.code(), Some(0), "run again, and ok: {}", text(&out));
    assert!(
        text(&out).contains("had ended after the stop with nothing to read (exit 137)"),
        "{}",
        text(&out)
    );
    assert_eq!(launched(&s), 2, "{:#?}", events(&s));
    each_run_once(&s);
}

/// Every verb takes a campaign's name by one rule, and opens its journal only as a regular file:
/// `status ../../evil` is refused (it read a journal outside the workspace); a journal that is a
/// symlink (to a file outside, to `/dev/zero`) or a FIFO is an error naming it, at once — never
/// followed, never waited on, never appended to.
#[test]
fn a_journal_outside_the_workspace_a_symlink_or_a_fifo_is_refused_by_name() {
    let s = common::engine::setup("perftriage-test/vllm:ok", "python3 benchmarks/benchmark_serving.py", "");
    let outside = s.root.join("evil/campaigns/x");
    std::fs::create_dir_all(&outside).unwrap();
    let journal = journal_of(&s, b"");
    std::fs::copy(&journal, outside.join("journal.jsonl")).unwrap();
    let out = perftriage(&s, &["campaign", "status", "../../evil/campaigns/x"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("is not a plain name"), "{}", text(&out));
    let target = outside.join("journal.jsonl");
    let original = std::fs::read(&target).unwrap();
    for (how, make) in [
        (
            "a symlink out",
            Box::new(|p: &std::path::Path| std::os::unix::fs::symlink(&target, p).unwrap())
                as Box<dyn Fn(&std::path::Path)>,
        ),
        (
            "a symlink to /dev/zero",
            Box::new(|p: &std::path::Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap()),
        ),
        (
            "a FIFO",
            Box::new(|p: &std::path::Path| {
                assert!(std::process::Command::new("mkfifo").arg(p).status().unwrap().success())
            }),
        ),
    ] {
        std::fs::remove_file(&journal).unwrap();
        make(&journal);
        for verb in ["status", "pause", "resume"] {
            let out = perftriage(&s, &["campaign", verb, "nightly"]);
            assert_ne!(out.status.code(), Some(0), "{how}, {verb}: {}", text(&out));
            let said = format!("{} is not a regular file", journal.display());
            assert!(text(&out).contains(&said), "{how}, {verb}: {}", text(&out));
        }
        assert_eq!(std::fs::read(&target).unwrap(), original, "{how}: nothing appended to the file outside");
    }
}
