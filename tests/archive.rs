//! The whole public ISO-Bench result archive (`../shared/isobench/archive`, beside the checkout):
//! every file given to `classify` or `metrics` yields at least one line — a reading or a named
//! error — never silence. The archive is input from outside the repository (18 MB, not copied):
//! without it at build time these tests are ignored (build.rs), never passed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const ARCHIVE: &str = "../shared/isobench/archive";

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

fn archive() -> Option<Vec<PathBuf>> {
    if !Path::new(ARCHIVE).is_dir() {
        // Tests that need it are #[ignore]d where it was missing at build time (build.rs).
        panic!(
            "no ISO-Bench archive at {ARCHIVE} (it lives beside the checkout): a test that needs it never passes without it"
        );
    }
    let mut out = Vec::new();
    files(Path::new(ARCHIVE), &mut out);
    Some(out)
}

#[test]
#[cfg_attr(not(has_archive), ignore = "needs the ISO-Bench archive at ../shared/isobench/archive")]
fn no_file_of_the_archive_is_met_with_silence() {
    let Some(all) = archive() else { return };
    assert!(all.len() > 500, "{} files", all.len());
    for command in ["classify", "metrics"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
            .arg(command)
            .args(&all)
            .arg("--json")
            .output()
            .unwrap();
        let answered: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].as_str().unwrap().to_string()
            })
            .collect();
        let silent: Vec<&PathBuf> =
            all.iter().filter(|p| !answered.contains(&p.display().to_string())).collect();
        let read = String::from_utf8_lossy(&out.stdout).lines().filter(|l| !l.contains("\"error\":")).count();
        assert!(read > 1000, "{command}: only {read} records read of {} files", all.len());
        assert!(
            silent.is_empty(),
            "{command} said nothing about {} file(s), e.g. {:?}",
            silent.len(),
            silent.first()
        );
    }
}

#[test]
#[cfg_attr(not(has_archive), ignore = "needs the ISO-Bench archive at ../shared/isobench/archive")]
fn warnings_come_one_line_per_kind_and_all_of_them_with_verbose() {
    if archive().is_none() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let status = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
            .args(["--workspace", ws.path().to_str().unwrap(), "--results", ARCHIVE])
            .args(extra)
            .arg("status")
            .env("XDG_CONFIG_HOME", ws.path().join("no-config"))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stderr).lines().filter(|l| l.contains("warning")).count()
    };
    let (summary, all) = (status(&[]), status(&["--verbose"]));
    assert!(summary * 4 < all, "{summary} summary lines for {all} warnings");
}

