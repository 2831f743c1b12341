//! The parts of a result object every shape reads (its text fields, times, commit, metrics,
//! workload) and where a record's texts go: shared by the shape finder and the modal and
//! per-role readers, which it does not know.

use super::{LoadWarning, ResultRecord, Stamp, TextField};
use crate::dataset::{Outcome, RunStatus, Variant, Workload};
use crate::metrics::{self, Metrics};
use serde_json::{Map, Value};
use std::path::Path;

pub(super) type Obj = Map<String, Value>;

/// Where a file's records come from: its path (the records' `source`) and the agent its folder names.
pub(super) struct Origin<'a> {
    pub path: &'a Path,
    pub source: String,
    pub agent: Option<String>,
    /// The pipeline the file's folder names (see `harness_of`).
    pub harness: String,
}

impl Origin<'_> {
    pub fn record(&self, short: &str, variant: Variant, outcome: Outcome, at: Option<Stamp>) -> ResultRecord {
        ResultRecord {
            short: short.into(),
            variant,
            agent: self.agent.clone(),
            outcome: Outcome { source: outcome.source.or_else(|| Some(self.source.clone())), ..outcome },
            at,
            texts: Vec::new(),
            not_comparable: None,
            own_category: None,
            invalid: None,
        }
    }

    /// What `obj` says of its workload, `output` holding the benchmark's output; the harness is
    /// the file's folder unless the file names its own.
    pub fn workload(&self, obj: &Obj, output: Option<&str>) -> Workload {
        self.workload_parsed(obj, output, || output.and_then(kind_of_output))
    }

    /// `workload` where the output was parsed already: `kind` says what its result block is.
    pub fn workload_parsed(
        &self,
        obj: &Obj,
        output: Option<&str>,
        kind: impl FnOnce() -> Option<&'static str>,
    ) -> Workload {
        let mut w = workload_of(obj, output, kind);
        if w.get("harness").is_none() {
            w.set("harness", self.harness.as_str());
        }
        w
    }

    pub fn warn(&self, message: &str) -> LoadWarning {
        LoadWarning::at(self.path, message)
    }
}

/// Fields that hold the command a result ran, the one it executed first.
const COMMAND_FIELDS: &[&str] = &["executed", "perf_command", "command"];

/// The workload `obj` records: ours whole where we wrote it; else the benchmark's argument dump
/// in `output`, then the command, model and GPU config fields. `kind`: the kind of benchmark
/// `output`'s result block is, where it is one (see `Workload::from_parsed_output`).
pub(super) fn workload_of(
    obj: &Obj,
    output: Option<&str>,
    kind: impl FnOnce() -> Option<&'static str>,
) -> Workload {
    let own = obj.get("perftriage").and_then(|p| p.get("workload")).cloned();
    if let Some(Ok(own)) = own.map(serde_json::from_value::<Workload>) {
        return own;
    }
    let mut w = output.map(|o| Workload::from_parsed_output(o, kind)).unwrap_or_default();
    if let Some(command) = COMMAND_FIELDS.iter().find_map(|k| text(obj, k)) {
        w.fill_from(&Workload::from_command(&command));
    }
    let mut fields = Workload::default();
    fields.set("model", text(obj, "model").unwrap_or_default());
    fields.set("gpu", text(obj, "gpu_config").unwrap_or_default());
    w.fill_from(&fields);
    w
}

/// The kind of benchmark the result block of `output` is, where it has one.
pub(super) fn kind_of_output(output: &str) -> Option<&'static str> {
    kind_of(&metrics::parse::parse(output))
}

/// The kind of benchmark a parse of some output names (`None`: the output names none).
pub(super) fn kind_of(
    parsed: &Result<metrics::parse::Parsed, metrics::parse::NoMetrics>,
) -> Option<&'static str> {
    parsed.as_ref().ok().map(|p| p.kind.name())
}

pub(super) fn text(obj: &Obj, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_string).filter(|s| !s.is_empty())
}

