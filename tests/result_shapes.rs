//! One record model over every result shape of the public archive (copies in
//! `fixtures/results/archive-shapes`, see its README): cut result blocks salvaged, flat Docker and
//! sglang results read, the December-2025 "patched" form as a baseline + agent pair, the newest
//! dated record winning, and the agent as a dimension of status, report and board.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::{cli, press};
use perftriage::app::{AppState, Key, KeyMap, Msg, update};
use perftriage::classify::Classifier;
use perftriage::dataset;
use perftriage::triage::TriageBook;
use serde_json::Value;

const SHAPES: &str = "fixtures/results/archive-shapes";

fn json_lines(out: &std::process::Output) -> Vec<Value> {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn inspect(command: &str, file: &str) -> Vec<Value> {
    let ws = tempfile::tempdir().unwrap();
    json_lines(&cli(ws.path(), &[command, &format!("{SHAPES}/{file}"), "--json"]))
}

fn status(extra: &[&str]) -> Vec<Value> {
    let ws = tempfile::tempdir().unwrap();
    json_lines(&cli(ws.path(), &[&["--results", SHAPES, "status", "--json"], extra].concat()))
}

fn commit<'a>(rows: &'a [Value], short: &str) -> &'a Value {
    rows.iter().find(|r| r["short"] == short).unwrap()
}

#[test]
fn a_result_block_cut_at_its_start_is_salvaged_as_partial_with_its_source() {
    let rows =
        inspect("metrics", "2026-01/omniperf_results_3way_trae_sonnet45/results/c0569dbc_agent_result.json");
    let row = &rows[0];
    assert!(row["source"].as_str().unwrap().starts_with("partial_raw_output"), "{row}");
    assert_eq!(row["metrics"]["ttft_mean"], 545.14, "{row}");
    assert_eq!(row["agent"], "trae_sonnet45");
}

#[test]
fn flat_docker_results_are_human_records_and_stand_in_checks_are_notes() {
    let real =
        inspect("classify", "2026-01/omniperf_results_3way_claude_code/results/docker/2f192835_result.json");
    assert_eq!(real[0]["variant"], "human");
    assert!(real[0].get("not_comparable").is_none(), "{}", real[0]);
    let check =
        inspect("metrics", "2026-01/omniperf_results_3way_claude_code/results/docker/ccf02fcb_result.json");
    assert_eq!(check[0]["not_comparable"], "ran facebook/opt-125m in place of ibm-ai-platform/Bamba-9B");
    assert_eq!(check[0]["source"], "recorded");
    let rows = status(&[]);
    let human = &commit(&rows, "2f192835")["variants"]["human"];
    assert_eq!(human["status"], "fail", "{human}");
    assert_eq!(human["fixes"][0], "numpy<2 downgrade");
    let notes = commit(&rows, "ccf02fcb")["result_notes"].to_string();
    assert!(notes.contains("not comparable"), "{notes}");
}

#[test]
fn a_bare_sglang_result_gives_its_human_run_and_says_the_others_never_ran() {
    let rows =
        inspect("metrics", "2026-01/omniperf_results_3way_sglang/sglang/6f560c76/benchmark_result.json");
    let variants: Vec<&str> = rows.iter().map(|r| r["variant"].as_str().unwrap()).collect();
    assert_eq!(variants, ["human", "agent"], "{rows:?}");
    assert_eq!(rows[0]["source"], "recorded");
    assert_eq!(rows[0]["agent"], Value::Null, "the folder names the project, not an agent");
}

#[test]
fn the_older_patched_form_is_a_baseline_and_an_agent_not_a_human() {
    let ok = inspect("metrics", "constructed-dec2025/vllm/baeded25/benchmark_result.json");
    let variants: Vec<&str> = ok.iter().map(|r| r["variant"].as_str().unwrap()).collect();
    assert_eq!(variants, ["baseline", "agent"]);
    assert_eq!(ok[0]["source"], "raw_output");
    assert_eq!(ok[1]["source"], "recorded");
    assert_eq!(ok[1]["metrics"]["ttft_mean"], 580.1);
    let script = inspect("classify", "constructed-dec2025/vllm/fa63e710/benchmark_result.json");
    assert_eq!(script.len(), 2);
    assert_eq!(script[1]["field"], "stderr", "{}", script[1]);
}

#[test]
fn text_beside_a_modal_result_is_classified_with_the_file_it_came_from() {
    let rows = inspect("classify", "omniperf_results_fixed/vllm/fc542144/benchmark_result.json");
    assert_eq!(rows[0]["variant"], "baseline");
    assert_eq!(rows[0]["category"], "gated", "{}", rows[0]);
    assert_eq!(rows[0]["field"], "baseline_metrics.raw_output");
    // The same failure with its text only in the file beside the result.
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("benchmark_result.json");
    let bare = r#"{"instance": {"commit_hash": "fc542144c4477ffec1d3de6fa43e54f8fb5351e8"},
        "result": {"status": "baseline_failed", "patch_path": "/p.diff", "baseline_metrics": {}}}"#;
    std::fs::write(&result, bare).unwrap();
    let stderr =
        "INFO starting\nValueError: 'aimv2' is already used by a Transformers config, pick another name.\n";
    std::fs::write(dir.path().join("stderr.txt"), stderr).unwrap();
    let rows = json_lines(&cli(dir.path(), &["classify", result.to_str().unwrap(), "--json"]));
    assert_eq!(rows[0]["field"], "stderr.txt", "{}", rows[0]);
    assert_eq!(rows[0]["line"], 2);
}

