//! Every record read right (issue 24): a variant that succeeded and measured has no failure
//! category (what matched in it is a warning), evidence belongs to the variant its field names,
//! a specific signature outranks a generic one wherever the table lists it, and a stale git lock
//! is not a git timeout. Fixtures: `fixtures/results/verdicts/` (real archive files, and copies
//! of real records changed as `modified/` says).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use perftriage::classify::Classifier;
use serde_json::Value;

const DIR: &str = "fixtures/results/verdicts";
const MODAL: &str = "fixtures/results/verdicts/2026-01/omniperf_results_3way_claude_code/results/modal";

/// `classify --json` rows of `files`, in order.
fn classify(files: &[String]) -> Vec<Value> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("classify")
        .args(files)
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn row<'r>(rows: &'r [Value], variant: &str) -> &'r Value {
    rows.iter().find(|r| r["variant"] == variant).unwrap_or_else(|| panic!("no {variant} row in {rows:?}"))
}

fn modal(short: &str) -> Vec<Value> {
    classify(&[format!("{MODAL}/{short}/benchmark_result.json")])
}

#[test]
fn the_agents_error_in_a_modal_record_is_the_agents_alone() {
    for (short, agent_category) in
        [("3b61cb45", "git_lock"), ("6dd94dbe", "no_metrics"), ("ce6bf3a2", "no_metrics")]
    {
        let rows = modal(short);
        assert_eq!(rows.len(), 3, "{short}: {rows:?}");
        for variant in ["baseline", "human"] {
            let r = row(&rows, variant);
            assert_eq!(r["status"], "ok", "{short} {variant}");
            assert_eq!(r["category"], Value::Null, "{short} {variant} measured, yet: {r}");
            assert!(r.get("evidence").is_none(), "{short} {variant}: {r}");
            assert_eq!(r["warnings"], serde_json::json!([]), "{short} {variant}: nothing of the agent's");
        }
        let agent = row(&rows, "agent");
        assert_eq!(
            (agent["category"].as_str(), agent["field"].as_str()),
            (Some(agent_category), Some("agent_error"))
        );
    }
}

#[test]
fn an_error_that_names_the_human_is_the_humans_not_the_skipped_baselines() {
    // sglang 564a898a: the baseline was skipped ("incompatible overlay", its own server log says
    // why); the error "Human server failed to start…" is the human's.
    let file = format!("{DIR}/2026-01/omniperf_results_3way_sglang/sglang/564a898a/benchmark_result.json");
    let rows = classify(&[file]);
    let (b, h) = (row(&rows, "baseline"), row(&rows, "human"));
    assert_eq!(b["status"], "skip", "{b}");
    assert_eq!(
        (b["category"].as_str(), b["field"].as_str()),
        (Some("outlines_fsm"), Some("baseline_server_logs"))
    );
    assert_eq!(h["status"], "fail", "{h}");
    assert_eq!(
        (h["category"].as_str(), h["field"].as_str()),
        (Some("undef_symbol"), Some("human_server_logs"))
    );
}

#[test]
fn a_stale_git_lock_is_its_own_failure_with_its_own_recipe() {
    let agent = row(&modal("3b61cb45"), "agent").clone();
    assert_eq!(agent["category"], "git_lock");
    assert_eq!(agent["fixes"], serde_json::json!(["git_lock_remove"]));
    assert!(agent["evidence"].as_str().unwrap().contains(".git/index.lock': File exists"));
    let book = perftriage::fixes::RecipeBook::embedded().unwrap();
    let recipe = book.recipes.iter().find(|r| r.id == "git_lock_remove").unwrap();
    assert_eq!(recipe.answers, ["git_lock"]);
    let pattern = regex::Regex::new(recipe.args_from_evidence.as_deref().unwrap()).unwrap();
    let path = pattern.find(agent["evidence"].as_str().unwrap()).unwrap().as_str();
    assert!(path.starts_with("/__modal/volumes/") && path.ends_with("/.git/index.lock"), "{path}");
    let c = Classifier::embedded().unwrap();
    let timeout =
        "subprocess.TimeoutExpired: Command '['git', 'fetch', 'origin']' timed out after 300 seconds";
    assert_eq!(c.classify(timeout).unwrap().category, "git_timeout");
}

