//! `triage.json` in the workspace: atomic writes (temp file, fsync, rename, fsync dir), tolerant loads
//! (a corrupt file is moved aside, never deleted), and an exclusive lock so two instances cannot clobber it.

use super::{SCHEMA_VERSION, TriageBook};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

const FILE: &str = "triage.json";
const LOCK: &str = "perftriage.lock";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot use workspace {path}: {source}")]
    Workspace { path: PathBuf, source: std::io::Error },
    #[error("workspace {path} is in use by another perftriage (lock {lock}); close it first")]
    Locked { path: PathBuf, lock: PathBuf },
    #[error("cannot save {path}: {source} (the previous file is untouched)")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("this board is read-only: another perftriage holds the workspace lock")]
    ReadOnly,
}

/// What loading found, for the operator.
#[derive(Debug, Default, PartialEq)]
pub struct LoadReport {
    pub messages: Vec<String>,
}

#[derive(Debug)]
pub struct TriageStore {
    dir: PathBuf,
    /// Held for the store's life; `None` means read-only.
    lock: Option<File>,
}

impl TriageStore {
    /// Open the workspace for writing; fails with `Locked` when another instance holds it.
    pub fn open(dir: &Path) -> Result<TriageStore, StoreError> {
        let lock_path = dir.join(LOCK);
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Workspace { path: dir.into(), source })?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|source| StoreError::Workspace { path: lock_path.clone(), source })?;
        match file.try_lock() {
            Ok(()) => Ok(TriageStore { dir: dir.into(), lock: Some(file) }),
            Err(std::fs::TryLockError::WouldBlock) => {
                Err(StoreError::Locked { path: dir.into(), lock: lock_path })
            }
            Err(std::fs::TryLockError::Error(source)) => {
                Err(StoreError::Workspace { path: lock_path, source })
            }
        }
    }

    /// Open without the lock: loads work, saves are refused.
    pub fn open_read_only(dir: &Path) -> TriageStore {
        TriageStore { dir: dir.into(), lock: None }
    }

    pub fn is_read_only(&self) -> bool {
        self.lock.is_none()
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(FILE)
    }

    /// Load the book. A missing file is an empty book; a corrupt one is moved aside (when writable)
    /// and reported, and work continues from an empty book.
    pub fn load(&self, now_compact: &str) -> (TriageBook, LoadReport) {
        let path = self.path();
        let mut report = LoadReport::default();
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return (TriageBook::new(), report);
            }
            Err(e) => {
                report
                    .messages
                    .push(format!("cannot read {}: {e}; starting with no triage marks", path.display()));
                return (TriageBook::new(), report);
            }
        };
        let problem = match serde_json::from_str::<TriageBook>(&text) {
            Ok(book) if book.schema_version == SCHEMA_VERSION => return (book, report),
            Ok(book) => format!("schema_version {} is not {SCHEMA_VERSION}", book.schema_version),
            Err(e) => format!("invalid JSON ({e})"),
        };
        let moved = if self.is_read_only() {
            "left in place (opened read-only)".to_string()
        } else {
            let aside = self.dir.join(format!("{FILE}.corrupt-{now_compact}"));
            match std::fs::rename(&path, &aside) {
                Ok(()) => format!("moved aside to {}", aside.display()),
                Err(e) => format!("could not be moved aside ({e})"),
            }
        };
        report.messages.push(format!(
            "{} is corrupt: {problem}; it was {moved}; starting with no triage marks",
            path.display()
        ));
        (TriageBook::new(), report)
    }

    /// Write the whole book atomically: a crash leaves either the old or the new file, never a torn one.
    pub fn save(&self, book: &TriageBook) -> Result<(), StoreError> {
        if self.is_read_only() {
            return Err(StoreError::ReadOnly);
        }
        let path = self.path();
        let tmp = self.dir.join(format!("{FILE}.tmp"));
        let wrap = |source| StoreError::Write { path: path.clone(), source };
        let json = serde_json::to_vec_pretty(book).map_err(|e| wrap(std::io::Error::other(e)))?;
        let mut file = File::create(&tmp).map_err(wrap)?;
        file.write_all(&json).map_err(wrap)?;
        file.sync_all().map_err(wrap)?;
        drop(file);
        std::fs::rename(&tmp, &path).map_err(wrap)?;
        File::open(&self.dir).and_then(|d| d.sync_all()).map_err(wrap)?;
        Ok(())
    }
}
