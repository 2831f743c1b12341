//! Modal `result` objects — wrapped in `{instance, result}`, bare (sglang runs) or as entries of a
//! progress log — speak for all three variants. The December-2025 "patched" form speaks for a
//! baseline and an agent (`patched_*` is the agent's patch applied to the baseline).

use super::parts::{
    Obj, Origin, fields, give_unnamed, kind_of, nested_texts, recorded_metrics, short_of, stamp, text,
};
use super::{ResultRecord, ResultSet, Stamp, TextField};
use crate::dataset::{Outcome, RunStatus, Variant, Workload};
use crate::metrics::{self, Metrics};
use serde_json::Value;

/// Text fields of a Modal result that name no variant: they go to the variant the file says
/// failed (`give_unnamed`).
const UNNAMED_FIELDS: &[&str] =
    &["error", "error_message", "server_logs", "stdout", "stderr", "raw_output", "logs", "traceback"];

/// A Modal result without its `{instance, result}` wrapper.
pub(super) fn is_bare_result(obj: &Obj) -> bool {
    let per_variant =
        ["baseline_metrics", "human_metrics", "agent_metrics", "patched_metrics", "baseline_ms"];
    obj.contains_key("status") && per_variant.iter().any(|k| obj.contains_key(*k))
}

pub(super) fn records(origin: &Origin, short: &str, r: &Obj, at: Option<Stamp>) -> ResultSet {
    let at = stamp(r, &["timestamp"]).or(at);
    let records = if is_patched(r) { patched(origin, short, r, at) } else { three_way(origin, short, r, at) };
    ResultSet { records, ..ResultSet::default() }
}

pub(super) fn progress_log(origin: &Origin, entries: &[Value], at: Option<Stamp>) -> ResultSet {
    let mut set = ResultSet::default();
    for entry in entries {
        match entry.as_object().and_then(|e| Some((short_of(e)?, e))) {
            Some((short, e)) => set.absorb(records(origin, &short, e, at)),
            None => set.warnings.push(origin.warn("progress entry without a commit")),
        }
    }
    set
}

fn three_way(origin: &Origin, short: &str, r: &Obj, at: Option<Stamp>) -> Vec<ResultRecord> {
    let status = text(r, "status").unwrap_or_default();
    let error = text(r, "error").or_else(|| text(r, "error_message"));
    // These statuses skip the whole commit: the error speaks for all three variants.
    let skips_commit = matches!(status.as_str(), "version_bug" | "no_perf_command" | "blocked_model");
    let failed_phase = failed_phase(r, &status, error.as_deref()).filter(|_| !skips_commit);
    let mut out = Vec::new();
    for variant in Variant::ALL {
        let skipped = text(r, &format!("{}_skip_reason", variant.name()));
        let outcome = match (&failed_phase, status.as_str()) {
            _ if skips_commit => (RunStatus::Skipped, error.clone()),
            // A side the harness skipped ("Server failed - incompatible overlay") measured nothing.
            _ if skipped.is_some() => (RunStatus::Skipped, skipped),
            (Some(failed), _) if *failed == variant => (RunStatus::Error, error.clone()),
            (Some(failed), _) if *failed > variant => (RunStatus::Success, None),
            (Some(_), _) => continue,
            (None, _) if variant == Variant::Agent => agent_outcome(r),
            // A success that measured only some variants (sglang's human-only runs): the rest never ran.
            (None, _) if !ran(r, variant.name()) => continue,
            (None, _) => (RunStatus::Success, None),
        };
        let (metrics, metrics_from, workload) = variant_numbers(origin, r, variant.name(), outcome.0);
        let (status, error) = outcome;
        let outcome = Outcome { status, error, metrics, metrics_from, workload, ..Outcome::not_run() };
        let mut record = origin.record(short, variant, outcome, at);
        record.texts = own_texts(r, variant.name());
        out.push(record);
    }
    give_unnamed(&mut out, &fields(r, UNNAMED_FIELDS, ""), failed_phase);
    out
}

