//! Recognising each upstream result shape and turning it into per-variant records (REPORT.md §2.1–2.3).

use super::{LoadWarning, ResultRecord, ResultSet};
use crate::dataset::{Outcome, RunStatus, Variant};
use crate::metrics::{self, Metrics, parse};
use serde_json::{Map, Value};
use std::path::Path;

type Obj = Map<String, Value>;

const TEXT_FIELDS: &[&str] = &[
    "error",
    "error_message",
    "skip_reason",
    "raw_output",
    "logs",
    "agent_error",
    "server_logs",
    "stdout",
    "stderr",
    "traceback",
    "baseline_raw",
    "human_raw",
    "agent_raw",
];

pub(super) fn interpret(path: &Path, value: &Value) -> Result<ResultSet, String> {
    let obj = value.as_object().ok_or("unknown shape: the top-level JSON value is not an object")?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let source = path.display().to_string();
    if let (Some(Value::Object(instance)), Some(Value::Object(result))) =
        (obj.get("instance"), obj.get("result"))
    {
        let short =
            short_of(result).or_else(|| short_of(instance)).ok_or("Modal result without a commit hash")?;
        return Ok(modal(&short, result, &source, None));
    }
    if let Some(Value::Object(roles)) = obj.get("results") {
        let short = short_of(obj).ok_or("3-way rerun without a commit hash")?;
        return Ok(per_role_objects(&short, roles, &source, text(obj, "timestamp")));
    }
    if let Some(Value::Array(entries)) = obj.get("results") {
        return Ok(progress_log(entries, &source, text(obj, "timestamp")));
    }
    if Variant::ALL.iter().any(|v| obj.get(v.name()).is_some_and(Value::is_object)) {
        let short = short_of(obj).ok_or("3-way result without a commit hash")?;
        return Ok(per_role_objects(&short, obj, &source, text(obj, "timestamp")));
    }
    if let Some(variant) = role_from_file_name(name) {
        let short =
            short_of(obj).or_else(|| short_from_name(name)).ok_or("per-role result without a commit hash")?;
        let mut set = ResultSet::default();
        set.records.push(role_record(&short, variant, obj, &source));
        return Ok(set);
    }
    if name.ends_with("_result.json") && obj.contains_key("status") {
        let short =
            short_of(obj).or_else(|| short_from_name(name)).ok_or("flat result without a commit hash")?;
        let model = text(obj, "model").unwrap_or_else(|| "unknown model".into());
        let status = text(obj, "status").unwrap_or_default();
        let note = format!("verification run ({model}, not comparable): {status} — {source}");
        return Ok(ResultSet { notes: vec![(short, note)], ..ResultSet::default() });
    }
    let keys: Vec<&str> = obj.keys().map(String::as_str).take(8).collect();
    Err(format!("unknown shape (keys: {})", keys.join(", ")))
}

fn text(obj: &Obj, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_string).filter(|s| !s.is_empty())
}

fn short_of(obj: &Obj) -> Option<String> {
    ["human_commit", "commit_short", "commit", "commit_hash", "full_commit", "human_commit_full"]
        .iter()
        .filter_map(|k| text(obj, k))
        .find(|h| h.len() >= 8 && h.is_char_boundary(8) && h[..8].chars().all(|c| c.is_ascii_hexdigit()))
        .map(|h| h[..8].to_ascii_lowercase())
}

fn short_from_name(name: &str) -> Option<String> {
    let head = name.get(..8)?;
    head.chars().all(|c| c.is_ascii_hexdigit()).then(|| head.to_ascii_lowercase())
}

fn role_from_file_name(name: &str) -> Option<Variant> {
    let stem = name.strip_suffix("_result.json")?;
    Variant::ALL.into_iter().find(|v| stem.ends_with(&format!("_{}", v.name())))
}

fn gather_text(obj: &Obj) -> String {
    TEXT_FIELDS.iter().filter_map(|k| text(obj, k)).collect::<Vec<_>>().join("\n")
}

/// Metrics from a `metrics` object, or the flat numeric fields of legacy files.
fn metrics_of(obj: &Obj) -> Metrics {
    let source = match obj.get("metrics") {
        Some(Value::Object(m)) => m,
        _ => obj,
    };
    let pairs = source.iter().filter_map(|(k, v)| Some((k.as_str(), v.as_f64()?)));
    let all = metrics::normalise(pairs);
    all.into_iter().filter(|(k, _)| metrics::definition(k).is_some()).collect()
}

