//! Records of one variant each: per-role result files, the role objects of 3-way reruns, and the
//! flat Docker results of `results/docker/` (human images, often on a stand-in model).

use super::parts::{
    Obj, Origin, fields, kind_of, kind_of_output, owner_of, recorded_metrics, short_of, stamp, text,
};
use super::{ResultRecord, ResultSet, Stamp};
use crate::dataset::{Outcome, RunStatus, Variant};
use crate::ids::ImageRef;
use crate::metrics::{self, MetricsFrom};
use serde_json::Value;

/// Text fields a per-role or flat result can carry.
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
    "note",
];

/// A model used in place of the benchmark's own, for "does it run" checks.
const STAND_IN_MODEL: &str = "facebook/opt-125m";

pub(super) fn one(origin: &Origin, short: &str, variant: Variant, obj: &Obj, at: Option<Stamp>) -> ResultSet {
    with_sample_warnings(origin, vec![role_record(origin, short, variant, obj, at)])
}

/// The records, and a warning for each sample that is not a finite number (a `null` in a file):
/// its pair says so too, and nothing else of the record is lost.
fn with_sample_warnings(origin: &Origin, records: Vec<ResultRecord>) -> ResultSet {
    let warnings = records
        .iter()
        .flat_map(|r| {
            let bad = r.outcome.samples.iter().filter(|(_, values)| values.iter().any(|v| !v.is_finite()));
            bad.map(move |(metric, _)| {
                origin.warn(&format!("{}: a sample of {metric} is not a finite number", r.variant.name()))
            })
        })
        .collect();
    ResultSet { records, warnings, ..ResultSet::default() }
}

pub(super) fn per_role_objects(origin: &Origin, short: &str, roles: &Obj, at: Option<Stamp>) -> ResultSet {
    let records = Variant::ALL
        .into_iter()
        .filter_map(|v| match roles.get(v.name()) {
            Some(Value::Object(obj)) => Some(role_record(origin, short, v, obj, at)),
            _ => None,
        })
        .collect();
    with_sample_warnings(origin, records)
}

fn role_record(origin: &Origin, short: &str, variant: Variant, obj: &Obj, at: Option<Stamp>) -> ResultRecord {
    let mut status = RunStatus::from_upstream(&text(obj, "status").unwrap_or_default());
    let error = ["error", "error_message", "skip_reason"].iter().find_map(|k| text(obj, k));
    let raw = text(obj, "raw_output");
    let samples = samples_of(obj);
    // The output is parsed once, for its numbers and for the kind of benchmark it ran.
    let mut kind = None;
    // A repeated run's output ends with its last repeat; its recorded metrics are the means.
    let (metrics, metrics_from) = if samples.is_empty() {
        let parsed = raw.as_deref().map(metrics::parse::parse);
        kind = parsed.as_ref().map(kind_of);
        metrics::pick_parsed(parsed, recorded_metrics(obj))
    } else {
        (recorded_metrics(obj), Some(MetricsFrom::Recorded))
    };
    let mut source = origin.source.clone();
    // The harness sometimes missed results its own output holds (its "No … metrics" errors).
    let from_raw = !matches!(metrics_from, None | Some(MetricsFrom::Recorded));
    if status == RunStatus::Error && from_raw && error.as_deref().is_some_and(|e| e.contains("metrics")) {
        status = RunStatus::Success;
        source.push_str(" (results recovered from raw_output; the harness reported no metrics)");
    }
    let keep = status == RunStatus::Success;
    let outcome = Outcome {
        status,
        source: Some(source),
        error: if keep { None } else { error },
        metrics,
        fixes: fixes_of(obj),
        image: obj.get("perftriage").and_then(|p| p.get("image")).and_then(Value::as_str).map(ImageRef::from),
        metrics_from,
        samples,
        workload: Default::default(),
    };
    let mut record = origin.record(short, variant, outcome, stamp(obj, &["timestamp"]).or(at));
    // A field that names another variant (`agent_error` in a human's file) is not this one's evidence.
    record.texts = fields(obj, TEXT_FIELDS, "");
    record.texts.retain(|t| owner_of(&t.field).is_none_or(|owner| owner == variant));
    record.own_category = own_category(obj);
    record.invalid = own_gate(obj);
    let output = raw.as_deref();
    let kind = || kind.unwrap_or_else(|| output.and_then(kind_of_output));
    record.outcome.workload = origin.workload_parsed(obj, output, kind);
    record
}

/// Fixes a result says its environment had: ours (`perftriage.fixes`), or upstream's `fix_applied`.
fn fixes_of(obj: &Obj) -> Vec<String> {
    let words = |v: &Value| -> Vec<String> {
        match v {
            Value::String(s) => vec![s.clone()],
            Value::Array(a) => a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect(),
            _ => Vec::new(),
        }
    };
    let ours = obj.get("perftriage").and_then(|p| p.get("fixes")).map(words);
    let upstream = obj.get("fix_applied").map(words).unwrap_or_default();
    let upstream = upstream.into_iter().filter(|f| !f.is_empty() && !f.starts_with("none")).collect();
    ours.unwrap_or(upstream)
}

