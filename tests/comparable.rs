//! 3-way deltas only between results of one workload, on real files of the January-2026
//! ISO-Bench archive (copied into `fixtures/comparable/`, their folders kept: the folder is the
//! harness). Each reason a pair is not comparable has a case here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{chars, enter, press};
use perftriage::app::{AppState, Key, KeyMap, Msg, update};
use perftriage::classify::Classifier;
use perftriage::dataset;
use perftriage::triage::TriageBook;
use serde_json::Value;
use std::process::Command;

const FIXTURES: &str = "fixtures/comparable";

/// `status --json` over the fixtures: commit → its record.
fn status() -> std::collections::HashMap<String, Value> {
    let ws = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--workspace")
        .arg(ws.path())
        .args(["--results", FIXTURES, "status", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let records = String::from_utf8(out.stdout).unwrap();
    let parse = |l: &str| serde_json::from_str::<Value>(l).unwrap();
    records.lines().map(parse).map(|r| (r["short"].as_str().unwrap().to_string(), r)).collect()
}

fn pair<'a>(all: &'a std::collections::HashMap<String, Value>, short: &str, name: &str) -> &'a Value {
    let pairs = all[short]["comparison"]["pairs"].as_array().expect("a comparison");
    pairs.iter().find(|p| p["name"] == name).unwrap()
}

