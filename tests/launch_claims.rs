//! A launch record is a claim, checked before it is acted on (issue 56 item 1), on the real engine
//! with the mock vLLM: a campaign's driver is SIGKILLed while its run's server starts, the run's
//! launch record is edited, and `campaign resume` must refuse the run — saying what disagrees,
//! with both values — leave its container (and any other) as it is, and write no result.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::engine::{Setup, docker, perftriage, ready, text, watched_perftriage};
use std::time::Duration;

const SLOW_START: &str = "server = \"env MOCK_STARTUP_MS=60000 python3 -m vllm.entrypoints.openai.api_server --model {model} --port 8000\"\n";

/// A one-cell campaign (the first commit's baseline) whose driver was SIGKILLed while its run's
/// container ran: the setup, the commit, the run id and its container's id.
fn killed_mid_run() -> (Setup, String, String, String) {
    let (s, shorts) = common::campaign::campaign_setup_with(&["ok", "ok"], SLOW_START);
    let args = ["campaign", "start", "--name", "nightly", "--variants", "b", "--commits", &shorts[0]];
    let driver = watched_perftriage(&s, &args);
    let run = common::wait::until("a run in flight", Duration::from_secs(120), || {
        let text =
            std::fs::read_to_string(s.root.join("ws/campaigns/nightly/journal.jsonl")).unwrap_or_default();
        let launched = text.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok());
        launched
            .filter(|e| e["event"] == "launched")
            .find_map(|e| e["run_id"].as_str().map(str::to_string))
            .ok_or(text)
    });
    let label = format!("label=perftriage.run={run}");
    let container = || docker(&["ps", "-q", "--no-trunc", "--filter", &label]);
    common::wait::holds("its container running", 120, || !container().is_empty(), || driver.stderr());
    drop(driver); // SIGKILL, reaped
    let id = container();
    (s, shorts[0].clone(), run, id)
}

/// The run's launch record, changed by `edit`.
fn tamper(s: &Setup, run: &str, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = s.root.join("ws/runs").join(run).join("launch.json");
    let mut launch: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut launch);
    std::fs::write(&path, serde_json::to_vec_pretty(&launch).unwrap()).unwrap();
}

fn running(id: &str) -> bool {
    docker(&["inspect", "-f", "{{.State.Running}}", id]) == "true"
}

/// The resume refuses the run with `said` in its words; the cell is left (`launch_mismatch`), no
/// result file is written, the run's container still runs.
fn refused(s: &Setup, short: &str, id: &str, said: &str) {
    let out = perftriage(s, &["campaign", "resume", "nightly"]);
    assert!(text(&out).contains("launch_mismatch") && text(&out).contains(said), "{}", text(&out));
    let journal = std::fs::read_to_string(s.root.join("ws/campaigns/nightly/journal.jsonl")).unwrap();
    let launched = journal.lines().filter(|l| l.contains("\"launched\"")).count();
    assert_eq!(launched, 1, "refused, not run again: {journal}");
    let result = s.root.join("ws/results").join(format!("{short}_baseline_result.json"));
    assert!(!result.exists(), "nothing recorded for a refused run");
    assert!(running(id), "its container is left for a look");
    docker(&["rm", "-f", id]);
}

/// The record names an unrelated container (no perftriage label): it was killed and removed on
/// resume while perftriage's own ran on. Now the run is refused and both stay.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_launch_record_naming_another_container_is_refused_and_that_container_is_untouched() {
    let Some(_engine) = ready() else { return };
    let (s, short, run, id) = killed_mid_run();
    let image = docker(&["inspect", "-f", "{{.Config.Image}}", &id]);
    let stranger = format!("unrelated-{run}");
    docker(&["run", "-d", "--name", &stranger, &image, "sleep", "100000"]);
    let _gone = Removed(stranger.clone());
    tamper(&s, &run, |l| l["plan"]["container"]["name"] = stranger.clone().into());
    refused(&s, &short, &id, &format!("its name is `{stranger}` in the record"));
    assert!(running(&stranger), "the unrelated container still runs");
}

