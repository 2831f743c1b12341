//! The agent's and the human's patches and the agent's own run: `patch` and `trajectory` on the
//! fixture runs (copied from the ISO-Bench export), on every run folder of the shared export
//! (expectations read from its own files, not from our code), and on bad input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use serde_json::Value;
use std::path::Path;

const FIXTURES: &str = "fixtures/trajectories";
const SHARED: &str = "../shared/isobench/trajectories/trae_gpt5_hf_trajectories/vllm";

fn run(trajectories: &Path, args: &[&str]) -> std::process::Output {
    let ws = tempfile::tempdir().unwrap();
    let dir = trajectories.to_str().unwrap();
    common::cli(ws.path(), &[&["--trajectories", dir], args].concat())
}

fn json_of(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_run_with_a_trajectory_says_its_model_status_duration_steps_and_tools() {
    let t = json_of(&run(Path::new(FIXTURES), &["trajectory", "baeded25", "--json"]));
    assert_eq!(t["agent"], "trae_gpt5");
    assert_eq!(t["model"], "gpt-5-2025-08-07");
    assert_eq!(t["status"], "success");
    assert_eq!(t["duration_s"], 1439.8032908439636);
    assert_eq!(t["time_to_first_edit_s"], 1091.1666450500488);
    assert_eq!(t["steps"], 1);
    assert_eq!(t["llm_calls"], 0);
    assert!(t["task"][0].as_str().unwrap().starts_with("I've uploaded a python code repository"), "{t}");
    let plain = run(Path::new(FIXTURES), &["trajectory", "baeded25"]);
    let text = String::from_utf8_lossy(&plain.stdout);
    assert!(text.contains("status: success  duration: 1440 s  first edit after: 1091 s"), "{text}");
}

#[test]
fn a_run_without_a_trajectory_has_nulls_where_it_recorded_nothing() {
    let t = json_of(&run(Path::new(FIXTURES), &["trajectory", "dcc6cfb9", "--json"]));
    assert_eq!((t["status"].as_str(), t["duration_s"].as_f64()), (Some("success"), Some(1044.73446393013)));
    for field in ["steps", "llm_calls", "tool_calls", "final_message", "task"] {
        assert!(t[field].is_null(), "{field}: {t}");
    }
}

#[test]
fn the_agents_patch_counts_its_files_and_lines_and_an_empty_one_is_empty() {
    let p = json_of(&run(Path::new(FIXTURES), &["patch", "baeded25", "--variant", "agent", "--json"]));
    assert_eq!((p["added"].as_u64(), p["removed"].as_u64()), (Some(4), Some(6)));
    let files: Vec<(&str, u64, u64)> = p["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["added"].as_u64().unwrap(), f["removed"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        files,
        [
            ("vllm/attention/backends/triton_mla.py", 2, 2),
            ("vllm/model_executor/layers/quantization/utils/quant_utils.py", 2, 4)
        ]
    );
    assert_eq!(p["touches_compiled"], false);
    let empty = json_of(&run(Path::new(FIXTURES), &["patch", "e493e485", "--variant", "agent", "--json"]));
    assert_eq!((empty["added"].as_u64(), empty["files"].as_array().unwrap().len()), (Some(0), 0));
    let diff = run(Path::new(FIXTURES), &["patch", "baeded25", "--variant", "agent"]);
    let expected =
        std::fs::read(Path::new(FIXTURES).join("trae_gpt5/vllm/baeded25/model_patch.diff")).unwrap();
    assert_eq!(diff.stdout, expected, "the diff as it is");
}

/// Every run folder of the shared export: counts against its own `patch_stats`, and the
/// trajectory's fields against its own files.
#[test]
#[cfg_attr(not(has_shared_trajectories), ignore = "needs ../shared/isobench/trajectories")]
fn every_shared_run_folder_reads_as_its_own_files_say() {
    let folders: Vec<_> = std::fs::read_dir(SHARED).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(folders.len(), 17, "the export's 17 folders");
    let root = Path::new(SHARED).parent().unwrap();
    for dir in folders {
        let short = dir.file_name().unwrap().to_str().unwrap().to_string();
        let summary = read_json(&dir.join("run_summary.json"));
        let p = json_of(&run(root, &["patch", &short, "--variant", "agent", "--json"]));
        let stats = &summary["agent"]["patch_stats"];
        let expected = |k: &str| stats[k].as_u64().unwrap_or(0);
        assert_eq!(p["added"].as_u64().unwrap(), expected("lines_added"), "{short}");
        assert_eq!(p["removed"].as_u64().unwrap(), expected("lines_removed"), "{short}");
        assert_eq!(p["files"].as_array().unwrap().len() as u64, expected("files_changed"), "{short}");
        let t = json_of(&run(root, &["trajectory", &short, "--json"]));
        assert_eq!(t["model"], summary["meta"]["model_full"], "{short}");
        assert_eq!(t["status"], summary["agent"]["status"], "{short}");
        assert_eq!(t["duration_s"], summary["agent"]["duration_s"], "{short}");
        let steps = dir
            .join("trajectory.json")
            .is_file()
            .then(|| read_json(&dir.join("trajectory.json"))["agent_steps"].as_array().unwrap().len() as u64);
        assert_eq!(t["steps"].as_u64(), steps, "{short}");
    }
}

/// A run folder of one commit under a fresh root: `(root, folder)`.
fn run_folder(summary: &str, patch: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("vllm/baeded25");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("run_summary.json"), summary).unwrap();
    std::fs::write(dir.join("model_patch.diff"), patch).unwrap();
    (root, dir)
}

