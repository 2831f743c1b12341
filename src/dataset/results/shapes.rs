//! Recognising each upstream result shape (REPORT.md §2.1–2.3) and the helpers all shapes share.
//! Shapes are told apart by their keys, never by particular file names or folders.

use super::{LoadWarning, ResultRecord, ResultSet, Stamp, TextField, modal, role};
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
            short: short.to_string(),
            variant,
            agent: self.agent.clone(),
            outcome: Outcome { source: outcome.source.or_else(|| Some(self.source.clone())), ..outcome },
            at,
            texts: Vec::new(),
            not_comparable: None,
            own_category: None,
        }
    }

    /// What `obj` says of its workload, `output` holding the benchmark's output; the harness is
    /// the file's folder unless the file names its own.
    pub fn workload(&self, obj: &Obj, output: Option<&str>) -> Workload {
        let mut w = workload_of(obj, output);
        if w.get("harness").is_none() {
            w.set("harness", self.harness.as_str());
        }
        w
    }

    pub fn warn(&self, message: &str) -> LoadWarning {
        LoadWarning { path: self.path.to_path_buf(), message: message.to_string() }
    }
}

pub(super) fn interpret(path: &Path, value: &Value) -> Result<ResultSet, String> {
    let obj = value.as_object().ok_or("unknown shape: the top-level JSON value is not an object")?;
    let (source, agent, harness) = (path.display().to_string(), agent_of(path), harness_of(path));
    let origin = Origin { path, source, agent, harness };
    let at = stamp(obj, &["timestamp", "generated_at"]);
    if let (Some(Value::Object(instance)), Some(Value::Object(result))) =
        (obj.get("instance"), obj.get("result"))
    {
        let short =
            short_of(result).or_else(|| short_of(instance)).ok_or("Modal result without a commit hash")?;
        let mut set = modal::records(&origin, &short, result, at);
        let described = workload_of(instance, None);
        set.records.iter_mut().for_each(|r| r.outcome.workload.fill_from(&described));
        return Ok(with_beside(set, path));
    }
    match obj.get("results") {
        Some(Value::Object(roles)) => {
            let short = short_of(obj).ok_or("3-way rerun without a commit hash")?;
            return Ok(role::per_role_objects(&origin, &short, roles, at));
        }
        Some(Value::Array(entries)) => return Ok(modal::progress_log(&origin, entries, at)),
        _ => {}
    }
    by_keys(&origin, obj, at)
}

/// Shapes that have no wrapper: told apart by the keys at the top level.
fn by_keys(origin: &Origin, obj: &Obj, at: Option<Stamp>) -> Result<ResultSet, String> {
    let name = origin.path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let hash = || short_of(obj).or_else(|| short_from_name(name));
    if Variant::ALL.iter().any(|v| obj.get(v.name()).is_some_and(Value::is_object)) {
        let short = hash().ok_or("3-way result without a commit hash")?;
        return Ok(role::per_role_objects(origin, &short, obj, at));
    }
    if modal::is_bare_result(obj) {
        let short = hash().ok_or("Modal-style result without a commit hash")?;
        return Ok(with_beside(modal::records(origin, &short, obj, at), origin.path));
    }
    if let Some(variant) = role_from_file_name(name) {
        let short = hash().ok_or("per-role result without a commit hash")?;
        return Ok(role::one(origin, &short, variant, obj, at));
    }
    if name.ends_with("_result.json") && obj.contains_key("status") {
        let short = hash().ok_or("flat result without a commit hash")?;
        return Ok(role::docker_check(origin, &short, obj, at));
    }
    let keys: Vec<&str> = obj.keys().map(String::as_str).take(8).collect();
    Err(format!("unknown shape (keys: {})", keys.join(", ")))
}

