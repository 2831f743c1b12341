//! Reading ISO-Bench result files (per-role, Modal, Docker 3-way reruns, legacy flat files).
//! Lenient: trailing garbage after the first JSON value is accepted; anything else that cannot be
//! read becomes a warning naming the file. Never a panic, never a silently skipped `.json` file.

mod shapes;

use super::{Outcome, Variant};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One variant's outcome read from a result file.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRecord {
    pub short: String,
    pub variant: Variant,
    pub outcome: Outcome,
    pub timestamp: Option<String>,
    /// Every text field that can carry the root cause (error, raw output, server logs…).
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LoadWarning {
    pub path: PathBuf,
    pub message: String,
}

impl std::fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

#[derive(Debug, Default)]
pub struct ResultSet {
    pub records: Vec<ResultRecord>,
    /// Files that say something about a commit but are no variant outcome (e.g. opt-125m checks).
    pub notes: Vec<(String, String)>,
    pub warnings: Vec<LoadWarning>,
    pub files_read: usize,
}

impl ResultSet {
    pub(super) fn absorb(&mut self, other: ResultSet) {
        self.records.extend(other.records);
        self.notes.extend(other.notes);
        self.warnings.extend(other.warnings);
        self.files_read += other.files_read;
    }
}

/// Read every `*.json` under the given directories (recursively), on all cores.
pub fn read_dirs(dirs: &[PathBuf]) -> ResultSet {
    let mut set = ResultSet::default();
    let mut files = Vec::new();
    for dir in dirs {
        if let Err(message) = collect_json_files(dir, &mut files) {
            set.warnings.push(LoadWarning { path: dir.clone(), message });
        }
    }
    files.sort();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(files.len().max(1));
    let chunk = files.len().div_ceil(workers).max(1);
    let parts: Vec<ResultSet> = std::thread::scope(|scope| {
        let handles: Vec<_> = files.chunks(chunk).map(|part| scope.spawn(move || read_files(part))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    for part in parts {
        set.absorb(part);
    }
    set
}

fn read_files(paths: &[PathBuf]) -> ResultSet {
    let mut set = ResultSet::default();
    for path in paths {
        set.files_read += 1;
        match read_file(path) {
            Ok(parsed) => set.absorb(parsed),
            Err(message) => set.warnings.push(LoadWarning { path: path.clone(), message }),
        }
    }
    set
}

fn collect_json_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read directory: {e}"))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("cannot list directory: {e}"))?.path();
        if path.is_dir() {
            collect_json_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

/// Read one result file; `Err` is the warning text.
pub fn read_file(path: &Path) -> Result<ResultSet, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let (value, trailing) = first_json_value(&text)?;
    let mut set = shapes::interpret(path, &value)?;
    if trailing {
        let message = "trailing data after the first JSON value was ignored".to_string();
        set.warnings.push(LoadWarning { path: path.to_path_buf(), message });
    }
    Ok(set)
}

/// The first JSON value of `text`, and whether anything but whitespace follows it.
fn first_json_value(text: &str) -> Result<(Value, bool), String> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) => return Err(format!("invalid JSON: {e}")),
        None => return Err("empty file".into()),
    };
    let trailing = !text[stream.byte_offset()..].trim().is_empty();
    Ok((value, trailing))
}