/// `perftriage.fixes` of a result file we wrote: the numbers come from a modified environment.
fn fixes_of(obj: &Obj) -> Vec<String> {
    obj.get("perftriage")
        .and_then(|p| p.get("fixes"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

fn role_record(short: &str, variant: Variant, obj: &Obj, source: &str) -> ResultRecord {
    let mut status = RunStatus::from_upstream(&text(obj, "status").unwrap_or_default());
    let error =
        text(obj, "error").or_else(|| text(obj, "error_message")).or_else(|| text(obj, "skip_reason"));
    let mut metrics = metrics_of(obj);
    let mut source = source.to_string();
    // Re-parse the raw output with the anchored parser: it fixes the harness's spurious values and
    // recovers results the harness missed (its "No … metrics" false negatives).
    if let Some(parsed) = text(obj, "raw_output").and_then(|raw| parse::parse(&raw).ok()) {
        if status == RunStatus::Error && error.as_deref().is_some_and(|e| e.contains("metrics")) {
            status = RunStatus::Success;
            source.push_str(" (results recovered from raw_output; the harness reported no metrics)");
        }
        if status == RunStatus::Success {
            metrics = parsed.metrics;
        }
    }
    let error = if status == RunStatus::Success { None } else { error };
    ResultRecord {
        short: short.to_string(),
        variant,
        outcome: Outcome { status, source: Some(source), error, metrics, fixes: fixes_of(obj) },
        timestamp: text(obj, "timestamp"),
        text: gather_text(obj),
    }
}

fn per_role_objects(short: &str, roles: &Obj, source: &str, timestamp: Option<String>) -> ResultSet {
    let mut set = ResultSet::default();
    for variant in Variant::ALL {
        if let Some(Value::Object(obj)) = roles.get(variant.name()) {
            let mut record = role_record(short, variant, obj, source);
            record.timestamp = record.timestamp.or_else(|| timestamp.clone());
            set.records.push(record);
        }
    }
    set
}

fn progress_log(entries: &[Value], source: &str, timestamp: Option<String>) -> ResultSet {
    let mut set = ResultSet::default();
    for entry in entries {
        match entry.as_object().and_then(|e| Some((short_of(e)?, e))) {
            Some((short, e)) => set.absorb(modal(&short, e, source, timestamp.clone())),
            None => set
                .warnings
                .push(LoadWarning { path: source.into(), message: "progress entry without a commit".into() }),
        }
    }
    set
}

/// A Modal result speaks for all three variants; attribute its status to the phases it covers.
fn modal(short: &str, r: &Obj, source: &str, timestamp: Option<String>) -> ResultSet {
    let status = text(r, "status").unwrap_or_default();
    let error = text(r, "error");
    let record = |variant: Variant, status: RunStatus, error: Option<String>| {
        let metrics = match r.get(&format!("{}_metrics", variant.name())) {
            Some(Value::Object(m)) if status == RunStatus::Success => metrics_of(&wrap(m)),
            _ => Metrics::new(),
        };
        let own_raw = text(r, &format!("{}_raw", variant.name()));
        let body = [error.clone(), text(r, "server_logs"), own_raw].into_iter().flatten().collect::<Vec<_>>();
        ResultRecord {
            short: short.to_string(),
            variant,
            outcome: Outcome { status, source: Some(source.to_string()), error, metrics, fixes: Vec::new() },
            timestamp: timestamp.clone(),
            text: body.join("\n"),
        }
    };
    let mut set = ResultSet::default();
    let failed_phase = modal_failed_phase(&status, error.as_deref());
    for variant in Variant::ALL {
        let outcome = match (&failed_phase, status.as_str()) {
            (_, "version_bug" | "no_perf_command" | "blocked_model") => {
                Some((RunStatus::Skipped, error.clone()))
            }
            (Some(failed), _) if *failed == variant => Some((RunStatus::Error, error.clone())),
            (Some(failed), _) if *failed > variant => Some((RunStatus::Success, None)),
            (Some(_), _) => None,
            (None, _) => Some(agent_or_success(r, variant)),
        };
        if let Some((status, err)) = outcome {
            set.records.push(record(variant, status, err));
        }
    }
    set
}

fn wrap(metrics: &Obj) -> Obj {
    let mut obj = Obj::new();
    obj.insert("metrics".into(), Value::Object(metrics.clone()));
    obj
}

/// Which phase a Modal failure belongs to; `None` for a success.
fn modal_failed_phase(status: &str, error: Option<&str>) -> Option<Variant> {
    match status {
        "success" => None,
        "human_failed" => Some(Variant::Human),
        "agent_failed" => Some(Variant::Agent),
        _ => {
            let head = error.unwrap_or("").trim_start().to_ascii_lowercase();
            Some(if head.starts_with("human") {
                Variant::Human
            } else if head.starts_with("agent") {
                Variant::Agent
            } else {
                Variant::Baseline
            })
        }
    }
}

fn agent_or_success(r: &Obj, variant: Variant) -> (RunStatus, Option<String>) {
    if variant != Variant::Agent {
        return (RunStatus::Success, None);
    }
    match r.get("agent_metrics") {
        Some(Value::Object(m)) if !m.is_empty() => (RunStatus::Success, None),
        _ => {
            let why = text(r, "agent_error")
                .unwrap_or_else(|| "Modal run succeeded but recorded no agent metrics".into());
            (RunStatus::Error, Some(why))
        }
    }
}
