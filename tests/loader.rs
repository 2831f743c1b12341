//! Result-file loading over all 24 real ISO-Bench fixtures (MANIFEST.tsv says what each one is),
//! and the embedded dataset's shape.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use perftriage::classify::Classifier;
use perftriage::dataset::{self, BenchKind, RunStatus, results};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const ROOT: &str = "fixtures/results/isobench";

struct ManifestRow {
    file: String,
    parse: String,
    status: String,
    signature: String,
    recorded_metrics: String,
}

fn manifest() -> Vec<ManifestRow> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("MANIFEST.tsv")).unwrap();
    // Fields may hold quoted newlines; split records on lines that start a fixture path.
    let mut records: Vec<String> = Vec::new();
    for line in text.lines().skip(1) {
        let starts_record =
            ["claude_code/", "codex/", "trae_gpt5/", "trae_gpt5_0123/"].iter().any(|p| line.starts_with(p));
        match records.last_mut() {
            Some(last) if !starts_record => {
                last.push('\n');
                last.push_str(line);
            }
            _ => records.push(line.to_string()),
        }
    }
    records
        .iter()
        .map(|r| {
            let f: Vec<&str> = r.split('\t').collect();
            ManifestRow {
                file: f[0].into(),
                parse: f[3].into(),
                status: f[4].into(),
                signature: f[6].into(),
                recorded_metrics: f[8].trim_matches('"').replace("\"\"", "\""),
            }
        })
        .collect()
}

#[test]
fn manifest_lists_all_24_fixtures() {
    assert_eq!(manifest().len(), 24);
}

#[test]
fn every_fixture_loads_or_warns_by_name() {
    for row in manifest() {
        let path = PathBuf::from(ROOT).join(&row.file);
        let outcome = results::read_file(&path);
        match row.parse.as_str() {
            "invalid" => {
                let err = outcome.expect_err(&row.file);
                assert!(matches!(err, results::ReadError::Json(_)), "{}: {err}", row.file);
                assert!(err.to_string().starts_with("invalid JSON: "), "{}: {err}", row.file);
            }
            "trailing_garbage" => {
                let set = outcome.expect(&row.file);
                assert!(!set.records.is_empty(), "{}", row.file);
                assert!(set.warnings.iter().any(|w| w.message.contains("trailing data")), "{}", row.file);
            }
            _ => {
                let set = outcome.unwrap_or_else(|e| panic!("{}: {e}", row.file));
                assert!(set.warnings.is_empty(), "{}: {:?}", row.file, set.warnings);
                assert!(!set.records.is_empty(), "{}: no records", row.file);
            }
        }
    }
}

#[test]
fn recorded_status_is_kept_for_the_variant_the_file_is_about() {
    // 61b8cea3 is the harness's false "no metrics": tested below as recovered.
    for row in manifest().into_iter().filter(|r| r.parse != "invalid" && !r.file.contains("61b8cea3")) {
        let set = results::read_file(&PathBuf::from(ROOT).join(&row.file)).unwrap();
        let expected = RunStatus::from_upstream(&row.status);
        let statuses: Vec<RunStatus> = set.records.iter().map(|r| r.outcome.status).collect();
        assert!(statuses.contains(&expected), "{}: {expected:?} not in {statuses:?}", row.file);
    }
}

#[test]
fn recorded_metrics_map_onto_the_one_vocabulary() {
    for row in
        manifest().into_iter().filter(|r| r.recorded_metrics.starts_with('{') && r.recorded_metrics != "{}")
    {
        let recorded: BTreeMap<String, f64> = serde_json::from_str(&row.recorded_metrics).unwrap();
        let set = results::read_file(&PathBuf::from(ROOT).join(&row.file)).unwrap();
        let loaded = &set.records[0].outcome.metrics;
        for (name, value) in recorded {
            let canonical =
                perftriage::metrics::canonical_name(&name).unwrap_or_else(|| panic!("{name} unknown"));
            assert_eq!(loaded.get(canonical), Some(&value), "{}: {name} → {canonical}", row.file);
        }
    }
}