#[test]
fn bad_patches_are_refused_in_a_line_that_says_what_and_where() {
    let summary = r#"{"meta": {"agent": "trae", "model": "gpt-5"}, "commits": {"human": "baeded25699f9f4851843306f27f685c4d4ee7c5"}}"#;
    for (patch, said) in [
        ("this is not a diff\nat all\n", "not a unified diff"),
        (
            "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-x\n+y\n",
            "line 1: it names `../../etc/passwd`, a path outside the source tree",
        ),
        // The three bypasses: git's C-quoted names, a rename's target, a non-delete's old side.
        (
            "diff --git \"a/\\056\\056/x\" \"b/\\056\\056/x\"\n--- \"a/\\056\\056/x\"\n+++ \"b/\\056\\056/x\"\n@@ -1 +1 @@\n-x\n+y\n",
            "line 1: it names `../x`, a path outside the source tree",
        ),
        (
            "diff --git a/x.py b/y.py\nsimilarity index 100%\nrename from x.py\nrename to ../../etc/cron.d/evil\n",
            "line 4: it names `../../etc/cron.d/evil`, a path outside the source tree",
        ),
        (
            "--- a/../x\n+++ b/x\n@@ -1 +1 @@\n-x\n+y\n",
            "line 1: it names `../x`, a path outside the source tree",
        ),
    ] {
        let (root, _) = run_folder(summary, patch);
        let out = run(root.path(), &["patch", "baeded25", "--variant", "agent", "--json"]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(said) && err.contains("model_patch.diff"), "{err}");
        assert!(out.stdout.is_empty());
    }
    let binary = "diff --git a/m.bin b/m.bin\nindex 1..2 100644\nBinary files a/m.bin and b/m.bin differ\n";
    let (root, _) = run_folder(summary, binary);
    let p = json_of(&run(root.path(), &["patch", "baeded25", "--variant", "agent", "--json"]));
    assert_eq!(p["files"][0]["binary"], true, "{p}");
}

