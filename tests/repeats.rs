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

/// The agent's patch sets how the mock serves, one knob a line: `mock_token_us` between tokens,
/// `mock_noise_pct` of noise on each request, every other block of `mock_alternate_block`
/// requests `mock_alternate_x` times slower (see tests/mockvllm/src/server.rs).
fn agent_patch(knobs: &str) -> String {
    let added: String = knobs.lines().map(|k| format!("+{k}\n")).collect();
    format!(
        "--- a/vllm/__init__.py\n+++ b/vllm/__init__.py\n@@ -1 +1,{} @@\n-__version__ = '0.9.2.dev0+mock'\n\
         +__version__ = '0.9.2.dev0+agent'\n{added}",
        1 + knobs.lines().count()
    )
}

/// Every other run (a block of the benchmark's 5 requests) 19 times slower than the one before,
/// from a tenth of the baseline's 1 ms a token: 0.1 and 1.9 ms, mean 1 ms.
const TIE: &str = "mock_token_us = 100\nmock_alternate_block = 5\nmock_alternate_x = 19";

fn repeats_of(s: &common::engine::Setup, variant: &str) -> Value {
    result(s, variant)["perftriage"]["repeats"].clone()
}

/// `--repeat auto:6` against the baseline's three recorded runs: an agent three times slower
/// per token is clear at 3 runs; one whose runs alternate between a tenth and 1.9 times the
/// baseline's pause a token is still unresolved at 6 and says so (a tie by construction: the
/// mean of its runs is the baseline's, their spread twice it). Load adds to every pause, so the
/// tie straddles the baseline rather than sitting on one side of it: runs alternating between
/// 1x and 3x came out "clear at 5 runs" once, a loaded machine making a 1x run as slow as 2x.
/// A warm-up run comes first and is not counted.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn repeat_auto_stops_at_three_on_a_clear_difference_and_says_unresolved_on_a_noisy_tie() {
    let Some(_engine) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let out = perftriage(&s, &["run", &s.short, "--variant", "baseline", "--repeat", "3"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let patch = s.root.join("patches").join(format!("{}.patch", s.short));
    // Clear at 3 runs on an idle machine; a loaded one's noisy timings may ask for one or two more
    // (the samples are real wall-clock times of the mock's tokens).
    let clear: Vec<(String, usize)> = (3..=5).map(|n| (format!("clear at {n} runs"), n)).collect();
    let unresolved = vec![("unresolved after 6 runs".to_string(), 6)];
    for (knobs, stops) in [("mock_token_us = 3000", clear), (TIE, unresolved)] {
        std::fs::write(&patch, agent_patch(knobs)).unwrap();
        let out = perftriage(&s, &["run", &s.short, "--variant", "agent", "--repeat", "auto:6"]);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(0), "{said}");
        assert!(said.contains("warm-up run 1 of 1 (not counted)"), "{said}");
        let repeats = repeats_of(&s, "agent");
        let stopped = repeats["auto"]["stopped"].as_str().unwrap_or_default().to_string();
        let Some((_, n)) = stops.iter().find(|(s, _)| *s == stopped).cloned() else {
            panic!("{knobs}: stopped as none of {stops:?}: {repeats:#}")
        };
        assert!(said.contains(&format!("repeat auto: {stopped}")), "{knobs}: {said}");
        assert_eq!(
            (repeats["n"].as_u64(), repeats["warmup"].as_u64()),
            (Some(n as u64), Some(1)),
            "{repeats:#}"
        );
        assert_eq!(repeats["samples"]["tpot_mean"].as_array().unwrap().len(), n, "the warm-up not counted");
    }
    let bad = perftriage(&s, &["run", &s.short, "--variant", "agent", "--repeat", "auto:2"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    assert!(text(&bad).contains("`auto:2`"), "{}", text(&bad));
}