#[test]
fn classifier_names_the_signature_the_manifest_detected() {
    let classifier = Classifier::embedded().unwrap();
    for row in manifest().into_iter().filter(|r| !["success", "invalid_json"].contains(&r.signature.as_str()))
    {
        let set = results::read_file(&PathBuf::from(ROOT).join(&row.file)).unwrap();
        let failing =
            set.records.iter().find(|r| r.outcome.status != RunStatus::Success).unwrap_or(&set.records[0]);
        let verdict =
            classifier.classify(&failing.text()).unwrap_or_else(|| panic!("{}: no verdict", row.file));
        assert_eq!(verdict.category, row.signature, "{}: evidence {:?}", row.file, verdict.evidence);
    }
}

#[test]
fn a_directory_of_fixtures_joins_onto_the_embedded_dataset() {
    let classifier = Classifier::embedded().unwrap();
    let set = results::read_dirs(&[PathBuf::from(ROOT)]);
    assert_eq!(set.files_read, 24);
    let (entries, warnings) = dataset::join(dataset::load_embedded().unwrap().commits, set, &classifier);
    assert!(
        warnings.iter().any(|w| w.contains("bfdb1ba5_result.json") && w.contains("invalid JSON")),
        "{warnings:?}"
    );
    let e = entries.iter().find(|e| e.commit.short == "7c01f706").unwrap();
    let human = e.variant(dataset::Variant::Human);
    assert!(human.loaded);
    assert_eq!(human.verdict.as_ref().unwrap().category, "rope_llama3");
    assert_eq!(
        human.verdict.as_ref().unwrap().evidence,
        "[rank0]: ValueError: Unknown RoPE scaling type llama3"
    );
}

#[test]
fn embedded_dataset_has_the_96_commits_of_the_report() {
    let commits = dataset::load_embedded().unwrap().commits;
    assert_eq!(commits.len(), 96);
    assert!(commits.iter().all(|c| c.full.len() == 40 && c.full.starts_with(c.short.as_str())));
    assert_eq!(commits.iter().filter(|c| c.perf_command.executed.is_some()).count(), 17);
    let mut gpus: BTreeMap<String, usize> = BTreeMap::new();
    for c in &commits {
        *gpus.entry(c.gpu.clone().unwrap_or_default()).or_default() += 1;
    }
    let expect = [("", 6), ("H100:1", 81), ("H100:2", 1), ("H100:4", 4), ("H100:8", 4)];
    assert_eq!(gpus, expect.iter().map(|(k, v)| (k.to_string(), *v)).collect());
    let dataset_kinds = commits
        .iter()
        .filter(|c| BenchKind::from_command(c.perf_command.dataset.as_deref()) == BenchKind::Serving);
    assert_eq!(dataset_kinds.count(), 72);
    let fixed = commits.iter().find(|c| c.short == "015069b0").unwrap();
    assert_eq!(
        fixed.images.human_override.as_deref(),
        Some("anonymous/vllm-baseline:015069b01741e9ecb9e604c7fe87fbdfc306ebe5")
    );
}

#[test]
fn a_bad_dataset_row_is_a_warning_naming_file_and_line_and_the_row_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.jsonl");
    let good = dataset::EMBEDDED.lines().next().unwrap();
    std::fs::write(&path, format!("{good}\n{{\"short\": 1}}\n")).unwrap();
    let loaded = dataset::load_jsonl(&path).unwrap();
    assert_eq!(loaded.commits.len(), 1);
    assert!(loaded.warnings[0].contains("d.jsonl:2:"), "{:?}", loaded.warnings);
    std::fs::write(&path, "{\"short\": 1}\n").unwrap();
    let err = dataset::load_jsonl(&path).unwrap_err().to_string();
    assert!(err.contains("no usable commit") && err.contains("d.jsonl:1"), "{err}");
}