#[test]
fn a_baseline_that_failed_is_the_baseline_not_the_human() {
    // Status `baseline_failed`: the baseline's own output names the cause; the human never ran.
    let rows = modal("22dd9c27");
    assert_eq!(rows.len(), 1, "{rows:?}");
    let b = row(&rows, "baseline");
    assert_eq!((b["status"].as_str(), b["category"].as_str()), (Some("fail"), Some("aimv2")));
    assert_eq!(b["field"], "baseline_raw");
}

#[test]
fn a_cuda_oom_in_a_failed_variants_output_outranks_the_harnesss_no_metrics() {
    // 22dd9c27 with its baseline_raw replaced by the OOM traceback of a real record (0d243f2a).
    let rows = classify(&[format!("{DIR}/modified/oom_in_baseline_raw/22dd9c27/benchmark_result.json")]);
    let b = row(&rows, "baseline");
    assert_eq!((b["category"].as_str(), b["field"].as_str()), (Some("cuda_oom"), Some("baseline_raw")));
    assert!(b["evidence"].as_str().unwrap().contains("torch.OutOfMemoryError: CUDA out of memory"));
    assert_eq!(b["tags"], serde_json::json!(["cuda_oom", "no_metrics"]));
}

#[test]
fn a_success_that_measured_keeps_what_matched_as_warnings() {
    let cases = [
        (
            "modified/vllm_C_warning/19d98e0c_human_result.json",
            "vllm_C_missing",
            "Failed to import from vllm._C",
        ),
        ("modified/outlines_error/19d98e0c_human_result.json", "outlines_fsm", "outlines.fsm.regex"),
        (
            "2026-01/omniperf_results_3way_codex/results/61b8cea3_agent_result.json",
            "no_metrics",
            "No throughput",
        ),
    ];
    for (file, rule, words) in cases {
        let rows = classify(&[format!("{DIR}/{file}")]);
        assert_eq!(rows[0]["status"], "ok", "{file}");
        assert_eq!(rows[0]["category"], Value::Null, "{file}: {}", rows[0]);
        let warning = &rows[0]["warnings"][0];
        assert_eq!(warning["rule"], rule, "{file}: {}", rows[0]);
        assert!(warning["text"].as_str().unwrap().contains(words), "{warning}");
        assert!(warning["field"].is_string() && warning["line"].as_u64() >= Some(1), "{warning}");
    }
}

#[test]
fn status_json_and_the_board_carry_a_successful_variants_warnings_not_a_category() {
    let ws = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .args(["--workspace", ws.path().to_str().unwrap()])
        .args(["--results", &format!("{DIR}/2026-01/omniperf_results_3way_codex"), "status", "--json"])
        .env("XDG_CONFIG_HOME", ws.path().join("no-config"))
        .output()
        .unwrap();
    let line = String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.contains("\"61b8cea3\""))
        .unwrap()
        .to_string();
    let c: Value = serde_json::from_str(&line).unwrap();
    let agent = &c["variants"]["agent"];
    assert_eq!((agent["status"].as_str(), agent["category"].as_str()), (Some("ok"), None), "{agent}");
    assert_eq!(agent["warnings"][0]["rule"], "no_metrics", "{agent}");
}

/// A classifier of two rules with one pattern each, listed in the order given.
fn two_rules(first: (&str, bool), second: (&str, bool)) -> Classifier {
    let rule = |(id, generic): (&str, bool)| {
        format!(
            "[[rule]]\nid = \"{id}\"\ntitle = \"t\"\npatterns = ['{id} here']\ndisposition = \"needs_look\"\nexplain = \"e\"\ngeneric = {generic}\n"
        )
    };
    let toml = format!("[noise]\npatterns = []\n{}{}", rule(first), rule(second));
    Classifier::from_toml(&toml, "test").unwrap()
}