#[test]
fn a_summary_without_an_agent_section_and_a_broken_trajectory_are_named_and_the_rest_is_kept() {
    let summary = r#"{"meta": {"agent": "trae", "model": "gpt-5", "model_full": "gpt-5-2025-08-07"}, "commits": {"human": "baeded25699f9f4851843306f27f685c4d4ee7c5"}}"#;
    let (root, dir) = run_folder(summary, "");
    std::fs::write(dir.join("trajectory.json"), "{\"agent_steps\": [").unwrap();
    let t = json_of(&run(root.path(), &["trajectory", "baeded25", "--json"]));
    assert_eq!(t["model"], "gpt-5-2025-08-07");
    assert!(t["status"].is_null() && t["steps"].is_null(), "{t}");
    let problems = t["problems"].to_string();
    assert!(problems.contains("run_summary.json has no agent section"), "{problems}");
    assert!(problems.contains("trajectory.json: not a trajectory"), "{problems}");
    // A folder that names no commit is said on stderr; the run that does is still read.
    let stray = root.path().join("vllm/not-a-commit");
    std::fs::create_dir_all(&stray).unwrap();
    std::fs::write(stray.join("model_patch.diff"), "").unwrap();
    let out = run(root.path(), &["trajectory", "baeded25", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: ") && err.contains("not-a-commit: an agent run that names no commit"),
        "{err}"
    );
    assert_eq!(json_of(&out)["model"], "gpt-5-2025-08-07");
}

#[test]
fn a_fifty_megabyte_trajectory_is_read_for_its_counts() {
    let summary = r#"{"meta": {"agent": "trae", "model": "gpt-5"}, "commits": {"human": "baeded25699f9f4851843306f27f685c4d4ee7c5"}, "agent": {"status": "error"}}"#;
    let (root, dir) = run_folder(summary, "");
    let message = "x".repeat(10_000);
    let step = |n: usize| {
        format!(
            r#"{{"step_number": {n}, "llm_messages": [{{"content": "{message}"}}], "tool_calls": [{{"name": "bash", "arguments": {{"command": "ls {n}"}}}}], "tool_results": [{{"result": "ok {n}"}}]}}"#
        )
    };
    let steps: Vec<String> = (1..=5_000).map(step).collect();
    let text =
        format!(r#"{{"model": "gpt-5", "agent_steps": [{}], "final_result": "done"}}"#, steps.join(","));
    assert!(text.len() > 50_000_000);
    std::fs::write(dir.join("trajectory.json"), text).unwrap();
    let t = json_of(&run(root.path(), &["trajectory", "baeded25", "--json"]));
    assert_eq!(t["steps"], 5_000);
    assert_eq!(t["tool_calls"]["bash"], 5_000);
    assert_eq!(t["final_message"], "done");
}

/// The agent changed a.py too (the human's first line, not its second), and b.py.
const AGENT_PATCH: &str =
    "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-one\n+1\n--- a/b.py\n+++ b/b.py\n@@ -0,0 +1 @@\n+new\n";

#[test]
fn the_humans_patch_is_git_diff_of_the_commit_against_its_parent_in_the_checkout() {
    let checkout = common::checkout::Checkout::new("");
    let (full, parent) = (&checkout.full, &checkout.parent);
    let ws = tempfile::tempdir().unwrap();
    let config = &checkout.config;
    let args = ["--config", config.to_str().unwrap(), "patch", &full[..8], "--variant", "human", "--json"];
    let p = json_of(&common::cli(ws.path(), &args));
    assert_eq!((p["added"].as_u64(), p["removed"].as_u64()), (Some(3), Some(2)), "{p}");
    assert_eq!(p["files"][0]["path"], "a.py");
    assert_eq!((p["files"][0]["added"].as_u64(), p["files"][0]["removed"].as_u64()), (Some(2), Some(1)));
    assert_eq!(p["touches_compiled"], true, "csrc/k.cu");
    assert!(p["source"].as_str().unwrap().ends_with(&format!("diff {parent} {full}")), "{p}");
    // The agent changed a.py too, and b.py: the report counts both sides and what they share.
    let runs = tempfile::tempdir().unwrap();
    checkout.agent_run(runs.path(), AGENT_PATCH);
    let with_runs = ["--config", config.to_str().unwrap(), "--trajectories", runs.path().to_str().unwrap()];
    let report =
        json_of(&common::cli(ws.path(), &[&with_runs[..], &["report", "--format", "json"]].concat()));
    let row = &report["patches"][0];
    assert_eq!((row["human_files"].as_u64(), row["agent_files"].as_u64()), (Some(2), Some(2)), "{row}");
    assert_eq!(row["shared_files"], 1, "a.py: {row}");
    let csv = common::cli(ws.path(), &[&with_runs[..], &["report", "--format", "csv"]].concat());
    let csv = String::from_utf8_lossy(&csv.stdout);
    assert!(csv.contains(&format!("patch_files,{},human=2 agent=2 shared=1", &full[..8])), "{csv}");
}

/// The screen below the header (it says whether Docker answers) with the temporary folders'
/// names (different every run) taken out.
fn steady(screen: &str, checkout: &common::checkout::Checkout) -> String {
    let tmp = regex::Regex::new(r"/tmp/\.tmp[A-Za-z0-9]*").unwrap();
    let below_header = screen.split_once('\n').map_or("", |(_, rest)| rest);
    let screen = tmp.replace_all(below_header, "/tmp/…").into_owned();
    screen.replace(&checkout.full, "<full>").replace(&checkout.parent, "<parent>")
}

/// Whether the pane's first text row (below the header and the pane's border) shows `file`.
fn on_top(file: &'static str) -> impl Fn(&str) -> bool {
    move |screen| screen.lines().nth(2).is_some_and(|l| l.contains(file))
}

/// `d` and `t` on the board in a real terminal at 80x24 (stacked) and 160x48 (side by side):
/// the two patches with the file both changed marked, Tab to the next file, a search, the
/// agent run's summary and steps (the export's 9ed82e70 trajectory, cut to 10 steps), and the
/// detail pane's `patches:` line.
#[test]
#[cfg_attr(not(has_tmux), ignore = "needs tmux")]
fn d_shows_both_patches_and_t_the_agents_run_on_the_board() {
    let runs = tempfile::tempdir().unwrap();
    let trajectories = format!("trajectories = [{:?}]\n", runs.path());
    let checkout = common::checkout::Checkout::new(&trajectories);
    let run = checkout.agent_run(runs.path(), AGENT_PATCH);
    let fixture = Path::new(FIXTURES).join("trae_gpt5/vllm/9ed82e70");
    for file in ["trajectory.json", "task.txt"] {
        std::fs::copy(fixture.join(file), run.join(file)).unwrap();
    }
    for (size, name) in [((80, 24), "80x24"), ((160, 48), "160x48")] {
        let ws = tempfile::tempdir().unwrap();
        let board = common::tmux_board::Board::start_sized(&checkout.config, ws.path(), name, size);
        board.until("the board", 60, |s| s.contains(checkout.short()));
        board.keys("Enter");
        let detail = "patches  human +3 −2 in 2 files · agent +2 −1 in 2 files (1 shared)";
        board.until("the patches line", 30, |s| s.contains(detail));
        board.keys("d");
        let diff = board.settled("the diff", 30, |s| s.contains("▶ a.py  ◆ both") && s.contains(" 1–"));
        // A document opens at its top and says where it is (it said SCROLLED at once).
        assert!(!diff.contains("SCROLLED") && diff.contains(" of "), "{diff}");
        insta::assert_snapshot!(format!("patches_{name}"), steady(&diff, &checkout));
        if size.1 == 24 {
            // Tab puts the next file's head on top, as far as the pane scrolls; S-Tab goes back.
            board.keys("Tab");
            board.until("the first file on top", 10, on_top("▶ a.py"));
            board.keys("Tab");
            board.until("the pane moved on", 10, |s| !on_top("▶ a.py")(s) && s.contains("▶ csrc/k.cu"));
            board.keys("BTab");
            board.until("the first file again", 10, on_top("▶ a.py"));
        }
        board.keys("/");
        board.keys("int y");
        board.keys("Enter");
        board.until("the match", 10, |s| s.contains("/int y (1 lines)"));
        board.keys("Escape");
        board.keys("t");
        let agent = board.settled("the agent run", 30, |s| s.contains("steps (10)") && s.contains(" 1–"));
        // Step paths are relative to the worktree the task names (they were its long path).
        let steps: Vec<&str> = agent
            .lines()
            .filter(|l| l.contains(" bash ") || l.contains(" str_replace_based_edit_tool "))
            .collect();
        assert!(steps.len() > 3 && steps.iter().all(|l| !l.contains("/home/ubuntu/")), "{agent}");
        assert!(agent.contains("paths are relative to the worktree /home/ubuntu/"), "{agent}");
        insta::assert_snapshot!(format!("agent_run_{name}"), steady(&agent, &checkout));
    }
}

/// The board draws the dataset's first rows before it reads the rest: a commit past them (the
/// 301st) is on the board once the rest is read, and the job service and the document reader
/// know it then too (its detail pane's `patches:` line is the checkout's `git diff`, not "not
/// in the dataset").
#[test]
#[cfg_attr(not(has_tmux), ignore = "needs tmux")]
fn a_commit_past_the_boards_first_rows_is_known_to_the_services_once_the_rest_is_read() {
    let checkout = common::checkout::Checkout::new("");
    let dataset = checkout.dir.path().join("dataset.jsonl");
    let own = std::fs::read_to_string(&dataset).unwrap();
    let mut row: Value = serde_json::from_str(perftriage::dataset::EMBEDDED.lines().next().unwrap()).unwrap();
    let mut rows = String::new();
    for i in 0..300 {
        let short = format!("{i:08x}");
        (row["short"], row["full"]) = (short.clone().into(), format!("{short}{}", "0".repeat(32)).into());
        rows.push_str(&format!("{row}\n"));
    }
    std::fs::write(&dataset, rows + &own).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let board = common::tmux_board::Board::start_sized(&checkout.config, ws.path(), "past-head", (160, 48));
    board.until("the board", 60, |s| s.contains("00000000"));
    board.until("all 301 commits", 60, |s| s.contains("All 301"));
    board.keys("G");
    board.until("the last commit selected", 30, |s| s.contains(checkout.short()));
    board.keys("Enter");
    let detail = "patches  human +3 −2 in 2 files";
    board.until("the patches line", 30, |s| s.contains(detail));
}