/// A variant's numbers — raw output first (`<role>_metrics.raw_output`, else `<role>_raw`), else
/// the recorded ones; none unless it succeeded — and its workload: its output parsed once for both.
fn variant_numbers(
    origin: &Origin,
    r: &Obj,
    role: &str,
    status: RunStatus,
) -> (Metrics, Option<metrics::MetricsFrom>, Workload) {
    let output = variant_output(r, role);
    let parsed = output.as_deref().map(metrics::parse::parse);
    let kind = parsed.as_ref().and_then(kind_of);
    let workload = origin.workload_parsed(r, output.as_deref(), || kind);
    if status != RunStatus::Success {
        return (Metrics::new(), None, workload);
    }
    let (metrics, from) = numbers(r, role, parsed);
    (metrics, from, workload)
}

/// A variant's numbers from its output's parse (`None`: it has none), else the recorded ones.
fn numbers(
    r: &Obj,
    role: &str,
    parsed: Option<Result<metrics::parse::Parsed, metrics::parse::NoMetrics>>,
) -> (Metrics, Option<metrics::MetricsFrom>) {
    let recorded = r.get(&format!("{role}_metrics")).and_then(Value::as_object);
    metrics::pick_parsed(parsed, recorded.map(|m| recorded_metrics(&wrap(m))).unwrap_or_default())
}

/// A variant's benchmark output: `<role>_metrics.raw_output`, else `<role>_raw`.
fn variant_output(r: &Obj, role: &str) -> Option<String> {
    let recorded = r.get(&format!("{role}_metrics")).and_then(Value::as_object);
    let raw = recorded.and_then(|m| m.get("raw_output")).and_then(Value::as_str).map(str::to_string);
    raw.or_else(|| text(r, &format!("{role}_raw")))
}

fn wrap(metrics: &Obj) -> Obj {
    let mut obj = Obj::new();
    obj.insert("metrics".into(), Value::Object(metrics.clone()));
    obj
}

/// Texts a Modal result can keep for one side: `<side>_error`, `<side>_raw`, …
const SIDE_FIELDS: &[&str] =
    &["error", "raw", "server_logs", "skip_reason", "logs", "stdout", "stderr", "traceback"];

/// The texts a Modal result keeps for one side (`baseline`, `human`, `agent`, `patched`) alone:
/// its `SIDE_FIELDS`, and every text inside its metrics and output objects.
fn own_texts(r: &Obj, side: &str) -> Vec<TextField> {
    let names: Vec<String> = SIDE_FIELDS.iter().map(|f| format!("{side}_{f}")).collect();
    let mut out = fields(r, &names.iter().map(String::as_str).collect::<Vec<_>>(), "");
    out.extend(nested_texts(r, &format!("{side}_metrics")));
    out.extend(nested_texts(r, &format!("{side}_output")));
    out
}

/// Which phase a Modal failure belongs to; `None` for a success. The status or the error's first
/// word names it (`baseline_failed`, "Human server failed…"); else it belongs to the first
/// variant that measured nothing (phases run B, H, A).
fn failed_phase(r: &Obj, status: &str, error: Option<&str>) -> Option<Variant> {
    let head = error.unwrap_or("").trim_start().to_ascii_lowercase();
    let named = |v: &Variant| status == format!("{}_failed", v.name()) || head.starts_with(v.name());
    match status {
        "success" => None,
        _ => Variant::ALL.into_iter().find(named).or_else(|| Some(first_unmeasured(r))),
    }
}

/// The first variant whose numbers are missing: no recorded metrics and none in its raw output.
fn first_unmeasured(r: &Obj) -> Variant {
    let parsed = |v: &Variant| variant_output(r, v.name()).as_deref().map(metrics::parse::parse);
    let measured = |v: &Variant| !numbers(r, v.name(), parsed(v)).0.is_empty();
    Variant::ALL.into_iter().find(|v| !measured(v)).unwrap_or(Variant::Baseline)
}

