//! Recognising each upstream result shape (REPORT.md §2.1–2.3) by its keys and handing it to its reader.
//! Shapes are told apart by their keys, never by particular file names or folders.

use super::parts::{Obj, Origin, give_unnamed, short_of, stamp, workload_of};
use super::{ReadError, ResultSet, Stamp, TextField, modal, role};
use crate::dataset::{Variant, short_from_name};
use serde_json::Value;
use std::path::Path;

pub(super) fn interpret(path: &Path, value: &Value) -> Result<ResultSet, ReadError> {
    let obj = value.as_object().ok_or(ReadError::NotAnObject)?;
    let (source, agent, harness) = (path.display().to_string(), agent_of(path), harness_of(path));
    let origin = Origin { path, source, agent, harness };
    let at = stamp(obj, &["timestamp", "generated_at"]);
    if let (Some(Value::Object(instance)), Some(Value::Object(result))) =
        (obj.get("instance"), obj.get("result"))
    {
        let short =
            short_of(result).or_else(|| short_of(instance)).ok_or(ReadError::NoCommit("Modal result"))?;
        let mut set = modal::records(&origin, &short, result, at);
        let described = workload_of(instance, None, || None);
        set.records.iter_mut().for_each(|r| r.outcome.workload.fill_from(&described));
        return Ok(with_beside(set, path));
    }
    match obj.get("results") {
        Some(Value::Object(roles)) => {
            let short = short_of(obj).ok_or(ReadError::NoCommit("3-way rerun"))?;
            return Ok(role::per_role_objects(&origin, &short, roles, at));
        }
        Some(Value::Array(entries)) => return Ok(modal::progress_log(&origin, entries, at)),
        _ => {}
    }
    by_keys(&origin, obj, at)
}

/// Shapes that have no wrapper: told apart by the keys at the top level.
fn by_keys(origin: &Origin, obj: &Obj, at: Option<Stamp>) -> Result<ResultSet, ReadError> {
    let name = origin.path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let hash = || short_of(obj).or_else(|| short_from_name(name));
    if Variant::ALL.iter().any(|v| obj.get(v.name()).is_some_and(Value::is_object)) {
        let short = hash().ok_or(ReadError::NoCommit("3-way result"))?;
        return Ok(role::per_role_objects(origin, &short, obj, at));
    }
    if modal::is_bare_result(obj) {
        let short = hash().ok_or(ReadError::NoCommit("Modal-style result"))?;
        return Ok(with_beside(modal::records(origin, &short, obj, at), origin.path));
    }
    if let Some(variant) = role_from_file_name(name) {
        let short = hash().ok_or(ReadError::NoCommit("per-role result"))?;
        return Ok(role::one(origin, &short, variant, obj, at));
    }
    if name.ends_with("_result.json") && obj.contains_key("status") {
        let short = hash().ok_or(ReadError::NoCommit("flat result"))?;
        return Ok(role::docker_check(origin, &short, obj, at));
    }
    let keys: Vec<&str> = obj.keys().map(String::as_str).take(8).collect();
    Err(ReadError::UnknownShape(keys.join(", ")))
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

fn role_from_file_name(name: &str) -> Option<Variant> {
    let stem = name.strip_suffix("_result.json")?;
    Variant::ALL.into_iter().find(|v| stem.ends_with(&format!("_{}", v.name())))
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