/// Every string in a JSON value but commands and subjects (a benchmark command names datasets and
/// flags that look like failures), and the `stdout.txt`/`stderr.txt` beside its file.
fn all_text(path: &Path) -> String {
    fn strings(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
            serde_json::Value::Object(o) => o
                .iter()
                .filter(|(k, _)| !k.contains("command") && *k != "subject")
                .for_each(|(_, v)| strings(v, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&std::fs::read(path).unwrap()) {
        strings(&v, &mut out);
    }
    for name in ["stdout.txt", "stderr.txt"] {
        out.push_str(&std::fs::read_to_string(path.with_file_name(name)).unwrap_or_default());
    }
    out
}

/// Words of ISO-Bench's own failure signatures (REPORT.md §4.2), written here by hand so the
/// expectation does not come from the classifier under test, and the rule each one names.
const SIGNATURES: &[(&str, &str)] = &[
    ("'aimv2' is already used by a Transformers config", "aimv2"),
    ("cannot import name 'LogitsWarper'", "logitswarper"),
    ("No module named 'vllm.vllm_flash_attn.fa_utils'", "fa_utils"),
    ("CUDA out of memory", "cuda_oom"),
    ("manifest unknown", "manifest_unknown"),
    ("no space left on device", "disk_full"),
    ("No module named 'transformers.utils'", "tf_utils_missing"),
    ("[Errno 32] Broken pipe", "broken_pipe"),
    ("undefined symbol: ", "undef_symbol"),
    ("Unknown RoPE scaling type", "rope_llama3"),
];

/// Every file whose text holds one of `SIGNATURES` has a record that names its rule: as its
/// category, among its tags, or as a warning of a variant that measured.
#[test]
#[cfg_attr(not(has_archive), ignore = "needs the ISO-Bench archive at ../shared/isobench/archive")]
fn a_record_whose_text_holds_a_known_signature_gets_a_category() {
    let Some(all) = archive() else { return };
    let mut expected: Vec<(PathBuf, &str)> = Vec::new();
    for path in &all {
        let text = all_text(path);
        expected.extend(
            SIGNATURES
                .iter()
                .filter(|(words, _)| text.contains(words))
                .map(|(_, rule)| (path.clone(), *rule)),
        );
    }
    let files: BTreeSet<&PathBuf> = expected.iter().map(|(p, _)| p).collect();
    let rows = rows_of("classify", &files.into_iter().cloned().collect::<Vec<_>>());
    let names = |r: &serde_json::Value, rule: &str| {
        let tags = r["tags"].as_array().into_iter().flatten();
        let warnings = r["warnings"].as_array().into_iter().flatten().map(|w| &w["rule"]);
        r["category"] == rule || tags.chain(warnings).any(|t| t == rule)
    };
    let missed: Vec<String> = expected
        .iter()
        .filter(|(path, rule)| {
            let file = path.display().to_string();
            let of_file: Vec<&serde_json::Value> =
                rows.iter().filter(|r| r["file"] == file.as_str()).collect();
            // A summary or export is no record: it gets a named error, checked above.
            of_file.iter().all(|r| r.get("error").is_none()) && !of_file.iter().any(|r| names(r, rule))
        })
        .map(|(path, rule)| format!("{} ({rule})", path.display()))
        .collect();
    assert!(expected.len() > 150, "only {} signature lines found: too few to judge", expected.len());
    assert!(
        missed.is_empty(),
        "{} of {} signatures got no record naming them: {missed:?}",
        missed.len(),
        expected.len()
    );
}

/// The metric objects a file records for a variant: per-role `metrics`, a Modal result's
/// `<variant>_metrics`, the patched form's `patched_metrics` for the agent.
fn recorded_numbers(path: &Path, variant: &str) -> bool {
    let text = std::fs::read_to_string(path).unwrap();
    let Some(Ok(top)) = serde_json::Deserializer::from_str(&text).into_iter::<serde_json::Value>().next()
    else {
        return false;
    };
    let r = if top["result"].is_object() { &top["result"] } else { &top };
    let patched = if variant == "agent" { "patched_metrics" } else { "-" };
    let holds =
        |m: &serde_json::Value| m.as_object().is_some_and(|o| o.values().any(serde_json::Value::is_number));
    let per_role = path.to_string_lossy().ends_with(&format!("_{variant}_result.json"));
    (per_role && holds(&r["metrics"])) || holds(&r[format!("{variant}_metrics")]) || holds(&r[patched])
}

#[test]
#[cfg_attr(not(has_archive), ignore = "needs the ISO-Bench archive at ../shared/isobench/archive")]
fn no_record_whose_file_holds_metrics_is_reported_without_them() {
    let Some(all) = archive() else { return };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("metrics")
        .args(&all)
        .arg("--json")
        .output()
        .unwrap();
    let rows: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let missed: Vec<String> = rows
        .iter()
        .filter(|r| r.get("metrics").is_none() && r.get("error").is_none())
        .filter(|r| recorded_numbers(Path::new(r["file"].as_str().unwrap()), r["variant"].as_str().unwrap()))
        .map(|r| format!("{} [{}]", r["file"], r["variant"]))
        .collect();
    assert!(missed.is_empty(), "{} records hold metrics but report none: {missed:?}", missed.len());
}

#[test]
#[cfg_attr(not(has_archive), ignore = "needs the ISO-Bench archive at ../shared/isobench/archive")]
fn over_the_whole_archive_no_older_record_decides_a_variant() {
    if archive().is_none() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .args(["--workspace", ws.path().to_str().unwrap(), "--results", ARCHIVE, "status", "--json"])
        .env("XDG_CONFIG_HOME", ws.path().join("no-config"))
        .output()
        .unwrap();
    let mut checked = 0;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let c: serde_json::Value = serde_json::from_str(line).unwrap();
        for old in c["overridden"].as_array().unwrap() {
            let now = &c["variants"][old["variant"].as_str().unwrap()];
            if old["variant"] == "agent" && old["agent"] != now["agent"] {
                continue;
            }
            checked += 1;
            // Times are `YYYY-MM-DD HH:MM:SS`: as text they order as times.
            let (old_at, now_at) = (old["at"].as_str(), now["at"].as_str());
            assert!(old_at.is_none() || now_at >= old_at, "{}: {old} beat by {now}", c["short"]);
        }
    }
    assert!(checked > 100, "only {checked} overridden records");
}

/// The variant a result field names by its prefix (`patched_` is the agent's), as a reader of
/// the files would say it; `None` for a field that names none.
fn owner_of(field: &str) -> Option<&'static str> {
    let head = field.split('.').next().unwrap();
    let named = |p: &str| head.starts_with(&format!("{p}_"));
    ["baseline", "human", "agent"].into_iter().find(|v| named(v)).or(named("patched").then_some("agent"))
}