/// A container of the test's own, removed when the test ends however it ends.
struct Removed(String);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::process::Command::new("docker").args(["rm", "-f", &self.0]).output();
    }
}

/// The record's variant changed from baseline to human: the human run overwrote the baseline's
/// result before. Now the journal's cell and the record disagree and the run is refused.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_launch_record_of_another_variant_than_its_cell_is_refused() {
    let Some(_engine) = ready() else { return };
    let (s, short, run, id) = killed_mid_run();
    tamper(&s, &run, |l| l["plan"]["variant"] = "human".into());
    refused(
        &s,
        &short,
        &id,
        &format!("its launch record is of {short} human, the journal's cell is {short} baseline"),
    );
    let human = s.root.join("ws/results").join(format!("{short}_human_result.json"));
    assert!(!human.exists(), "no human result either");
}

/// The record's benchmark command changed: it ran as edited, and the result showed the original.
/// Now the plan's fingerprint on the container disagrees and the run is refused.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_launch_record_whose_commands_changed_is_refused_with_both_fingerprints() {
    let Some(_engine) = ready() else { return };
    let (s, short, run, id) = killed_mid_run();
    tamper(&s, &run, |l| l["plan"]["bench_argv"].as_array_mut().unwrap().push("--evil".into()));
    refused(&s, &short, &id, "its plan is `");
}

/// A record over its bound (a 100 MB field was copied into the result) is not read: the resume
/// says so, removes the run's container (ours by its labels) and runs the cell again.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_launch_record_over_its_bound_is_not_read() {
    let Some(_engine) = ready() else { return };
    let (s, _short, run, id) = killed_mid_run();
    tamper(&s, &run, |l| l["plan"]["final_command"] = "x".repeat(5 << 20).into());
    let resume = watched_perftriage(&s, &["campaign", "resume", "nightly"]);
    let said = |t: &str| t.contains("launch.json is over 4194304 bytes") && t.contains("the cell runs again");
    common::wait::holds("the record refused", 120, || said(&resume.stderr()), || resume.stderr());
    let gone = || docker(&["ps", "-aq", "--filter", &format!("id={id}")]).is_empty();
    common::wait::holds("its container removed", 60, gone, || resume.stderr());
    // The cell's new run is not this test's: the SIGKILL waits for its container to run, so its
    // create has been answered and the setup's cleanup finds it. Killed when it was only listed,
    // the daemon still finished a create after the cleanup, and a `created` container was left
    // (the from-nothing CI run of 74467ce).
    let ours = format!("label=perftriage.workspace={}", s.root.join("ws").display());
    let running = || !docker(&["ps", "-q", "--filter", &ours]).is_empty();
    common::wait::holds("the new run's container running", 120, running, || resume.stderr());
    drop(resume);
}

/// The record's host changed to one that is not in `[[hosts]]`: the cell was `docker_unreachable`
/// and its container ran on through every later resume. Now the resume says which host, and the
/// next one removes the container whose run the journal ended.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_container_whose_record_names_an_unknown_host_is_said_and_swept_by_the_next_resume() {
    let Some(_engine) = ready() else { return };
    let (s, _short, run, id) = killed_mid_run();
    tamper(&s, &run, |l| l["host"] = "nowhere".into());
    let out = perftriage(&s, &["campaign", "resume", "nightly"]);
    assert!(text(&out).contains("docker_unreachable") && text(&out).contains("nowhere"), "{}", text(&out));
    let out = perftriage(&s, &["campaign", "resume", "nightly"]);
    assert!(text(&out).contains("still running, though its run ended"), "{}", text(&out));
    let left = docker(&["ps", "-aq", "--filter", &format!("id={id}")]);
    assert!(left.is_empty(), "swept: {left}");
}
