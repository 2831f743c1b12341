//! All three variants of a commit run by perftriage through the mock images, the benchmark
//! repeated three times against one server: one workload for the three, the means recorded with
//! each run's values, and 3-way deltas with a 95 % confidence interval.
//! Skipped with a notice when no engine is reachable and CI is unset; under CI=true they fail instead.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::engine::{perftriage, ready, result, setup, text};
use serde_json::Value;

const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --dataset-name sharegpt --num-prompts 5";

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn three_variants_repeated_three_times_are_one_workload_with_an_interval() {
    let Some(_engine) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let patch = "--- a/vllm/__init__.py\n+++ b/vllm/__init__.py\n@@ -1 +1 @@\n\
                 -__version__ = '0.9.2.dev0+mock'\n+__version__ = '0.9.2.dev0+agent'\n";
    std::fs::write(s.root.join("patches").join(format!("{}.patch", s.short)), patch).unwrap();
    let mut workloads = Vec::new();
    for variant in ["baseline", "human", "agent"] {
        let out = perftriage(&s, &["run", &s.short, "--variant", variant, "--repeat", "3"]);
        assert_eq!(out.status.code(), Some(0), "{variant}: {}", text(&out));
        assert!(text(&out).contains("benchmark run 3 of 3 on the same server"), "{variant}: {}", text(&out));
        let r = result(&s, variant);
        let ours = &r["perftriage"];
        assert_eq!(ours["repeats"]["n"], 3, "{r:#}");
        let tpot = ours["repeats"]["samples"]["tpot_mean"].as_array().unwrap();
        let tpot: Vec<f64> = tpot.iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(tpot.len(), 3, "{r:#}");
        let mean = tpot.iter().sum::<f64>() / 3.0;
        assert!((r["metrics"]["tpot_mean_ms"].as_f64().unwrap() - mean).abs() < 1e-9, "the mean is recorded");
        workloads.push(ours["workload"].clone());
    }
    assert!(workloads.iter().all(|w| *w == workloads[0]), "one workload: {workloads:#?}");
    assert_eq!(workloads[0]["harness"], "perftriage");
    assert_eq!(workloads[0]["dataset"], "random", "the rewrite rules applied alike: {:#}", workloads[0]);
    let results = s.root.join("ws/results");
    let out = perftriage(&s, &["--results", results.to_str().unwrap(), "status", "--json"]);
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    for pair in record["comparison"]["pairs"].as_array().unwrap() {
        assert_eq!(pair["comparable"], true, "{pair:#}");
        let i = &pair["interval"];
        assert_eq!(i["runs"], serde_json::json!([3, 3]), "{pair:#}");
        assert_eq!(pair["method"], "95 % CI over 3+3 runs", "{pair:#}");
        let p = i["mann_whitney_p"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p), "a rank test's p beside the interval: {pair:#}");
        let (low, pct, high) =
            (i["low"].as_f64().unwrap(), i["pct"].as_f64().unwrap(), i["high"].as_f64().unwrap());
        assert!(low <= pct && pct <= high && (pct - pair["pct"].as_f64().unwrap()).abs() < 1e-9, "{pair:#}");
    }
}

