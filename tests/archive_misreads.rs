//! Two records of the public archive that were misread (issue 56 item 7), on copies of the real
//! files (`fixtures/results/archive-misreads`, see its README) and altered copies of them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::cli;
use serde_json::Value;
use std::path::Path;

const MISREADS: &str = "fixtures/results/archive-misreads";
const ONE_TOKEN: &str =
    "2026-01/omniperf_results_3way_claude_code/results/modal/a3223766/benchmark_result.json";
const DECEMBER: &str = "omniperf_results_smoke/vllm/fc542144/benchmark_result.json";

fn json_lines(out: &std::process::Output) -> Vec<Value> {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The real file at `rel`, changed by `edit`, in a results folder of its own (paths kept).
fn altered(rel: &str, edit: impl Fn(&mut Value)) -> tempfile::TempDir {
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(Path::new(MISREADS).join(rel)).unwrap()).unwrap();
    edit(&mut value);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, value.to_string()).unwrap();
    dir
}

/// `status --json`'s row of a3223766 over the results in `dir`.
fn one_token_row(dir: &Path) -> Value {
    let ws = tempfile::tempdir().unwrap();
    let rows = json_lines(&cli(ws.path(), &["--results", dir.to_str().unwrap(), "status", "--json"]));
    rows.into_iter().find(|r| r["short"] == "a3223766").unwrap()
}

/// `--random-output-len 1`: one generated token a request, so TPOT and ITL print 0.00 by
/// definition. The run measured its TTFT and is valid; it was an `invalid_measurement`
/// (`zero_primary_metric`) on all three variants.
#[test]
fn a_serving_run_of_one_output_token_is_measured_by_its_ttft_not_invalid() {
    let row = one_token_row(Path::new(MISREADS));
    for variant in ["baseline", "human", "agent"] {
        let v = &row["variants"][variant];
        assert_eq!(v["status"], "ok", "{variant}: {row:#}");
        assert!(v["metrics"]["ttft_mean"].is_number(), "{variant}: {v:#}");
        assert!(v["metrics"].get("tpot_mean").is_none(), "an undefined TPOT is no metric: {v:#}");
    }
    // The same output with more tokens than requests measured a TPOT of zero: still invalid.
    let many = altered(ONE_TOKEN, |v| {
        let raw = v["result"]["baseline_raw"].as_str().unwrap();
        let line = raw.lines().find(|l| l.starts_with("Total generated tokens:")).unwrap();
        v["result"]["baseline_raw"] =
            raw.replace(line, "Total generated tokens:                  12800").into();
    });
    let row = one_token_row(many.path());
    let baseline = &row["variants"]["baseline"];
    assert_eq!(baseline["category"], "invalid_measurement", "{baseline:#}");
    assert_eq!(row["variants"]["human"]["status"], "ok", "{row:#}");
}

/// The December-2025 baseline's metrics object written as a Python `repr` string, its output
/// ending in a CUDA OOM: it was named `no_metrics` (the string was not read); it is `cuda_oom`,
/// the evidence the OOM line (the repr's escaped newlines given back). The object form, whose
/// output is a bytes repr inside a string, says the same (its evidence that one long line).
#[test]
fn a_december_metrics_object_written_as_a_string_is_read_for_its_failure() {
    let oom = |v: &mut Value| {
        let raw = v["result"]["baseline_metrics"]["raw_output"].as_str().unwrap().to_string();
        let cut = raw.find("Traceback (most recent call last)").unwrap();
        let tail = "Traceback (most recent call last):\\n  File \"worker.py\", line 229, in determine_num_available_blocks\\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB.\\n'";
        v["result"]["baseline_metrics"]["raw_output"] = format!("{}{tail}", &raw[..cut]).into();
    };
    let as_object = altered(DECEMBER, oom);
    let as_string = altered(DECEMBER, |v| {
        oom(v);
        let metrics = &v["result"]["baseline_metrics"];
        let repr =
            format!("{{'raw_output': {:?}, 'tpot_mean': None}}", metrics["raw_output"].as_str().unwrap());
        v["result"]["baseline_metrics"] = repr.into();
    });
    for dir in [&as_object, &as_string] {
        let ws = tempfile::tempdir().unwrap();
        let file = dir.path().join(DECEMBER);
        let rows = json_lines(&cli(ws.path(), &["classify", "--json", file.to_str().unwrap()]));
        let baseline = rows.iter().find(|r| r["variant"] == "baseline").unwrap();
        assert_eq!(baseline["category"], "cuda_oom", "{baseline:#}");
        assert!(baseline["evidence"].as_str().unwrap().contains("torch.OutOfMemoryError"), "{baseline:#}");
    }
}
