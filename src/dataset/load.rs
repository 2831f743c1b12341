//! Reading the dataset JSONL: the embedded copy or a file, with line-numbered errors.

use super::Commit;
use std::path::Path;

/// The 96 ISO-Bench vLLM commits, compiled in (built by fixtures/dataset/build_dataset.py).
pub const EMBEDDED: &str = include_str!("../../fixtures/dataset/isobench_vllm.jsonl");
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("cannot read dataset {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path}:{line}: {message}")]
    Row { path: String, line: usize, message: String },
    #[error("{path}: no commits in the dataset")]
    Empty { path: String },
}

pub fn load_embedded() -> Result<Vec<Commit>, DatasetError> {
    parse(EMBEDDED, "<embedded dataset>")
}

pub fn load_jsonl(path: &Path) -> Result<Vec<Commit>, DatasetError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| DatasetError::Read { path: path.display().to_string(), source })?;
    parse(&text, &path.display().to_string())
}

fn parse(text: &str, origin: &str) -> Result<Vec<Commit>, DatasetError> {
    let row_error =
        |line: usize, message: String| DatasetError::Row { path: origin.to_string(), line, message };
    let mut commits: Vec<Commit> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let commit: Commit = serde_json::from_str(line).map_err(|e| row_error(index + 1, e.to_string()))?;
        if commit.schema_version != SCHEMA_VERSION {
            let msg = format!(
                "schema_version {} is not supported (expected {SCHEMA_VERSION})",
                commit.schema_version
            );
            return Err(row_error(index + 1, msg));
        }
        if commit.short.len() != 8 || !commit.full.starts_with(&commit.short) {
            let msg =
                format!("short `{}` must be the first 8 characters of full `{}`", commit.short, commit.full);
            return Err(row_error(index + 1, msg));
        }
        if !seen.insert(commit.short.clone()) {
            return Err(row_error(index + 1, format!("duplicate commit {}", commit.short)));
        }
        commits.push(commit);
    }
    if commits.is_empty() {
        return Err(DatasetError::Empty { path: origin.to_string() });
    }
    Ok(commits)
}
