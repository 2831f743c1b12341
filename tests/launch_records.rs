//! What ran is what is recorded: a run launched from the board in a fixed image with three runs a
//! start, left running (`q` then `L`) or with its board killed (SIGKILL), is picked up by the next
//! board from its launch record — not planned again from the config — and its result says the
//! image, fixes, digest, command and samples it was launched with. Real engine, mock vLLM, tmux.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::engine::{Setup, docker, perftriage, ready, result, setup, text};
use common::tmux_board::{Board, row_has};

const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --num-prompts 5";
/// A server that takes 8 s to start: the board is left (or killed) while the run waits for it.
const SLOW_START: &str = "repeat = 3\nserver = \"env MOCK_STARTUP_MS=8000 python3 -m vllm.entrypoints.openai.api_server --model {model} --port 8000\"\n";
const RECIPE: &str = "aimv2_exist_ok";

/// A commit whose image fails with aimv2, fixed headlessly (the fixed image committed and recorded):
/// the board's next run of its human goes to the fixed image.
fn fixed_setup() -> Setup {
    fixed_with(SLOW_START)
}

/// The aimv2 commit on `config`, its human fixed headlessly and the fixed image committed.
fn fixed_with(config: &str) -> Setup {
    let s = setup("perftriage-test/vllm:aimv2", SERVING, config);
    let args = ["fix", "apply", &s.short, "--variant", "human", "--recipe", RECIPE, "--commit-image"];
    let out = perftriage(&s, &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    s
}

/// The same, its fixed image then removed outside perftriage (`docker rmi`); that image's tag.
fn fixed_then_removed() -> (Setup, String) {
    let s = fixed_with("");
    let fixed = fixed_image(&s);
    docker(&["rmi", &fixed]);
    (s, fixed)
}

/// The fixed image's tag, as the fix recorded it in the triage file.
fn fixed_image(s: &Setup) -> String {
    let triage = std::fs::read_to_string(s.root.join("ws/triage.json")).unwrap();
    let tag = triage.split('"').find(|w| w.starts_with("perftriage-fixed")).map(String::from);
    tag.unwrap_or_else(|| panic!("no fixed image in the triage file: {triage}"))
}

/// The run's one container: its id, once it runs.
fn running_container(s: &Setup) -> String {
    let filter = format!("label=perftriage.workspace={}", s.root.join("ws").display());
    common::wait::until("the run's container", std::time::Duration::from_secs(60), || {
        let id = docker(&["ps", "-q", "--filter", &filter]);
        if id.is_empty() { Err("no container yet".into()) } else { Ok(id) }
    })
}

/// A board on the setup; `r h y` starts the human's run in the fixed image; the container's id.
fn launch_from_the_board(s: &Setup, board: &Board) -> String {
    let short = &s.short[..8];
    board.until("the board", 60, |t| t.contains(short));
    board.keys("r");
    board.keys("h");
    let fixed = fixed_image(s);
    board.until("the confirm naming the fixed image", 60, |t| t.contains(&fixed));
    board.keys("y");
    running_container(s)
}

/// The next board picks the run up and follows it to its end; then the result is checked against
/// the launch record and the container it ran in.
fn picked_up_and_recorded_as_launched(s: &Setup, container_image: &str) {
    let short = &s.short[..8];
    let again = Board::start(&s.config, &s.root.join("ws"), "launch-again", 200);
    let ended = |t: &str| ["✓", "✗", "◷"].iter().any(|mark| row_has(t, short, mark));
    let screen = again.until("the run picked up and ended", 300, ended);
    // The cell says the run ended a moment before its result file is written: read it (waiting
    // for it) before the board is closed.
    let (r, fixed) = (result(s, "human"), fixed_image(s));
    drop(again);
    let log = std::fs::read_to_string(s.root.join("ws/perftriage.log")).unwrap_or_default();
    assert!(row_has(&screen, short, "✓"), "the run ended in success:\n{screen}\n{log}");
    let record = std::fs::read_dir(s.root.join("ws/runs")).unwrap().next().unwrap().unwrap().path();
    let launch: serde_json::Value =
        serde_json::from_slice(&std::fs::read(record.join("launch.json")).unwrap()).unwrap();
    let ours = &r["perftriage"];
    assert_eq!(ours["run_id"], launch["plan"]["run_id"], "the run the record is of: {r:#}");
    assert_eq!(ours["image"].as_str(), Some(fixed.as_str()), "the fixed image it ran in: {r:#}");
    assert_eq!(ours["fixes"], serde_json::json!([RECIPE]), "{r:#}");
    assert_eq!(ours["image_digest"].as_str(), Some(container_image), "docker inspect's image: {r:#}");
    assert_eq!(ours["final_command"], launch["plan"]["final_command"], "{r:#}");
    assert_eq!(ours["repeats"]["n"], 3, "three runs a start, as launched: {r:#}");
    assert_eq!(r["status"], "success", "{r:#}");
    // What scripts are told it ran in: the result's image, not the config's template.
    let status = perftriage(s, &["status", "--json"]);
    let rec: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let human = &rec["variants"]["human"];
    assert_eq!(
        (human["image"].as_str(), human["image_from"].as_str()),
        (Some(fixed.as_str()), Some("result"))
    );
}

#[test]
#[cfg_attr(not(all(has_docker, has_tmux)), ignore = "needs a Docker engine, busybox-static and tmux")]
fn a_run_left_running_with_q_then_l_is_resumed_from_its_launch_record() {
    left_then_resumed("launch-leave", |_, first| {
        first.keys("q");
        first.until("the quit confirm", 30, |t| t.contains("leaves them running"));
        first.keys("L");
        first.until("the board gone", 30, |t| !t.contains("Commit"));
    });
}

#[test]
#[cfg_attr(not(all(has_docker, has_tmux)), ignore = "needs a Docker engine, busybox-static and tmux")]
fn a_run_whose_board_was_killed_is_resumed_from_its_launch_record() {
    left_then_resumed("launch-kill", |s, _| {
        let pattern = format!("workspace {}$", s.root.join("ws").display());
        let killed = std::process::Command::new("pkill").args(["-KILL", "-f", &pattern]).status().unwrap();
        assert!(killed.success(), "the board killed");
        // A killed board cannot leave the alternate screen: its last frame stays on the pane.
        common::wait::until("the board's process gone", std::time::Duration::from_secs(30), || {
            let found = std::process::Command::new("pgrep").args(["-f", &pattern]).output().unwrap();
            if found.status.success() {
                Err(String::from_utf8_lossy(&found.stdout).into_owned())
            } else {
                Ok(())
            }
        });
    });
}

/// A run launched from a board (`name`) in the fixed image, the board then left by `leave` (which
/// returns once it is gone); the container still runs, and the next board picks it up as it was
/// launched.
fn left_then_resumed(name: &str, leave: fn(&Setup, &Board)) {
    let Some((_rt, _engine)) = ready() else { return };
    let s = fixed_setup();
    let first = Board::start(&s.config, &s.root.join("ws"), name, 200);
    let container = launch_from_the_board(&s, &first);
    let image = docker(&["inspect", "-f", "{{.Image}}", &container]);
    leave(&s, &first);
    drop(first);
    assert_eq!(docker(&["inspect", "-f", "{{.State.Running}}", &container]), "true", "left running");
    picked_up_and_recorded_as_launched(&s, &image);
}

/// A failure is said the same live as after a restart: a run whose image is missing fails on the
/// board as `manifest_unknown` (the result file as read back), and the next board says the same.
#[test]
#[cfg_attr(not(all(has_docker, has_tmux)), ignore = "needs a Docker engine, busybox-static and tmux")]
fn a_missing_image_fails_on_the_board_as_the_next_board_reads_it() {
    let Some((_rt, _engine)) = ready() else { return };
    let s = setup("perftriage-test/absent:nope", SERVING, "pull_estimate_gb = 0");
    let short = &s.short[..8];
    let failed = |t: &str| row_has(t, short, "✗") && row_has(t, short, "manifest");
    let live = Board::start(&s.config, &s.root.join("ws"), "missing-live", 200);
    live.until("the board", 60, |t| t.contains(short));
    live.keys("r");
    live.keys("h");
    live.until("the confirm", 60, |t| t.contains("perftriage-test/absent:nope"));
    live.keys("y");
    let screen = live.until("the run failed as manifest_unknown", 120, failed);
    drop(live);
    let again = Board::start(&s.config, &s.root.join("ws"), "missing-again", 200);
    let reread = again.until("the next board", 60, |t| row_has(t, short, "✗"));
    assert!(failed(&reread), "the same category after a restart:\nlive:\n{screen}\nagain:\n{reread}");
}

/// A fixed image removed outside perftriage (`docker rmi`) is not planned as if it were there:
/// `run` falls back to the image it stood in for, unfixed, says so, and records that image and no
/// fix (it tried to pull `perftriage-fixed:…` from a registry and failed as `manifest_unknown`).
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_fixed_image_removed_outside_perftriage_falls_back_to_the_unfixed_image() {
    let Some(_engine) = ready() else { return };
    let (s, _) = fixed_then_removed();
    let out = perftriage(&s, &["run", &s.short, "--variant", "human"]);
    assert!(text(&out).contains("unfixed: its fixed image is gone"), "{}", text(&out));
    let r = result(&s, "human");
    assert_eq!(r["perftriage"]["image"], "perftriage-test/vllm:aimv2", "{r:#}");
    assert_eq!(r["perftriage"]["fixes"], serde_json::json!([]), "{r:#}");
    assert_eq!(r["perftriage"]["classification"]["category"], "aimv2", "the commit's own failure: {r:#}");
}

/// The board's run confirm says what will run: a variant whose fixed image was removed outside
/// perftriage is planned in the unfixed image, and the confirm says its fixed image is gone.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn the_boards_confirm_says_a_removed_fixed_image_is_gone_and_plans_the_unfixed_one() {
    use perftriage::app::{JobMsg, Msg, Planned};
    let Some(_engine) = ready() else { return };
    let (s, fixed) = fixed_then_removed();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (jobs, mut rx) = common::engine::board_jobs(&rt, &s);
    let mut request = common::engine::human_request(&s);
    (request.image, request.fixes) = (Some(fixed.as_str().into()), vec![RECIPE.into()]);
    rt.block_on(async { jobs.preview(&s.short, &[request]) });
    let lines = rt.block_on(async {
        loop {
            if let Msg::Job(JobMsg::Planned(Planned::Runs { plans, .. })) = rx.recv().await.unwrap() {
                break plans[0].1.clone().unwrap();
            }
        }
    });
    assert!(
        lines[0].contains("perftriage-test/vllm:aimv2") && !lines[0].contains("fixed image:"),
        "{lines:?}"
    );
    let said = format!("  its fixed image {fixed} is gone from the engine: it runs unfixed");
    assert!(lines.contains(&said), "{lines:?}");
}