#[test]
fn the_newest_dated_record_wins_and_the_overridden_ones_are_listed() {
    let rows = status(&[]);
    let c = commit(&rows, "25ebed2f");
    let baseline = &c["variants"]["baseline"];
    assert_eq!(
        baseline["status"], "ok",
        "a 1 January progress entry must not beat an 18 January result: {c}"
    );
    assert!(baseline["at"].as_str().unwrap().starts_with("2026-01-18"), "{baseline}");
    let old = c["overridden"].as_array().unwrap();
    assert!(old.iter().any(|o| o["variant"] == "baseline" && o["at"] == "2026-01-01 20:42:36"), "{old:?}");
}

#[test]
fn the_agent_slot_holds_the_newest_agent_or_the_one_asked_for() {
    let newest = status(&[]);
    assert_eq!(commit(&newest, "25ebed2f")["variants"]["agent"]["agent"], "codex");
    let asked = status(&["--agent", "trae_gpt5"]);
    let agent = &commit(&asked, "25ebed2f")["variants"]["agent"];
    assert_eq!(agent["agent"], "trae_gpt5");
    assert_eq!(agent["at"], "2026-01-14 16:28:55");
    let ws = tempfile::tempdir().unwrap();
    let out = cli(ws.path(), &["--results", SHAPES, "status", "--agent", "nobody"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("codex, trae_gpt5, trae_sonnet45"), "{err}");
}

#[test]
fn the_report_compares_each_agent_on_its_own() {
    let ws = tempfile::tempdir().unwrap();
    let out = cli(ws.path(), &["--results", SHAPES, "report", "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for agent in ["codex", "trae_gpt5", "trae_sonnet45"] {
        assert_eq!(report["by_agent"][agent]["commits"], 1, "{agent}: {}", report["by_agent"]);
    }
}

fn board() -> AppState {
    let classifier = Classifier::embedded().unwrap();
    let set = dataset::results::read_dirs(&[SHAPES.into()]);
    let (entries, _) = dataset::join(dataset::load_embedded().unwrap().commits, set, &classifier);
    let mut s = AppState::new(entries, TriageBook::new(), KeyMap::default());
    update(&mut s, Msg::Tick(common::NOW.into()));
    s
}

#[test]
fn on_the_board_shift_a_cycles_the_agent_and_agent_filters() {
    let mut s = board();
    let row = |s: &AppState| s.board.rows.iter().find(|r| r.short == "25ebed2f").unwrap().clone();
    assert_eq!(row(&s).agent, "codex");
    press(&mut s, Key::ch('A'));
    assert_eq!(s.board.agent.as_deref(), Some("claude_code"), "its progress log has an agent entry");
    assert_eq!(row(&s).cells[2].status, perftriage::dataset::RunStatus::Skipped);
    press(&mut s, Key::ch('A'));
    assert_eq!(s.board.agent.as_deref(), Some("codex"));
    press(&mut s, Key::ch('A'));
    assert_eq!(s.board.agent.as_deref(), Some("trae_gpt5"));
    assert_eq!(row(&s).agent, "trae_gpt5");
    press(&mut s, Key::ch('/'));
    common::chars(&mut s, "agent:trae_sonnet45");
    press(&mut s, common::enter());
    let shown: Vec<&str> = s.board.visible.iter().map(|&i| s.board.rows[i].short.as_str()).collect();
    assert_eq!(shown, ["c0569dbc"]);
}

#[test]
fn the_detail_pane_says_where_and_when_each_outcome_came_from_and_what_it_overrode() {
    let mut s = board();
    press(&mut s, Key::ch('/'));
    common::chars(&mut s, "25ebed2f");
    press(&mut s, common::enter());
    press(&mut s, common::enter());
    update(&mut s, Msg::Resize(240, 90));
    let text = common::screen_of(&s, 240, 90);
    assert!(text.contains("A agent    ✓ ok      codex · 2026-01-14 21:13:23 ·"), "{text}");
    assert!(text.contains("numbers from raw output"), "{text}");
    assert!(text.contains("Overridden by newer records"), "{text}");
    assert!(text.contains("claude_code · 2026-01-01 20:42:36 ·"), "{text}");
}

/// A run of ours whose output was empty (a failed pull) keeps the category it was given when its
/// result file is read back (it showed `unclassified`).
#[test]
fn a_run_s_own_classification_survives_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let result = serde_json::json!({
        "human_commit": "7c01f706", "human_commit_full": "7c01f706418d593b3cf23d2ec9110dca7151c539",
        "status": "error", "error": "the image could not be pulled", "metrics": {}, "raw_output": "",
        "timestamp": "2026-11-22 10:00:00",
        "perftriage": { "classification": { "category": "manifest_unknown",
            "evidence": "manifest for anonymous/vllm-bench:7c01 not found: manifest unknown" } }
    });
    std::fs::write(dir.path().join("7c01f706_human_result.json"), result.to_string()).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let rows = json_lines(&cli(ws.path(), &["--results", dir.path().to_str().unwrap(), "status", "--json"]));
    let human = &commit(&rows, "7c01f706")["variants"]["human"];
    assert_eq!(human["category"], "manifest_unknown", "{human}");
    assert!(human["evidence"].as_str().unwrap().contains("manifest unknown"));
}
