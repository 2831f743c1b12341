//! The binary as scripts use it: exit codes, JSON lines, marks that survive restarts, and the
//! TUI refusing a non-terminal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output};

fn run(workspace: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--workspace")
        .arg(workspace)
        .args(args)
        .env("XDG_CONFIG_HOME", workspace.join("no-config"))
        .output()
        .unwrap()
}

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
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("c.toml") && err.contains("line 2") && err.contains("qiut"), "{err}");
}