pub(super) fn stamp(obj: &Obj, keys: &[&str]) -> Option<Stamp> {
    keys.iter().find_map(|k| text(obj, k).and_then(|t| Stamp::parse(&t)))
}

pub(super) fn short_of(obj: &Obj) -> Option<String> {
    ["human_commit", "commit_short", "commit", "commit_hash", "full_commit", "human_commit_full"]
        .iter()
        .filter_map(|k| text(obj, k))
        .find(|h| h.len() >= 8 && h.is_char_boundary(8) && h[..8].chars().all(|c| c.is_ascii_hexdigit()))
        .map(|h| h[..8].to_ascii_lowercase())
}

/// The named text fields of `obj` that are present, each labelled `<prefix><name>`.
pub(super) fn fields(obj: &Obj, names: &[&str], prefix: &str) -> Vec<TextField> {
    names
        .iter()
        .filter_map(|k| Some(TextField { field: format!("{prefix}{k}"), text: text(obj, k)? }))
        .collect()
}

/// Every text nested one object down, each labelled `outer.inner`; where the object was written
/// as a string (a Python `repr` of it, as December-2025 harnesses did), that string whole.
pub(super) fn nested_texts(obj: &Obj, outer: &str) -> Vec<TextField> {
    let inner = match obj.get(outer) {
        Some(Value::Object(inner)) => inner,
        Some(Value::String(text)) if !text.is_empty() => {
            // The repr escaped the output's newlines: give its lines back, so evidence is a line.
            let text = text.replace("\\n", "\n");
            return vec![TextField { field: outer.to_string(), text }];
        }
        _ => return Vec::new(),
    };
    let texts = inner.iter().filter_map(|(k, v)| Some((k, v.as_str().filter(|s| !s.is_empty())?)));
    texts.map(|(k, text)| TextField { field: format!("{outer}.{k}"), text: text.to_string() }).collect()
}

/// The variant a field names by its prefix (`baseline_raw`, `human_metrics.raw_output`,
/// `agent_error`; `patched_*` is the agent's patch on the baseline); `None` for a field that
/// names none (`error`, `stdout.txt`).
pub(super) fn owner_of(field: &str) -> Option<Variant> {
    let head = field.split('.').next().unwrap_or(field);
    let named = |prefix: &str| head.starts_with(prefix);
    match () {
        _ if named("patched_") => Some(Variant::Agent),
        _ => Variant::ALL.into_iter().find(|v| named(&format!("{}_", v.name()))),
    }
}

/// Give texts that name no variant to the variant the file says failed (`phase`), else to the
/// records that failed or were skipped; where none did, to the first (B, H, A) that measured
/// nothing; where every record measured, to each (they can only be warnings there).
pub(super) fn give_unnamed(records: &mut [ResultRecord], texts: &[TextField], phase: Option<Variant>) {
    let all: Vec<usize> = (0..records.len()).collect();
    let failed: Vec<usize> =
        all.iter().copied().filter(|&i| records[i].outcome.status != RunStatus::Success).collect();
    let targets = if let Some(named) = records.iter().position(|r| Some(r.variant) == phase) {
        vec![named]
    } else if !failed.is_empty() {
        failed
    } else {
        records.iter().position(|r| !r.measured()).map_or(all, |first| vec![first])
    };
    targets.into_iter().for_each(|i| records[i].texts.extend_from_slice(texts));
}

/// The metrics a file recorded: a `metrics` object, or the flat numeric fields of legacy files.
pub(super) fn recorded_metrics(obj: &Obj) -> Metrics {
    let source = match obj.get("metrics") {
        Some(Value::Object(m)) => m,
        _ => obj,
    };
    let pairs = source.iter().filter_map(|(k, v)| Some((k.as_str(), v.as_f64()?)));
    let all = metrics::normalise(pairs);
    all.into_iter().filter(|(k, _)| metrics::definition(k).is_some()).collect()
}