/// A run whose benchmark served every request but generated no token says success on its own;
/// the validity gate makes it an `invalid_measurement`, kept so in its result file and read back.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_run_that_generated_no_tokens_is_an_invalid_measurement_not_a_success() {
    let Some(_engine) = ready() else { return };
    let command = "vllm bench serve --model facebook/opt-125m --dataset-name random --random-input-len 8 \
                   --random-output-len 0 --num-prompts 4";
    let s = setup("perftriage-test/vllm:ok", command, "");
    let out = perftriage(&s, &["run", &s.short, "--variant", "human"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert!(said.contains("gate no_generated_tokens"), "{said}");
    let r = result(&s, "human");
    assert_eq!(r["perftriage"]["classification"]["category"], "invalid_measurement", "{r:#}");
    let results = s.root.join("ws/results");
    let out = perftriage(&s, &["--results", results.to_str().unwrap(), "status", "--json"]);
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    let human = &record["variants"]["human"];
    assert_eq!(
        (human["status"].as_str(), human["category"].as_str()),
        (Some("fail"), Some("invalid_measurement"))
    );
    assert_eq!(human["gate"], "no_generated_tokens", "{human:#}");
    assert!(human["evidence"].as_str().unwrap().starts_with("Total generated tokens:"), "{human:#}");
}

/// The agent's patch sets how the mock serves, one knob a line: `mock_tpot_ms`, the mean TPOT
/// its runs print in turn, given rather than timed (see tests/mockvllm/src/bench.rs).
fn agent_patch(knobs: &str) -> String {
    let added: String = knobs.lines().map(|k| format!("+{k}\n")).collect();
    format!(
        "--- a/vllm/__init__.py\n+++ b/vllm/__init__.py\n@@ -1 +1,{} @@\n-__version__ = '0.9.2.dev0+mock'\n\
         +__version__ = '0.9.2.dev0+agent'\n{added}",
        1 + knobs.lines().count()
    )
}

/// The baseline's three runs print these mean TPOTs (ms), whatever the machine's load.
const GIVEN: &str = " --mock-tpot-ms 1.00,1.02,0.98";

/// Three times the baseline's TPOT, a little apart.
const SLOWER: &str = "mock_tpot_ms = 3.0, 3.06, 2.94";

/// Runs that alternate between half and one and a half times the baseline's TPOT: their mean is
/// the baseline's and their spread twice it, a tie by construction that no number of runs settles.
const TIE: &str = "mock_tpot_ms = 0.5, 1.5";

fn repeats_of(s: &common::engine::Setup, variant: &str) -> Value {
    result(s, variant)["perftriage"]["repeats"].clone()
}

/// `--repeat auto:6` against the baseline's three recorded runs, every TPOT given (the mock
/// prints it: no load can move it): an agent three times slower is clear at 3 runs; one whose
/// runs alternate about the baseline's is still unresolved at 6 and says so. A warm-up run comes
/// first and is not counted. (Timed samples made this test's outcome depend on the machine's
/// load: a loaded run once came out "clear at 5" for the tie.)
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn repeat_auto_stops_at_three_on_a_clear_difference_and_says_unresolved_on_a_noisy_tie() {
    let Some(_engine) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", &format!("{SERVING}{GIVEN}"), "");
    let out = perftriage(&s, &["run", &s.short, "--variant", "baseline", "--repeat", "3"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(repeats_of(&s, "baseline")["samples"]["tpot_mean"], serde_json::json!([1.0, 1.02, 0.98]));
    let patch = s.root.join("patches").join(format!("{}.patch", s.short));
    for (knobs, stopped, n, counted) in [
        (SLOWER, "clear at 3 runs", 3, serde_json::json!([3.06, 2.94, 3.0])),
        (TIE, "unresolved after 6 runs", 6, serde_json::json!([1.5, 0.5, 1.5, 0.5, 1.5, 0.5])),
    ] {
        std::fs::write(&patch, agent_patch(knobs)).unwrap();
        let out = perftriage(&s, &["run", &s.short, "--variant", "agent", "--repeat", "auto:6"]);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(0), "{said}");
        assert!(said.contains("warm-up run 1 of 1 (not counted)"), "{said}");
        let repeats = repeats_of(&s, "agent");
        assert_eq!(repeats["auto"]["stopped"], stopped, "{knobs}: {repeats:#}");
        assert!(said.contains(&format!("repeat auto: {stopped}")), "{knobs}: {said}");
        assert_eq!((repeats["n"].as_u64(), repeats["warmup"].as_u64()), (Some(n), Some(1)), "{repeats:#}");
        assert_eq!(repeats["samples"]["tpot_mean"], counted, "the warm-up (the list's first) not counted");
    }
    let bad = perftriage(&s, &["run", &s.short, "--variant", "agent", "--repeat", "auto:2"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    assert!(text(&bad).contains("`auto:2`"), "{}", text(&bad));
}
