//! Validity gates on real result files: copies of a real ISO-Bench success (99abb8b6's human
//! result) changed to measure nothing are `invalid_measurement` failures naming the gate and the
//! line, never a success and never in a delta; and over the whole public archive no record that
//! fails a gate is in any comparison.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use serde_json::Value;
use std::path::Path;

const REAL: &str = "fixtures/results/isobench/claude_code/results/99abb8b6_human_result.json";

/// The real file with its benchmark output changed by `edit`, in a folder of its own.
fn changed(edit: impl Fn(&mut Value)) -> tempfile::TempDir {
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(REAL).unwrap()).unwrap();
    edit(&mut value);
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("omniperf_results_3way_claude_code/results");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::write(results.join("99abb8b6_human_result.json"), value.to_string()).unwrap();
    dir
}

fn raw_replaced(from: &'static str, to: &'static str) -> impl Fn(&mut Value) {
    move |v: &mut Value| {
        let raw = v["raw_output"].as_str().unwrap();
        assert!(raw.contains(from), "the real output has `{from}`");
        v["raw_output"] = raw.replace(from, to).into();
    }
}

fn classified(dir: &Path) -> Value {
    let file = dir.join("omniperf_results_3way_claude_code/results/99abb8b6_human_result.json");
    let ws = tempfile::tempdir().unwrap();
    let out = common::cli(ws.path(), &["classify", "--json", file.to_str().unwrap()]);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn status_of(dir: &Path) -> Value {
    let ws = tempfile::tempdir().unwrap();
    let out = common::cli(ws.path(), &["--results", dir.to_str().unwrap(), "status", "--json"]);
    let line = String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.contains("\"99abb8b6\""))
        .unwrap()
        .to_string();
    serde_json::from_str(&line).unwrap()
}

#[test]
fn the_real_success_passes_every_gate() {
    let dir = changed(|_| {});
    assert_eq!(classified(dir.path())["category"], Value::Null);
    let record = status_of(dir.path());
    assert_eq!(record["variants"]["human"]["status"], "ok");
    // A verdict from single runs says so.
    let pairs = record["comparison"]["pairs"].as_array().unwrap();
    let measured: Vec<&Value> = pairs.iter().filter(|p| !p["pct"].is_null()).collect();
    assert!(!measured.is_empty(), "{record:#}");
    assert!(
        measured
            .iter()
            .all(|p| p["method"] == "single runs: point estimate" && p["verdict_5pct"].is_string()),
        "{measured:#?}"
    );
}

/// A change to the real file.
type Edit = Box<dyn Fn(&mut Value)>;

#[test]
fn a_success_that_measured_nothing_is_an_invalid_measurement_naming_its_gate_and_line() {
    let cases: [(Edit, &str, &str); 7] = [
        (
            Box::new(raw_replaced(
                "Mean TPOT (ms):                          22.72",
                "Mean TPOT (ms):                          0.00",
            )),
            "zero_primary_metric",
            "Mean TPOT (ms):                          0.00",
        ),
        (
            // A nan TPOT is dropped by the parser: TTFT must not stand in for it silently.
            Box::new(raw_replaced(
                "Mean TPOT (ms):                          22.72",
                "Mean TPOT (ms):                          nan",
            )),
            "non_finite_primary_metric",
            "Mean TPOT (ms):                          nan",
        ),
        (
            // Two failed beside 100 served: over `[gates] max_failed_requests`, 0 by default.
            Box::new(raw_replaced(
                "Successful requests:                     100",
                "Successful requests:                     100\nFailed requests:                         2",
            )),
            "failed_requests",
            "Failed requests:                         2",
        ),
        (
            Box::new(|v: &mut Value| {
                raw_replaced(
                    "Total generated tokens:                  6400",
                    "Total generated tokens:                  0",
                )(v);
                raw_replaced(
                    "Output token throughput (tok/s):         3170.30",
                    "Output token throughput (tok/s):         0.00",
                )(v);
            }),
            "no_generated_tokens",
            "Total generated tokens:                  0",
        ),
        (
            Box::new(raw_replaced(
                "Successful requests:                     100",
                "Successful requests:                     0",
            )),
            "no_successful_requests",
            "Successful requests:                     0",
        ),
        (
            Box::new(raw_replaced(
                "Successful requests:                     100",
                "Failed requests:                         100",
            )),
            "failed_requests",
            "Failed requests:                         100",
        ),
        (
            Box::new(|v: &mut Value| {
                v["raw_output"] = "BENCHMARK_DONE".into();
                v["metrics"] = "{}".into();
            }),
            "no_metrics",
            "metrics: {}",
        ),
    ];
    for (edit, gate, line) in cases {
        let dir = changed(edit);
        let c = classified(dir.path());
        assert_eq!(
            (c["category"].as_str(), c["disposition"].as_str()),
            (Some("invalid_measurement"), Some("needs_look")),
            "{gate}: {c:#}"
        );
        assert_eq!(c["evidence"], line, "{gate}: {c:#}");
        assert_eq!(c["field"], format!("gate {gate}"), "{c:#}");
        let record = status_of(dir.path());
        let human = &record["variants"]["human"];
        assert_eq!(
            (human["status"].as_str(), human["gate"].as_str()),
            (Some("fail"), Some(gate)),
            "{human:#}"
        );
        let pairs = record["comparison"]["pairs"].as_array().unwrap();
        for pair in pairs.iter().filter(|p| p["name"].as_str().unwrap().contains("human")) {
            assert_eq!(pair["pct"], Value::Null, "no delta from an invalid measurement: {pair:#}");
        }
        let ws = tempfile::tempdir().unwrap();
        let report = common::cli(
            ws.path(),
            &["--results", dir.path().to_str().unwrap(), "report", "--format", "json"],
        );
        let report: Value = serde_json::from_slice(&report.stdout).unwrap();
        assert_eq!(
            report["invalid_measurements"],
            serde_json::json!([["99abb8b6", "human", gate]]),
            "{gate}"
        );
    }
}