/// Each repeat's values per metric, where a run of ours repeated its benchmark. A sample that is
/// no number (`null`, a string) is kept as NaN — the pair then says a sample is not a finite
/// number — and never costs the other samples or metrics; a metric whose samples are no list is
/// left out.
fn samples_of(obj: &Obj) -> std::collections::BTreeMap<String, Vec<f64>> {
    let samples = obj.get("perftriage").and_then(|p| p.get("repeats")).and_then(|r| r.get("samples"));
    let Some(Value::Object(by_metric)) = samples else { return Default::default() };
    let values = |list: &Vec<Value>| list.iter().map(|v| v.as_f64().unwrap_or(f64::NAN)).collect();
    by_metric.iter().filter_map(|(metric, v)| Some((metric.clone(), values(v.as_array()?)))).collect()
}

/// `perftriage.classification` of a result file we wrote: its category and evidence.
fn own_category(obj: &Obj) -> Option<(String, String)> {
    let c = obj.get("perftriage")?.get("classification")?;
    let category = c.get("category")?.as_str()?.to_string();
    let evidence = c.get("evidence").and_then(Value::as_str).unwrap_or_default().to_string();
    Some((category, evidence))
}

/// The validity gate a run of ours failed, as its classification's `gate:` tag recorded it.
fn own_gate(obj: &Obj) -> Option<crate::metrics::gates::GateFailure> {
    let c = obj.get("perftriage")?.get("classification")?;
    let tags = c.get("tags")?.as_array()?;
    let gate = tags.iter().find_map(|t| t.as_str()?.strip_prefix("gate:"))?;
    let gate = crate::metrics::gates::Gate::from_name(gate)?;
    let evidence = c.get("evidence").and_then(Value::as_str).unwrap_or_default().to_string();
    Some(crate::metrics::gates::GateFailure { gate, evidence })
}

/// A flat Docker result: the human image run once, often on a stand-in model. On the benchmark's
/// own model it is a human record like any other; on a stand-in (or none named) it is listed
/// with the commit but decides nothing.
pub(super) fn docker_check(origin: &Origin, short: &str, obj: &Obj, at: Option<Stamp>) -> ResultSet {
    let short = short_of(obj).unwrap_or_else(|| short.to_string());
    let mut record = role_record(origin, &short, Variant::Human, obj, at);
    let model = text(obj, "model");
    record.not_comparable = match (model.as_deref(), text(obj, "original_model")) {
        (_, Some(original)) => Some(format!("ran {} in place of {original}", model.unwrap_or_default())),
        (Some(STAND_IN_MODEL) | None, _) => {
            Some(format!("a check on {}", model.unwrap_or_else(|| "an unnamed model".into())))
        }
        _ => None,
    };
    ResultSet { records: vec![record], ..ResultSet::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `null` sample is kept as a sample that is no number (its pair says so), and the other
    /// samples and metrics stay; it used to drop the whole map.
    #[test]
    fn a_null_sample_is_not_a_number_and_costs_nothing_else() {
        let obj: Obj = serde_json::from_str(
            r#"{"perftriage": {"repeats": {"samples": {
                "tpot_mean_ms": [3.0, null, 2.9], "ttft_mean_ms": [1.0, 1.1, 0.9], "odd": 7}}}}"#,
        )
        .unwrap();
        let samples = samples_of(&obj);
        let tpot = &samples["tpot_mean_ms"];
        assert_eq!((tpot.len(), tpot[0], tpot[1].is_nan()), (3, 3.0, true), "{samples:?}");
        assert_eq!(samples["ttft_mean_ms"], [1.0, 1.1, 0.9]);
        assert!(!samples.contains_key("odd"), "no list, no samples");
    }

    /// Such a sample is also a warning on load, naming the file, the variant and the metric.
    #[test]
    fn a_sample_that_is_no_number_is_a_load_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("7c01f706_human_result.json");
        let body = r#"{"status": "success", "metrics": {"tpot_mean": 3.0},
            "perftriage": {"repeats": {"samples": {"tpot_mean_ms": [3.0, null, 2.9]}}}}"#;
        std::fs::write(&path, body).unwrap();
        let set = super::super::read_file(&path).unwrap();
        let said: Vec<&str> = set.warnings.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(said, ["human: a sample of tpot_mean_ms is not a finite number"], "{:?}", set.warnings);
        assert_eq!(set.records[0].outcome.samples["tpot_mean_ms"].len(), 3);
    }
}
