//! The binary as scripts use it: exit codes, JSON lines, marks that survive restarts, and the
//! TUI refusing a non-terminal.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::cli as run;
use std::process::Output;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn status_json_is_one_versioned_object_per_commit() {
    let ws = tempfile::tempdir().unwrap();
    let out = run(ws.path(), &["status", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> =
        stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 96);
    assert!(lines.iter().all(|l| l["schema_version"] == 1));
    let rope = lines.iter().find(|l| l["short"] == "7c01f706").unwrap();
    assert_eq!(rope["category"], "rope_llama3");
    assert_eq!(
        rope["variants"]["human"]["image"],
        "anonymous/vllm-bench:7c01f706418d593b3cf23d2ec9110dca7151c539"
    );
}

#[test]
fn marks_from_the_command_line_survive_and_show_in_status_and_report() {
    let ws = tempfile::tempdir().unwrap();
    let out = run(ws.path(), &["mark", "7c01f706", "--unfixable", "RoPE llama3 on vLLM 0.5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(ws.path(), &["mark", "3a243095", "--note", "same RoPE problem"]);
    assert!(out.status.success());
    let status = stdout(&run(ws.path(), &["status", "--json"]));
    let rec: serde_json::Value = status
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["short"] == "7c01f706")
        .unwrap();
    assert_eq!(rec["mark"]["kind"], "unfixable");
    assert_eq!(rec["mark"]["reason"], "RoPE llama3 on vLLM 0.5");
    let report = stdout(&run(ws.path(), &["report", "--format", "md"]));
    assert!(report.contains("| 7c01f706 | RoPE llama3 on vLLM 0.5 |"), "{report}");
    let history: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ws.path().join("triage.json")).unwrap()).unwrap();
    assert_eq!(history["commits"]["3a243095"][0]["action"], "note");
}

#[test]
fn usage_errors_exit_2_and_runtime_errors_exit_1() {
    let ws = tempfile::tempdir().unwrap();
    assert_eq!(run(ws.path(), &["mark", "7c01f706"]).status.code(), Some(2), "no change given");
    assert_eq!(run(ws.path(), &["mark", "nothere1", "--skip"]).status.code(), Some(2), "unknown commit");
    assert_eq!(
        run(ws.path(), &["mark", "7c01f706", "--unfixable", " "]).status.code(),
        Some(2),
        "empty reason"
    );
    assert_eq!(run(ws.path(), &["report", "--format", "xml"]).status.code(), Some(2));
    let out = run(ws.path(), &["--dataset", "/nonexistent.jsonl", "status"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("/nonexistent.jsonl"));
}

#[test]
fn the_board_refuses_a_pipe_and_points_at_status_and_report() {
    let ws = tempfile::tempdir().unwrap();
    let out = run(ws.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("needs a terminal") && err.contains("status") && err.contains("report"), "{err}");
}

#[test]
fn result_directories_are_read_and_bad_files_are_named() {
    let ws = tempfile::tempdir().unwrap();
    let out = run(ws.path(), &["--results", "fixtures/results/isobench", "status", "--json"]);
    assert!(out.status.success());
    let err = stderr(&out);
    assert!(err.contains("bfdb1ba5_result.json") && err.contains("invalid JSON"), "{err}");
    assert!(err.contains("c0569dbc_agent_result.json") && err.contains("trailing data"), "{err}");
    let status = stdout(&out);
    let rec: serde_json::Value = status
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["short"] == "9a3b8832")
        .unwrap();
    assert_eq!(rec["variants"]["baseline"]["category"], "aimv2");
}

