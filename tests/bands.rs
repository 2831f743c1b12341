//! Verdicts at the benchmark's bands on constructed repeats: copies of a real ISO-Bench success
//! (99abb8b6's human result) as its baseline, human and agent, each given TPOT samples. Agent vs
//! human is beats, similar, worse or undecided at ±2 % and ±5 % by the whole 95 % interval, or
//! no verdict with the reason where the samples give no interval — the same in `status --json`
//! and in `report --format json`'s 3-way tallies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use serde_json::{Value, json};

const REAL: &str = "fixtures/results/isobench/claude_code/results/99abb8b6_human_result.json";

/// A results folder of the real file as the three variants, each with `samples` of TPOT (ms),
/// and a dataset of 99abb8b6 alone (without the embedded outcomes).
fn results(human: &[f64], agent: &[f64]) -> tempfile::TempDir {
    let real: Value = serde_json::from_str(&std::fs::read_to_string(REAL).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("omniperf_results_3way_claude_code/results");
    std::fs::create_dir_all(&results).unwrap();
    for (variant, samples) in [("baseline", human), ("human", human), ("agent", agent)] {
        let mut value = real.clone();
        value["metrics"]["tpot_mean_ms"] = json!(samples.iter().sum::<f64>() / samples.len() as f64);
        value["perftriage"] =
            json!({ "repeats": { "n": samples.len(), "samples": { "tpot_mean": samples } } });
        std::fs::write(results.join(format!("99abb8b6_{variant}_result.json")), value.to_string()).unwrap();
    }
    let row = perftriage::dataset::EMBEDDED.lines().find(|l| l.contains("\"99abb8b6\"")).unwrap();
    let mut row: Value = serde_json::from_str(row).unwrap();
    row["outcomes"] = json!({});
    std::fs::write(dir.path().join("dataset.jsonl"), format!("{row}\n")).unwrap();
    dir
}

/// `perftriage --dataset (99abb8b6 alone) --results DIR ARGS`, its stdout as JSON (`status --json`: 99abb8b6's line).
fn json_of(dir: &tempfile::TempDir, args: &[&str]) -> Value {
    let ws = tempfile::tempdir().unwrap();
    let (results, dataset) = (dir.path().to_str().unwrap(), dir.path().join("dataset.jsonl"));
    let global = ["--dataset", dataset.to_str().unwrap(), "--results", results];
    let out = common::cli(ws.path(), &[&global[..], args].concat());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text.lines().find(|l| l.contains("\"99abb8b6\"")).map_or(text.clone(), str::to_string);
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Agent vs human's verdicts at ±2 % and ±5 % in `status --json`, and its method.
fn status_verdicts(dir: &tempfile::TempDir) -> (Value, Value, Value) {
    let record = json_of(dir, &["status", "--json"]);
    let pairs = record["comparison"]["pairs"].as_array().unwrap();
    let pair = pairs.iter().find(|p| p["name"] == "agent_vs_human").unwrap();
    (pair["verdict_2pct"].clone(), pair["verdict_5pct"].clone(), pair["method"].clone())
}

/// The report's 3-way counts at a band: only the non-zero ones.
fn report_counts(dir: &tempfile::TempDir, band: &str) -> Value {
    let report = json_of(dir, &["report", "--format", "json"]);
    let counts = report[band].as_object().unwrap();
    counts.iter().filter(|(_, n)| **n != 0).map(|(k, n)| (k.clone(), n.clone())).collect()
}

/// Agent runs of `agent` TPOT against the human's, judged as `two` and `five`; counted so.
fn judged(agent: &[f64], two: &str, five: &str, as_counted: [&str; 2]) {
    let human = [10.0, 10.05, 9.95, 10.02, 9.98];
    let dir = results(&human, agent);
    let (at_2, at_5, method) = status_verdicts(&dir);
    assert_eq!((at_2.as_str(), at_5.as_str()), (Some(two), Some(five)), "{agent:?}");
    assert_eq!(method, "95 % CI over 5+5 runs");
    assert_eq!(report_counts(&dir, "three_way_2pct"), json!({ as_counted[0]: 1 }), "{agent:?}");
    assert_eq!(report_counts(&dir, "three_way_5pct"), json!({ as_counted[1]: 1 }), "{agent:?}");
}

#[test]
fn an_agent_ten_percent_faster_beats_the_human_at_both_bands() {
    judged(&[9.0, 9.05, 8.95, 9.02, 8.98], "beats", "beats", ["agent_wins", "agent_wins"]);
}

#[test]
fn an_agent_half_a_percent_faster_is_similar_not_a_win() {
    judged(&[9.95, 10.0, 9.9, 9.97, 9.93], "similar", "similar", ["similar", "similar"]);
}

#[test]
fn an_agent_three_and_a_half_percent_faster_beats_at_two_and_is_similar_at_five() {
    judged(&[9.65, 9.66, 9.64, 9.65, 9.65], "beats", "similar", ["agent_wins", "similar"]);
}

#[test]
fn an_agent_ten_percent_slower_is_worse_at_both_bands() {
    judged(&[11.0, 11.05, 10.95, 11.02, 10.98], "worse", "worse", ["human_wins", "human_wins"]);
}

#[test]
fn a_noisy_agent_is_undecided_at_both_bands() {
    judged(&[9.0, 11.0, 10.0, 8.5, 11.5], "undecided", "undecided", ["undecided", "undecided"]);
}

#[test]
fn constant_samples_on_both_sides_give_no_interval_and_no_verdict() {
    let dir = results(&[10.0, 10.0, 10.0], &[9.0, 9.0, 9.0]);
    let (at_2, at_5, method) = status_verdicts(&dir);
    assert_eq!((at_2, at_5), (Value::Null, Value::Null), "no verdict");
    assert_eq!(method, "no interval: both sides constant (6 runs, zero spread)");
    assert_eq!(report_counts(&dir, "three_way_2pct"), json!({ "no_interval": 1 }));
    assert_eq!(report_counts(&dir, "three_way_5pct"), json!({ "no_interval": 1 }));
}

#[test]
fn repeats_against_a_single_run_give_no_interval_and_say_so() {
    let dir = results(&[10.0, 10.05, 9.95], &[9.0]);
    let (at_2, _, method) = status_verdicts(&dir);
    assert_eq!(at_2, Value::Null);
    assert_eq!(method, "no interval: fewer than 2 samples (3 and 1)");
}

#[test]
fn a_primary_metric_missing_from_a_variant_is_said_not_switched_silently() {
    // The human's record without any TPOT (its output's lines and its numbers): the commit is
    // compared on TTFT, which all three have, and the comparison says why, never silently.
    let dir = results(&[10.0, 10.05, 9.95], &[9.0, 9.05, 8.95]);
    let human = dir.path().join("omniperf_results_3way_claude_code/results/99abb8b6_human_result.json");
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(&human).unwrap()).unwrap();
    let raw: String = value["raw_output"]
        .as_str()
        .unwrap()
        .lines()
        .filter(|l| !l.contains("TPOT"))
        .collect::<Vec<_>>()
        .join("\n");
    value["raw_output"] = raw.into();
    value["metrics"].as_object_mut().unwrap().retain(|k, _| !k.starts_with("tpot"));
    value["perftriage"] = json!({});
    std::fs::write(&human, value.to_string()).unwrap();
    let comparison = &json_of(&dir, &["status", "--json"])["comparison"];
    assert_eq!(comparison["metric"], "ttft_mean", "{comparison:#}");
    let said = json!(["tpot_mean (the benchmark's first metric) is in fewer records: compared on ttft_mean"]);
    assert_eq!(comparison["missing"], said, "{comparison:#}");
}