/// The embedded first row with one field replaced.
fn row_with(field: &str, value: &str) -> String {
    let mut row: serde_json::Value = serde_json::from_str(dataset::EMBEDDED.lines().next().unwrap()).unwrap();
    row[field] = serde_json::json!(value);
    row.to_string()
}

#[test]
fn ids_that_could_reach_git_as_options_or_climb_out_of_a_folder_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile.jsonl");
    let rows = [
        row_with("parent", "--output=/tmp/perftriage-pwned"),
        row_with("full", "--output=/tmp/perftriage-pwned"),
        row_with("short", "../../zz"),
        row_with("item_id", "../../../x"),
        dataset::EMBEDDED.lines().nth(1).unwrap().to_string(),
    ];
    std::fs::write(&path, rows.join("\n")).unwrap();
    let loaded = dataset::load_jsonl(&path).unwrap();
    assert_eq!(loaded.commits.len(), 1, "only the good row stays");
    for (line, field) in [(1, "parent"), (2, "full"), (3, "short"), (4, "item_id")] {
        let warning = &loaded.warnings[line - 1];
        assert!(warning.contains(&format!("hostile.jsonl:{line}:")) && warning.contains(field), "{warning}");
    }
}

#[test]
fn unknown_shapes_and_unknown_commits_are_warnings_not_silence() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("odd.json"), r#"{"hello": "world"}"#).unwrap();
    std::fs::write(
        dir.path().join("deadbeef_human_result.json"),
        r#"{"human_commit":"deadbeef","status":"success"}"#,
    )
    .unwrap();
    let set = results::read_dirs(&[dir.path().to_path_buf()]);
    assert!(set.warnings.iter().any(|w| w.path.ends_with("odd.json") && w.message.contains("unknown shape")));
    let (_, warnings) =
        dataset::join(dataset::load_embedded().unwrap().commits, set, &Classifier::embedded().unwrap());
    assert!(
        warnings.iter().any(|w| w.contains("deadbeef") && w.contains("not in the dataset")),
        "{warnings:?}"
    );
}

#[test]
fn a_harness_false_no_metrics_is_recovered_from_raw_output() {
    let path = PathBuf::from(ROOT).join("codex/results/61b8cea3_agent_result.json");
    let set = results::read_file(&path).unwrap();
    let outcome = &set.records[0].outcome;
    assert_eq!(outcome.status, RunStatus::Success);
    assert!(outcome.source.as_deref().unwrap().contains("recovered from raw_output"));
    assert_eq!(outcome.metrics.get("total_throughput"), Some(&19152.84));
    assert_eq!(outcome.metrics.get("output_throughput"), Some(&6410.83));
}

/// Real pip (23.x, Debian bookworm) names an interrupted uninstall's stash `~ransformers`; the
/// ISO-Bench logs had older pips' `-ransformers`. Both are the broken install.
#[test]
fn both_spellings_of_a_half_removed_transformers_are_a_broken_install() {
    let classifier = Classifier::embedded().unwrap();
    for text in [
        "WARNING: Ignoring invalid distribution ~ransformers (/usr/local/lib/python3.11/dist-packages)\nModuleNotFoundError: No module named 'transformers.utils'",
        "WARNING: Ignoring invalid distribution -ransformers (/usr/local/lib/python3.10/dist-packages)",
    ] {
        assert_eq!(classifier.classify(text).unwrap().category, "tf_broken_import", "{text}");
    }
}

/// pandas 2.1.4 (built against NumPy 1.x) under numpy 2.2.6 does not print NumPy's "compiled
/// using NumPy 1.x" warning: it fails on the dtype size (seen in the real tier's first image).
#[test]
fn a_dtype_size_change_under_numpy_2_is_numpy2() {
    let classifier = Classifier::embedded().unwrap();
    let text = "  File \"interval.pyx\", line 1, in init pandas._libs.interval\nValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject";
    assert_eq!(classifier.classify(text).unwrap().category, "numpy2");
}