/// Whether a variant ran at all: numbers or raw output of its own.
fn ran(r: &Obj, role: &str) -> bool {
    let numbers = r.get(&format!("{role}_metrics")).and_then(Value::as_object).is_some_and(|m| !m.is_empty());
    numbers || text(r, &format!("{role}_raw")).is_some()
}

fn agent_outcome(r: &Obj) -> (RunStatus, Option<String>) {
    match r.get("agent_metrics") {
        Some(Value::Object(m)) if !m.is_empty() => (RunStatus::Success, None),
        _ => {
            let why = text(r, "agent_error")
                .unwrap_or_else(|| "Modal run succeeded but recorded no agent metrics".into());
            (RunStatus::Error, Some(why))
        }
    }
}

fn is_patched(r: &Obj) -> bool {
    ["patched_metrics", "patched_ms", "patch_path"].iter().any(|k| r.contains_key(*k))
}

/// The older form: a baseline, then the agent's patch on it (`patched_*`); no human run.
fn patched(origin: &Origin, short: &str, r: &Obj, at: Option<Stamp>) -> Vec<ResultRecord> {
    let status = text(r, "status").unwrap_or_default();
    let why = text(r, "error_message").or_else(|| text(r, "error")).unwrap_or_else(|| status.clone());
    let (base, base_from) = side_metrics(r, "baseline");
    let (agent, agent_from) = side_metrics(r, "patched");
    let (b, a) = patched_statuses(&status, !base.is_empty(), !agent.is_empty());
    let mut out = Vec::new();
    for (variant, state, metrics, from) in
        [(Variant::Baseline, Some(b), base, base_from), (Variant::Agent, a, agent, agent_from)]
    {
        let Some(state) = state else { continue };
        let error = (state != RunStatus::Success).then(|| why.clone());
        let outcome = Outcome { status: state, error, metrics, metrics_from: from, ..Outcome::not_run() };
        let mut record = origin.record(short, variant, outcome, at);
        let side = if variant == Variant::Baseline { "baseline" } else { "patched" };
        record.texts = own_texts(r, side);
        record.outcome.workload = origin.workload(r, variant_output(r, side).as_deref());
        out.push(record);
    }
    give_unnamed(&mut out, &fields(r, &["error_message", "error", "stdout", "stderr"], ""), None);
    out
}

/// Baseline and agent status of a patched result; `None`: the agent never ran.
fn patched_statuses(status: &str, has_base: bool, has_agent: bool) -> (RunStatus, Option<RunStatus>) {
    match status {
        "no_perf_command" => (RunStatus::Skipped, Some(RunStatus::Skipped)),
        "success" if has_agent => (RunStatus::Success, Some(RunStatus::Success)),
        "success" => (RunStatus::Success, Some(RunStatus::Error)),
        // The agent made no patch, so nothing ran: a baseline without numbers claims no success.
        "no_patch" if has_base => (RunStatus::Success, Some(RunStatus::Skipped)),
        "no_patch" => (RunStatus::Skipped, Some(RunStatus::Skipped)),
        _ if has_base => (RunStatus::Success, Some(RunStatus::Error)),
        _ => (RunStatus::Error, None),
    }
}

/// `<side>_metrics` (raw output inside first), or the test script's `<side>_ms`.
fn side_metrics(r: &Obj, side: &str) -> (Metrics, Option<metrics::MetricsFrom>) {
    if let Some(Value::Object(m)) = r.get(&format!("{side}_metrics")) {
        let raw = m.get("raw_output").and_then(Value::as_str);
        return metrics::pick(raw, recorded_metrics(&wrap(m)));
    }
    let ms = r.get(&format!("{side}_ms")).and_then(Value::as_f64).filter(|v| v.is_finite());
    let recorded: Metrics = ms.map(|v| ("latency_avg".to_string(), v)).into_iter().collect();
    metrics::pick(None, recorded)
}
