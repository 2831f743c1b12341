//! Reading ISO-Bench result files (per-role, Modal, Docker 3-way reruns, legacy flat files).
//! Lenient: trailing garbage after the first JSON value is accepted; anything else that cannot be
//! read becomes a warning naming the file. Never a panic, never a silently skipped `.json` file.

use crate::ids::Short;

mod bounded;
mod find;
mod key;
mod modal;
mod parts;
mod role;
mod shapes;
mod stamp;
mod walk;

pub use find::{Found, FoundFile, find};
pub use key::{FileKey, nanos};
pub use stamp::{Stamp, exact as exact_stamp};
pub use walk::{read_dirs, stream};

use super::{Outcome, RunStatus, Variant};
use crate::classify::{Classifier, Verdict, Warning};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One variant's outcome read from a result file, whatever the file's shape. Serialized only
/// digested (without its texts), for the digest cache.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    pub short: Short,
    pub variant: Variant,
    /// The agent of the run the record belongs to (named by its `omniperf_results_3way_<agent>`
    /// folder); `None` where nothing says.
    pub agent: Option<String>,
    pub outcome: Outcome,
    /// The record's own time; `None` when its file gives none.
    #[serde(with = "stamp::exact")]
    pub at: Option<Stamp>,
    /// Every text that can carry the root cause, named by the field (or file) it came from.
    #[serde(skip)]
    pub texts: Vec<TextField>,
    /// Why the record cannot stand for its variant (a check on a stand-in model, say): it is
    /// listed with the commit but decides nothing.
    pub not_comparable: Option<String>,
    /// The classification a run of ours recorded (category, evidence): it stands where the text
    /// it kept no longer shows the failure (a failed pull leaves no output).
    pub own_category: Option<(String, String)>,
    /// The validity gate a record that said "success" failed: it is an `invalid_measurement`.
    pub invalid: Option<crate::metrics::gates::GateFailure>,
}

/// A record whose text was classified and then dropped: what a reading thread hands the join, so
/// no record's text outlives its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Digested {
    pub record: ResultRecord,
    /// The failure's classification (none for a success).
    pub verdict: Option<Verdict>,
    /// What rules matched in a record that measured.
    pub warnings: Vec<Warning>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TextField {
    pub field: String,
    pub text: String,
}

impl ResultRecord {
    /// Classify the record's text and drop it. A record that cannot stand for its variant is
    /// not classified: it only becomes a note.
    pub fn digest(mut self, classifier: &Classifier) -> Digested {
        let (mut verdict, mut warnings) = (None, Vec::new());
        if self.not_comparable.is_none() {
            let failed = self.outcome.status != RunStatus::Success;
            verdict = failed.then(|| self.classify(classifier)).flatten();
            warnings = self.warnings(classifier);
        }
        self.texts = Vec::new();
        Digested { record: self, verdict, warnings }
    }

    /// All of the record's text, field after field.
    pub fn text(&self) -> String {
        self.texts.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join("\n")
    }

    /// Whether the record succeeded and measured numbers: then nothing in its text is its failure.
    pub fn measured(&self) -> bool {
        self.outcome.status == RunStatus::Success && !self.outcome.metrics.is_empty()
    }

    /// Classify all of the record's text; the verdict names the field its evidence came from,
    /// with the line number inside that field. A record that measured has none.
    pub fn classify(&self, classifier: &Classifier) -> Option<Verdict> {
        if let Some(failure) = &self.invalid {
            return failure.verdict(classifier);
        }
        if self.measured() {
            return None;
        }
        let Some(mut verdict) = classifier.classify_bare(&self.text()) else {
            let (category, evidence) = self.own_category.as_ref()?;
            return classifier.named(category, evidence);
        };
        let mut first_line = 1;
        for t in &self.texts {
            let lines = t.text.matches('\n').count() + 1;
            if verdict.line < first_line + lines {
                verdict.field = Some(t.field.clone());
                verdict.line -= first_line - 1;
                verdict.context = crate::classify::Context::around(&t.text, verdict.line);
                break;
            }
            first_line += lines;
        }
        Some(verdict)
    }