fn rows_of(command: &str, files: &[PathBuf]) -> Vec<serde_json::Value> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg(command)
        .args(files)
        .arg("--json")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
#[cfg_attr(not(has_archive), ignore = "needs the ISO-Bench archive at ../shared/isobench/archive")]
fn over_the_january_archive_no_measured_success_has_a_category_and_no_evidence_is_another_variants() {
    let Some(all) = archive() else { return };
    let january: Vec<PathBuf> =
        all.into_iter().filter(|p| p.starts_with(format!("{ARCHIVE}/2026-01"))).collect();
    let (verdicts, numbers) = (rows_of("classify", &january), rows_of("metrics", &january));
    assert_eq!(verdicts.len(), numbers.len());
    let (mut measured, mut categorised, mut placed, mut wrong, mut pinned) =
        (0, 0, 0, Vec::new(), Vec::new());
    for (v, m) in verdicts.iter().zip(&numbers) {
        assert_eq!((&v["file"], &v["variant"]), (&m["file"], &m["variant"]));
        let is_measured = v["status"] == "ok" && m["metrics"].as_object().is_some_and(|o| !o.is_empty());
        measured += usize::from(is_measured);
        categorised += usize::from(v["category"].is_string());
        if is_measured && !v["category"].is_null() {
            wrong.push(format!("{} [{}] {}", v["file"], v["variant"], v["category"]));
        }
        let warnings = v["warnings"].as_array().into_iter().flatten().map(|w| &w["field"]);
        for field in std::iter::once(&v["field"]).chain(warnings).filter_map(|f| f.as_str()) {
            placed += 1;
            if owner_of(field).is_some_and(|o| o != v["variant"]) {
                pinned.push(format!("{} [{}] {field}", v["file"], v["variant"]));
            }
        }
    }
    eprintln!(
        "{} records: {measured} measured, {categorised} categorised, {placed} evidence lines",
        verdicts.len()
    );
    assert!(measured > 300 && categorised > 300 && placed > 300, "too few to judge");
    assert!(wrong.is_empty(), "{} measured successes with a category: {wrong:?}", wrong.len());
    assert!(pinned.is_empty(), "{} evidence lines on another variant: {pinned:?}", pinned.len());
}