/// The agent a folder `omniperf_results_3way_<agent>` names, unless `<agent>` is the project
/// folder right below it (`…_3way_sglang/sglang/`): then the folder names the project, not an agent.
pub(super) fn agent_of(path: &Path) -> Option<String> {
    let parts: Vec<&str> = path.iter().filter_map(|p| p.to_str()).collect();
    parts.iter().enumerate().rev().find_map(|(i, part)| {
        let agent = part.strip_prefix("omniperf_results_3way_").filter(|a| !a.is_empty())?;
        let names_project = parts.get(i + 1) == Some(&agent);
        (!names_project).then(|| agent.to_string())
    })
}

/// The pipeline a result file belongs to: its folders from `omniperf_results…` down, without the
/// commit folders (`3way_claude_code/results/separate_agent`); else its last two folders.
fn harness_of(path: &Path) -> String {
    let dirs: Vec<&str> =
        path.parent().into_iter().flat_map(|p| p.iter()).filter_map(|p| p.to_str()).collect();
    let from = dirs.iter().rposition(|d| d.starts_with("omniperf_results"));
    let kept =
        dirs[from.unwrap_or(dirs.len().saturating_sub(2))..].iter().filter(|d| short_from_name(d).is_none());
    let joined = kept.copied().collect::<Vec<_>>().join("/");
    joined.strip_prefix("omniperf_results_").unwrap_or(&joined).to_string()
}

/// Fields that hold the command a result ran, the one it executed first.
const COMMAND_FIELDS: &[&str] = &["executed", "perf_command", "command"];

/// The workload `obj` records: ours whole where we wrote it; else the benchmark's argument dump
/// in `output`, then the command, model and GPU config fields.
pub(super) fn workload_of(obj: &Obj, output: Option<&str>) -> Workload {
    let own = obj.get("perftriage").and_then(|p| p.get("workload")).cloned();
    if let Some(Ok(own)) = own.map(serde_json::from_value::<Workload>) {
        return own;
    }
    let mut w = output.map(Workload::from_output).unwrap_or_default();
    if let Some(command) = COMMAND_FIELDS.iter().find_map(|k| text(obj, k)) {
        w.fill_from(&Workload::from_command(&command));
    }
    let mut fields = Workload::default();
    fields.set("model", text(obj, "model").unwrap_or_default());
    fields.set("gpu", text(obj, "gpu_config").unwrap_or_default());
    w.fill_from(&fields);
    w
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

fn short_from_name(name: &str) -> Option<String> {
    let head = name.get(..8)?;
    head.chars().all(|c| c.is_ascii_hexdigit()).then(|| head.to_ascii_lowercase())
}

fn role_from_file_name(name: &str) -> Option<Variant> {
    let stem = name.strip_suffix("_result.json")?;
    Variant::ALL.into_iter().find(|v| stem.ends_with(&format!("_{}", v.name())))
}

/// The named text fields of `obj` that are present, each labelled `<prefix><name>`.
pub(super) fn fields(obj: &Obj, names: &[&str], prefix: &str) -> Vec<TextField> {
    names
        .iter()
        .filter_map(|k| Some(TextField { field: format!("{prefix}{k}"), text: text(obj, k)? }))
        .collect()
}

/// Every text nested one object down, each labelled `outer.inner`.
pub(super) fn nested_texts(obj: &Obj, outer: &str) -> Vec<TextField> {
    let Some(Value::Object(inner)) = obj.get(outer) else { return Vec::new() };
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

/// The `stdout.txt` / `stderr.txt` a run wrote beside its result file, read once per file and
/// given to the record they can explain (they name no variant).
fn with_beside(mut set: ResultSet, path: &Path) -> ResultSet {
    let read = |name: &str| {
        let text = std::fs::read_to_string(path.parent()?.join(name)).ok()?;
        (!text.is_empty()).then(|| TextField { field: name.to_string(), text })
    };
    let beside: Vec<TextField> = ["stdout.txt", "stderr.txt"].into_iter().filter_map(read).collect();
    give_unnamed(&mut set.records, &beside, None);
    set
}