    /// What rules matched in the text of a record that measured: the first line of each rule,
    /// in priority order, with its field. Empty for any other record (its text is classified).
    pub fn warnings(&self, classifier: &Classifier) -> Vec<Warning> {
        if !self.measured() {
            return Vec::new();
        }
        let mut out: Vec<Warning> = Vec::new();
        for t in &self.texts {
            for mut w in classifier.warnings(&t.text) {
                if out.iter().all(|o| o.rule != w.rule) {
                    w.field = Some(t.field.clone());
                    out.push(w);
                }
            }
        }
        out
    }
}

/// Put a record that says "success" through the validity gates: failing one makes it an error.
fn gate(record: &mut ResultRecord) {
    if record.outcome.status != RunStatus::Success {
        return;
    }
    let limits = crate::metrics::gates::configured();
    let texts: Vec<&str> = record.texts.iter().map(|t| t.text.as_str()).collect();
    let scan = crate::metrics::gates::Scan::of(&texts);
    // One token a request: TPOT and ITL printed as 0.00 are undefined, not measured.
    crate::metrics::gates::drop_undefined(&scan, &mut record.outcome.metrics);
    if let Some(failure) = crate::metrics::gates::check_scanned(&scan, &record.outcome.metrics, &limits) {
        record.outcome.status = RunStatus::Error;
        record.outcome.error = Some(failure.to_string());
        record.invalid = Some(failure);
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadWarning {
    pub path: PathBuf,
    pub message: String,
}

/// A file whose reading panicked (a bug of ours) is named with this.
pub const READ_PANICKED: &str = "reading it failed (a bug: please report it)";

impl LoadWarning {
    pub fn at(path: &Path, message: impl Into<String>) -> LoadWarning {
        LoadWarning { path: path.to_path_buf(), message: message.into() }
    }
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

/// Why a result file gave no records (the warning names the file).
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read: {0}")]
    Unreadable(#[from] std::io::Error),
    #[error("invalid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("empty file")]
    Empty,
    #[error("unknown shape: the top-level JSON value is not an object")]
    NotAnObject,
    #[error("{0} without a commit hash")]
    NoCommit(&'static str),
    #[error("unknown shape (keys: {0})")]
    UnknownShape(String),
}

/// Read one result file.
pub fn read_file(path: &Path) -> Result<ResultSet, ReadError> {
    let (text, cut) = read_text(path)?;
    let (mut value, trailing) = first_json_value(&text)?;
    drop(text);
    crate::logs::Redactor::process().json(&mut value);
    let mut set = shapes::interpret(path, &value)?;
    set.records.iter_mut().for_each(gate);
    for lost in cut {
        let message =
            format!("a text field's middle ({lost} bytes) was not read: the file is over the bound");
        set.warnings.push(LoadWarning::at(path, message));
    }
    if trailing {
        let message = "trailing data after the first JSON value was ignored";
        set.warnings.push(LoadWarning::at(path, message));
    }
    Ok(set)
}

/// A result file's text, and the lengths of the strings cut from it where it is over the bound;
/// opened and sized once (a file of thousands is read with two calls besides its open).
fn read_text(path: &Path) -> std::io::Result<(String, Vec<u64>)> {
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len > bounded::WHOLE_UP_TO {
        let read = bounded::read(file)?;
        return Ok((read.text, read.cut));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0).saturating_add(1));
    // Through `take`: a `File`'s own `read_to_end` asks the size again (fstat and lseek).
    std::io::Read::read_to_end(&mut std::io::Read::take(file, u64::MAX), &mut bytes)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8")
    })?;
    Ok((text, Vec::new()))
}

/// The first JSON value of `text`, and whether anything but whitespace follows it.
fn first_json_value(text: &str) -> Result<(Value, bool), ReadError> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = stream.next().ok_or(ReadError::Empty)??;
    let trailing = !text[stream.byte_offset()..].trim().is_empty();
    Ok((value, trailing))
}
