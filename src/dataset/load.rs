//! Reading the dataset JSONL: the embedded copy or a file, with line-numbered errors.

use super::Commit;
use crate::ids::Short;
use std::path::Path;

/// The 96 ISO-Bench vLLM commits, compiled in (built by fixtures/dataset/build_dataset.py).
pub const EMBEDDED: &str = include_str!("../../fixtures/dataset/isobench_vllm.jsonl");
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("cannot read dataset {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path}: no usable commit in the dataset{}", first.as_ref().map(|w| format!(" (first problem: {w})")).unwrap_or_default())]
    Empty { path: String, first: Option<String> },
}

/// The commits of a dataset, and a warning (file, line, field) for each row that was skipped.
#[derive(Debug, Default)]
pub struct Dataset {
    pub commits: Vec<Commit>,
    pub warnings: Vec<String>,
}

pub fn load_embedded() -> Result<Dataset, DatasetError> {
    parse(EMBEDDED, "<embedded dataset>")
}

pub fn load_jsonl(path: &Path) -> Result<Dataset, DatasetError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| DatasetError::Read { path: path.display().to_string(), source })?;
    parse(&text, &path.display().to_string())
}

/// Rows that cannot be read or whose ids could reach a command line or a path are skipped.
fn parse(text: &str, origin: &str) -> Result<Dataset, DatasetError> {
    let mut set = Dataset::default();
    let mut seen = std::collections::HashSet::new();
    for (index, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let checked = serde_json::from_str::<Commit>(line).map_err(RowError::from).and_then(|c| {
            check_row(&c)?;
            if seen.insert(c.short.clone()) { Ok(c) } else { Err(RowError::Duplicate(c.short)) }
        });
        match checked {
            Ok(commit) => set.commits.push(commit),
            Err(why) => set.warnings.push(format!("{origin}:{}: {why}; row skipped", index + 1)),
        }
    }
    if set.commits.is_empty() {
        return Err(DatasetError::Empty { path: origin.to_string(), first: set.warnings.first().cloned() });
    }
    Ok(set)
}

/// Why a dataset row is skipped.
#[derive(Debug, thiserror::Error)]
enum RowError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("duplicate commit {0}")]
    Duplicate(Short),
    #[error("schema_version {0} is not supported (expected {SCHEMA_VERSION})")]
    Schema(u32),
    #[error("field `short`: `{}` is not 8 lower-case hex digits", .0.escape_debug())]
    Short(Short),
    #[error("field `full`: `{}` is not the 40-hex commit starting with `{short}`", full.escape_debug())]
    Full { full: String, short: Short },
    #[error("field `parent`: `{}` is not a 40-hex commit", .0.escape_debug())]
    Parent(String),
    #[error("field `item_id`: `{}` is not a plain file name", .0.escape_debug())]
    ItemId(String),
}

/// Hex commit ids (8 and 40 characters) and a plain file-name `item_id`: nothing that git could
/// take for an option or a path could climb out of a folder with.
fn check_row(c: &Commit) -> Result<(), RowError> {
    if c.schema_version != SCHEMA_VERSION {
        return Err(RowError::Schema(c.schema_version));
    }
    let hex = |s: &str, len: usize| {
        s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    if !hex(&c.short, 8) {
        return Err(RowError::Short(c.short.clone()));
    }
    if !hex(&c.full, 40) || !c.full.starts_with(c.short.as_str()) {
        return Err(RowError::Full { full: c.full.clone(), short: c.short.clone() });
    }
    if let Some(parent) = c.parent.as_deref().filter(|p| !hex(p, 40)) {
        return Err(RowError::Parent(parent.to_string()));
    }
    match c.item_id.as_deref() {
        Some(item) if !crate::dataset::is_plain_name(item) => Err(RowError::ItemId(item.to_string())),
        _ => Ok(()),
    }
}