fn reasons(pair: &Value) -> Vec<&str> {
    pair["reasons"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect()
}

#[test]
fn one_harness_one_command_is_comparable_and_has_its_delta() {
    let all = status();
    let p = pair(&all, "22dd9c27", "human_vs_baseline");
    assert_eq!(p["comparable"], true, "{p:#}");
    assert!(p["pct"].is_number());
    assert_eq!(all["22dd9c27"]["comparison"]["human_vs_baseline"], p["pct"]);
}

#[test]
fn a_baseline_that_served_three_times_the_requests_is_not_compared() {
    let all = status();
    let p = pair(&all, "67da5720", "human_vs_baseline");
    assert_eq!(p["comparable"], false);
    assert!(p["pct"].is_null() && all["67da5720"]["comparison"]["human_vs_baseline"].is_null());
    let why = reasons(p);
    assert!(why.contains(&"requests served: baseline 300 — human 100"), "{why:?}");
    assert!(why.iter().any(|r| r.starts_with("input tokens: baseline 67500 — human")), "{why:?}");
}

#[test]
fn variants_from_two_pipelines_are_not_compared() {
    let all = status();
    let why = reasons(pair(&all, "19d98e0c", "agent_vs_human"));
    assert!(
        why.contains(&"harness: human 3way_claude_code/results — agent 3way_trae_gpt5_0123/results"),
        "{why:?}"
    );
    assert!(why.contains(&"input tokens: human 29700 — agent 25600"), "{why:?}");
}

#[test]
fn another_prompt_count_is_named_with_both_sides() {
    let all = status();
    let why = reasons(pair(&all, "bc7c4d20", "agent_vs_human"));
    assert!(why.contains(&"prompts: human 300 — agent 100"), "{why:?}");
}

#[test]
fn what_one_pipeline_records_and_another_does_not_is_not_guessed() {
    let all = status();
    let p = pair(&all, "6dd94dbe", "agent_vs_baseline");
    let why = reasons(p);
    for part in
        ["script: baseline benchmark_latency.py — agent unknown", "GPU: baseline H100:1 — agent unknown"]
    {
        assert!(why.contains(&part), "{part}: {why:?}");
    }
    // The agent's kind of benchmark is read off its result block: a latency run, as the baseline's.
    assert!(!why.iter().any(|r| r.starts_with("benchmark:")), "{why:?}");
    assert!(why.iter().any(|r| r.starts_with("other flags: baseline ")), "{why:?}");
    assert_eq!(p["comparable"], false);
}

#[test]
fn the_load_a_pipeline_did_not_record_is_unknown_and_named_part_by_part() {
    let all = status();
    let why = reasons(pair(&all, "25ebed2f", "agent_vs_baseline"));
    for part in [
        "script: baseline benchmark_serving.py — agent unknown",
        "dataset: baseline sonnet — agent unknown",
        "dataset file: baseline sonnet.txt — agent unknown",
        "prompts: baseline 100 — agent unknown",
        "input len: baseline 256 — agent unknown",
        "output len: baseline 64 — agent unknown",
        "request rate: baseline inf — agent unknown",
    ] {
        assert!(why.contains(&part), "{part}: {why:?}");
    }
    assert!(
        why.iter()
            .any(|r| r.starts_with("harness: baseline 3way_claude_code/results — agent 3way_trae_sonnet45"))
    );
}

#[test]
fn an_older_comparable_pair_is_used_and_named_when_the_newest_differ() {
    let all = status();
    let p = pair(&all, "22d33bac", "agent_vs_human");
    let why = reasons(p);
    let model = "model: human meta-llama/Meta-Llama-3-8B-Instruct — agent meta-llama/Llama-3.1-8B-Instruct";
    assert!(why.contains(&model), "the newest agent ran another model: {why:?}");
    assert_eq!(p["comparable"], true);
    let older = p["older"].as_str().unwrap();
    assert!(older.contains("separate_agent/22d33bac_human_result.json"), "{older}");
    assert!(older.contains("separate_agent/22d33bac_agent_result.json"), "{older}");
    assert!(p["pct"].is_number());
}

#[test]
fn the_report_counts_comparable_pairs_and_their_reasons() {
    let ws = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--workspace")
        .arg(ws.path())
        .args(["--results", FIXTURES, "report", "--format", "json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hb = &report["comparability"]["human_vs_baseline"];
    assert!(hb["comparable"].as_u64().unwrap() >= 1 && hb["not_comparable"].as_u64().unwrap() >= 1, "{hb:#}");
    assert!(hb["reasons"]["requests served"].as_u64().unwrap() >= 1, "{hb:#}");
    let ah = &report["comparability"]["agent_vs_human"];
    assert!(ah["comparable_older"].as_u64().unwrap() >= 1, "{ah:#}");
    assert!(ah["reasons"]["harness"].as_u64().unwrap() >= 2, "{ah:#}");
}

/// The board on the fixtures, 160×48, with `short` selected: (the board, then with its detail open).
fn board_on(short: &str) -> (String, String) {
    let classifier = Classifier::embedded().unwrap();
    let set = dataset::results::read_dirs(&[FIXTURES.into()]);
    let (entries, _) = dataset::join(dataset::load_embedded().unwrap().commits, set, &classifier);
    let mut s = AppState::new(entries, TriageBook::new(), KeyMap::default());
    update(&mut s, Msg::Resize(160, 48));
    press(&mut s, Key::ch('/'));
    chars(&mut s, short);
    press(&mut s, enter());
    let board = render(&mut s);
    press(&mut s, enter());
    (board, render(&mut s))
}

fn render(s: &mut AppState) -> String {
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    term.draw(|f| perftriage::ui::view(f, s, &theme)).unwrap();
    let buf = term.backend().buffer().clone();
    let cells: Vec<&str> = buf.content.iter().map(|c| c.symbol()).collect();
    cells.chunks(160).map(|r| r.concat()).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_board_marks_a_pair_of_two_workloads_and_the_detail_shows_both() {
    let (board, detail) = board_on("19d98e0c");
    let row = board.lines().find(|l| l.contains("19d98e0c  [")).expect("the commit's row");
    assert!(row.contains(" ≠ "), "the A vs H column: {row}");
    assert!(detail.contains("A vs H ≠ not comparable"), "{detail}");
    assert!(detail.contains("H vs B n/a"), "the baseline failed: nothing to compare: {detail}");
    assert!(detail.contains("A vs H ≠: harness: human 3way_claude_code/results — agent"), "{detail}");
    assert!(detail.contains("A vs H ≠: input tokens: human 29700 — agent 25600"), "{detail}");
    // The kind each measured (the human's and the agent's read off their result blocks) leads.
    assert!(detail.contains("≠ benchmark       B unknown │ H serving │ A serving"), "side by side: {detail}");
}