/// Over the whole archive: every record that fails a gate is a failure (the January SGLang
/// files that say success with empty metrics), and no comparison uses one.
#[test]
#[cfg_attr(not(has_archive), ignore = "needs the ISO-Bench archive at ../shared/isobench/archive")]
fn no_invalid_measurement_of_the_archive_is_in_any_delta() {
    let ws = tempfile::tempdir().unwrap();
    let out = common::cli(ws.path(), &["--results", "../shared/isobench/archive", "status", "--json"]);
    let mut checked = 0;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        for (name, variant) in record["variants"].as_object().unwrap() {
            if variant["category"] != "invalid_measurement" {
                continue;
            }
            checked += 1;
            assert_eq!(variant["status"], "fail");
            for pair in record["comparison"]["pairs"].as_array().into_iter().flatten() {
                if pair["name"].as_str().unwrap().contains(name.as_str()) {
                    assert_eq!(pair["pct"], Value::Null, "{pair:#}");
                }
            }
        }
    }
    let files: Vec<_> = walk("../shared/isobench/archive");
    let classified = common::cli(
        ws.path(),
        &[&["classify", "--json"][..], &files.iter().map(String::as_str).collect::<Vec<_>>()].concat(),
    );
    let invalid = String::from_utf8_lossy(&classified.stdout)
        .lines()
        .filter(|l| l.contains("\"category\":\"invalid_measurement\""))
        .count();
    eprintln!("archive: {invalid} records fail a gate; {checked} of them decide a dataset commit's variant");
    assert!(invalid > 0, "the SGLang files that say success with no metrics");
}

fn walk(dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p.display().to_string());
            }
        }
    }
    out
}

const BENCH_LOG: &str = "fixtures/vllm_cpu/bench_serve_ok.txt";

/// A copy of the real `vllm bench serve` output as a plain `.log`, `from` changed to `to`; what
/// `classify --json` says of it, with `config` as the config file's text.
fn log_classified(from: &str, to: &str, config: &str) -> Value {
    let text = std::fs::read_to_string(BENCH_LOG).unwrap();
    assert!(text.contains(from), "the real output has `{from}`");
    let dir = tempfile::tempdir().unwrap();
    let (log, config_file) = (dir.path().join("bench.log"), dir.path().join("config.toml"));
    std::fs::write(&log, text.replace(from, to)).unwrap();
    std::fs::write(&config_file, config).unwrap();
    let args = ["--config", config_file.to_str().unwrap(), "classify", "--json", log.to_str().unwrap()];
    let out = common::cli(dir.path(), &args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

fn gate_of(c: &Value) -> (Option<&str>, Option<&str>) {
    (c["category"].as_str(), c["field"].as_str())
}

#[test]
fn a_plain_benchmark_log_goes_through_the_gates_too() {
    let ok = log_classified("Successful requests:", "Successful requests:", "");
    assert_eq!(gate_of(&ok), (None, None), "the real log measured: {ok:#}");
    let none = log_classified(
        "Successful requests:                     20",
        "Successful requests:                     0",
        "",
    );
    assert_eq!(
        gate_of(&none),
        (Some("invalid_measurement"), Some("gate no_successful_requests")),
        "{none:#}"
    );
    assert_eq!(none["evidence"], "Successful requests:                     0");
    let zero = log_classified(
        "Mean TPOT (ms):                          3.08",
        "Mean TPOT (ms):                          0.00",
        "",
    );
    assert_eq!(gate_of(&zero), (Some("invalid_measurement"), Some("gate zero_primary_metric")), "{zero:#}");
}

#[test]
fn max_failed_requests_is_zero_by_default_and_set_in_the_config() {
    let (from, to) =
        ("Failed requests:                         0", "Failed requests:                         3");
    let strict = log_classified(from, to, "");
    assert_eq!(gate_of(&strict), (Some("invalid_measurement"), Some("gate failed_requests")), "{strict:#}");
    let lenient = log_classified(from, to, "[gates]\nmax_failed_requests = 3\n");
    assert_eq!(gate_of(&lenient), (None, None), "three allowed: {lenient:#}");
    let four = log_classified(
        from,
        "Failed requests:                         4",
        "[gates]\nmax_failed_requests = 3\n",
    );
    assert_eq!(gate_of(&four), (Some("invalid_measurement"), Some("gate failed_requests")), "{four:#}");
}

#[test]
fn a_typo_in_the_gates_section_is_an_error_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[gates]\nmax_failed_request = 3\n").unwrap();
    let out = common::cli(dir.path(), &["--config", config.to_str().unwrap(), "classify", BENCH_LOG]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "a usage error: {said}");
    assert!(said.contains("max_failed_request") && said.contains("line 2"), "{said}");
}