#[test]
fn a_specific_rule_outranks_a_generic_one_whatever_the_table_order() {
    let text = "symptom here\nmore output\ncause here\n";
    let c = two_rules(("symptom", true), ("cause", false));
    let v = c.classify(text).unwrap();
    assert_eq!((v.category.as_str(), v.line, v.evidence.as_str()), ("cause", 3, "cause here"));
    assert_eq!(v.tags, ["cause", "symptom"]);
    // Two generic rules keep their table order.
    let c = two_rules(("symptom", true), ("cause", true));
    assert_eq!(c.classify(text).unwrap().category, "symptom");
}

#[test]
fn the_embedded_generic_rules_lose_to_any_specific_line() {
    let c = Classifier::embedded().unwrap();
    let cases = [
        ("error: metadata-generation-failed\nwrite /opt/x.so: no space left on device", "disk_full"),
        (
            "Engine core initialization failed. See root cause above.\nBenchmark timed out after 600s",
            "timeout",
        ),
        ("Baseline produced no metrics\n[Errno 32] Broken pipe", "broken_pipe"),
        ("SERVER_CRASHED\nOSError: [Errno 98] Address already in use", "port_bug"),
    ];
    for (text, want) in cases {
        assert_eq!(c.classify(text).unwrap().category, want, "{text}");
    }
    let generic: Vec<&str> = c.rules().iter().filter(|r| r.generic).map(|r| r.id.as_str()).collect();
    assert_eq!(generic, ["build_failed", "engine_failed", "server_crash", "no_metrics", "outlines_fsm"]);
}

const MODIFIED: &str = "fixtures/results/verdicts/modified";

#[test]
fn a_no_patch_record_ran_nothing_and_fails_no_gate() {
    // The December form with status `no_patch` and no numbers: it claims no success, so no
    // validity gate fires (it was an invalid_measurement of a baseline "that says success").
    let rows = classify(&[format!("{MODIFIED}/no_patch/vllm/a3223766/benchmark_result.json")]);
    for variant in ["baseline", "agent"] {
        let r = row(&rows, variant);
        assert_eq!((r["status"].as_str(), r["category"].as_str()), (Some("skip"), None), "{r:#}");
    }
}

#[test]
fn a_generic_no_metrics_error_names_the_cause_nested_in_baseline_metrics() {
    // "Baseline produced no metrics" beside the real OOM traceback under
    // `baseline_metrics.raw_output`: in the December form and in the January three-way form.
    for file in ["vllm/a3223766", "22dd9c27"] {
        let rows = classify(&[format!("{MODIFIED}/oom_in_baseline_metrics/{file}/benchmark_result.json")]);
        let baseline = row(&rows, "baseline");
        assert_eq!(baseline["category"], "cuda_oom", "{file}: {baseline:#}");
        assert_eq!(baseline["field"], "baseline_metrics.raw_output", "{file}: {baseline:#}");
    }
}

#[test]
fn a_record_of_another_kind_of_benchmark_than_the_commits_says_so() {
    // Codex's 61b8cea3 agent: its error says "No throughput metrics", its output holds a
    // throughput run's numbers (recovered), and the commit's benchmark is serving.
    let ws = tempfile::tempdir().unwrap();
    let results = format!("{DIR}/2026-01/omniperf_results_3way_codex");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .args(["--workspace", ws.path().to_str().unwrap(), "--results", &results, "status", "--json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains("\"61b8cea3\"")).unwrap();
    let record: Value = serde_json::from_str(line).unwrap();
    let notes: Vec<&str> =
        record["result_notes"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let said =
        "agent measured a throughput benchmark; the dataset's command for the commit is a serving benchmark";
    assert!(notes.iter().any(|n| n.starts_with(said)), "{notes:#?}");
}