#[test]
fn a_bad_config_names_the_file_and_field() {
    let ws = tempfile::tempdir().unwrap();
    let cfg = ws.path().join("c.toml");
    std::fs::write(&cfg, "[keys]\nqiut = [\"q\"]\n").unwrap();
    let out = run(ws.path(), &["--config", cfg.to_str().unwrap(), "status"]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let err = stderr(&out);
    assert!(err.contains("c.toml") && err.contains("line 2") && err.contains("qiut"), "{err}");
}

#[test]
fn classify_and_metrics_over_every_fixture() {
    let ws = tempfile::tempdir().unwrap();
    let files: Vec<String> = std::fs::read_to_string("fixtures/results/isobench/MANIFEST.tsv")
        .unwrap()
        .lines()
        .skip(1)
        .filter_map(|l| {
            l.split('\t')
                .next()
                .filter(|f| f.ends_with(".json"))
                .map(|f| format!("fixtures/results/isobench/{f}"))
        })
        .collect();
    assert_eq!(files.len(), 24);
    let mut args = vec!["classify", "--json"];
    args.extend(files.iter().map(String::as_str));
    let out = run(ws.path(), &args);
    assert_eq!(out.status.code(), Some(1), "bfdb1ba5 is invalid JSON, so not every file was read");
    let rows: Vec<serde_json::Value> =
        stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let aimv2 = rows
        .iter()
        .find(|r| r["file"].as_str().unwrap().contains("9a3b8832") && r["variant"] == "baseline")
        .unwrap();
    assert_eq!(aimv2["category"], "aimv2");
    assert_eq!(aimv2["disposition"], "fixable_in_container");
    assert_eq!(aimv2["fixes"][0], "aimv2_exist_ok");
    assert!(rows.iter().any(|r| r["file"].as_str().unwrap().contains("bfdb1ba5") && r["error"].is_string()));

    let log = ws.path().join("server.log");
    std::fs::write(&log, "INFO 07-24 13:15:43 [api_server.py:1] starting\nImportError: cannot import name 'LogitsWarper' from 'x'\n").unwrap();
    let out = run(ws.path(), &["classify", log.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("logitswarper (fixable_in_container) line 2"), "{}", stdout(&out));
    let out = run(
        ws.path(),
        &["metrics", "--json", "fixtures/results/isobench/codex/results/61b8cea3_agent_result.json"],
    );
    assert!(out.status.success());
    let row: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(row["kind"], "throughput");
    assert_eq!(row["metrics"]["output_throughput"], 6410.83);
    assert_eq!(run(ws.path(), &["metrics", "/no/such.log"]).status.code(), Some(1));
}

/// A campaign asked for wrongly is refused with exit 2 and why, and starts nothing; one that does
/// not exist cannot be resumed or looked at.
#[test]
fn a_bad_campaign_request_exits_2_and_says_why() {
    let ws = tempfile::tempdir().unwrap();
    for (args, why) in [
        (&["campaign", "start", "--variants", "b,x"][..], "`x` is no variant"),
        (&["campaign", "start", "--commits", "zzzzzzzz"][..], "no commit `zzzzzzzz`"),
        (&["campaign", "start", "--filter", "cat:no_such_category"][..], "no commit matches"),
        (&["campaign", "start", "--name", "../x"][..], "is not a plain name"),
    ] {
        let out = run(ws.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(why), "{args:?}: {}", stderr(&out));
    }
    assert!(!ws.path().join("campaigns").exists(), "nothing started");
    let out = run(ws.path(), &["campaign", "status", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let named = [
        (&["campaign", "resume", "nightly"][..], "no campaign `nightly`"),
        (&["campaign", "pause", "../../x"][..], "campaign name `../../x` is not a plain name"),
        (&["campaign", "status", "../../x"][..], "campaign name `../../x` is not a plain name"),
    ];
    for (args, why) in named {
        let out = run(ws.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(why), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_closed_pipe_ends_a_printing_command_quietly() {
    // `build --plan | head -1`: the reader is gone before the plan is written.
    let ws = tempfile::tempdir().unwrap();
    let config = ws.path().join("config.toml");
    std::fs::write(&config, format!("[runs]\nvllm_repo = \"{}\"\n", ws.path().display())).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .args(["--workspace", ws.path().to_str().unwrap(), "--config", config.to_str().unwrap()])
        .args(["build", "7c01f706", "--plan"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn an_error_says_its_cause_once() {
    let ws = tempfile::tempdir().unwrap();
    let file = ws.path().join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let out = run(&file, &["mark", "7c01f706", "--skip"]);
    let err = stderr(&out);
    assert_eq!(err.matches("os error").count(), 1, "{err}");
    let out = run(ws.path(), &["--config", "/nonexistent/c.toml", "status"]);
    let err = stderr(&out);
    assert_eq!((err.matches("os error 2").count(), out.status.code()), (1, Some(2)), "{err}");
}

#[test]
fn a_missing_patch_is_a_usage_error_for_slurm_script_as_for_patch() {
    let ws = tempfile::tempdir().unwrap();
    let out = run(ws.path(), &["slurm", "script", "7c01f706", "--variant", "agent"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("patches"), "{}", stderr(&out));
}
