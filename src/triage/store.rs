//! `triage.json` in the workspace: atomic writes (temp file, fsync, rename, fsync dir), tolerant loads
//! (a corrupt or unreadable file is moved aside under a name of its own, never deleted or replaced),
//! and an OS lock on the workspace folder itself (released when the process dies; deleting a file
//! cannot undo it) so two instances cannot clobber it.

use super::{SCHEMA_VERSION, TriageBook};
use std::fs::File;
use std::path::{Path, PathBuf};

const FILE: &str = "triage.json";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot use workspace {path}: {source}")]
    Workspace { path: PathBuf, source: std::io::Error },
    #[error("workspace {path} is in use by another perftriage (it holds the folder's lock); close it first")]
    Locked { path: PathBuf },
    #[error("cannot save {path}: {source} (the previous file is untouched)")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("this board is read-only: another perftriage holds the workspace lock")]
    ReadOnly,
    #[error(
        "{path} could not be read or moved aside ({why}); not saving over it — fix or move it, then restart"
    )]
    Unreadable { path: PathBuf, why: String },
}

/// What loading found, for the operator.
#[derive(Debug, Default, PartialEq)]
pub struct LoadReport {
    pub messages: Vec<String>,
}

#[derive(Debug)]
pub struct TriageStore {
    dir: PathBuf,
    /// The workspace folder, locked for the store's life; `None` means read-only.
    lock: Option<File>,
    /// Why saving would destroy a file that could not be read or moved aside.
    blocked: std::sync::Mutex<Option<String>>,
}

/// A book of every commit of a 10,000-commit dataset with long histories is a few MB.
const MAX_BOOK: u64 = 256 << 20;

impl TriageStore {
    /// Open the workspace for writing; fails with `Locked` when another instance holds it.
    pub fn open(dir: &Path) -> Result<TriageStore, StoreError> {
        let workspace = |source| StoreError::Workspace { path: dir.into(), source };
        crate::files::private_dir(dir).map_err(workspace)?;
        let folder = File::open(dir).map_err(workspace)?;
        match folder.try_lock() {
            Ok(()) => Ok(TriageStore { dir: dir.into(), lock: Some(folder), blocked: Default::default() }),
            Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::Locked { path: dir.into() }),
            Err(std::fs::TryLockError::Error(source)) => Err(workspace(source)),
        }
    }

    /// Open for writing, waiting up to `patience` for another instance to let go of the lock.
    pub fn open_waiting(dir: &Path, patience: std::time::Duration) -> Result<TriageStore, StoreError> {
        let deadline = std::time::Instant::now() + patience;
        loop {
            match TriageStore::open(dir) {
                Err(StoreError::Locked { .. }) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                other => return other,
            }
        }
    }

    /// Open without the lock: loads work, saves are refused.
    pub fn open_read_only(dir: &Path) -> TriageStore {
        TriageStore { dir: dir.into(), lock: None, blocked: Default::default() }
    }

    pub fn is_read_only(&self) -> bool {
        self.lock.is_none()
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(FILE)
    }

    /// Load the book. A missing file is an empty book; one that cannot be read or parsed is moved
    /// aside (when writable) and reported, and work continues from an empty book. If it can be
    /// neither read nor moved, saving is refused rather than replacing it.
    pub fn load(&self, now_compact: &str) -> (TriageBook, LoadReport) {
        let path = self.path();
        let mut report = LoadReport::default();
        // Opened only as a regular file (a FIFO is never waited on), under a bound.
        let problem = match crate::files::read_regular(&path, MAX_BOOK) {
            Err(e) if e.is_missing() => return (TriageBook::new(), report),
            Err(crate::files::RegularError::Io { source, .. }) => BookError::Unreadable(source).to_string(),
            Err(crate::files::RegularError::NotRegular { .. }) => {
                "unreadable: not a regular file (a folder, a symlink, a FIFO?)".to_string()
            }
            Err(crate::files::RegularError::TooBig { max, .. }) => format!("over {max} bytes"),
            Ok(bytes) => match parse(&bytes) {
                Ok(book) => return (book, report),
                Err(problem) => problem.to_string(),
            },
        };
        let moved = self.move_aside(&path, now_compact, &problem);
        report
            .messages
            .push(format!("{} is {problem}; it was {moved}; starting with no triage marks", path.display()));
        (TriageBook::new(), report)
    }

    /// Move an unusable file to `triage.json.corrupt-<time>[-N]`, a name no earlier copy has.
    fn move_aside(&self, path: &Path, now_compact: &str, problem: &str) -> String {
        if self.is_read_only() {
            return "left in place (opened read-only)".to_string();
        }
        let base = format!("{FILE}.corrupt-{now_compact}");
        let aside = (1..)
            .map(|n| if n == 1 { base.clone() } else { format!("{base}-{n}") })
            .map(|name| self.dir.join(name))
            .find(|p| !p.exists())
            .unwrap_or_else(|| self.dir.join(&base));
        match std::fs::rename(path, &aside) {
            Ok(()) => format!("moved aside to {}", aside.display()),
            Err(e) => {
                if let Ok(mut blocked) = self.blocked.lock() {
                    *blocked = Some(format!("{problem}; cannot move it aside: {e}"));
                }
                format!("left in place: it could not be moved aside ({e}), so nothing will be saved over it")
            }
        }
    }

    /// Write the book atomically — a crash leaves either the old or the new file, never a torn
    /// one — after taking in whatever the file on disk has that the book lacks.
    pub fn save(&self, book: &TriageBook) -> Result<(), StoreError> {
        if self.is_read_only() {
            return Err(StoreError::ReadOnly);
        }
        let path = self.path();
        if let Some(why) = self.blocked.lock().ok().and_then(|b| b.clone()) {
            return Err(StoreError::Unreadable { path, why });
        }
        let wrap = |source| StoreError::Write { path: path.clone(), source };
        let mut merged = book.clone();
        if let Ok(on_disk) = std::fs::read(&path).map_err(BookError::from).and_then(|b| parse(&b)) {
            merged.merge(&on_disk);
        }
        let json = serde_json::to_vec_pretty(&merged).map_err(|e| wrap(std::io::Error::other(e)))?;
        crate::files::write_atomic(&path, &json).map_err(wrap)
    }
}

/// What is wrong with a triage file's bytes (said as "<file> is <this>").
#[derive(Debug, thiserror::Error)]
enum BookError {
    #[error("unreadable ({0})")]
    Unreadable(#[from] std::io::Error),
    #[error("not UTF-8 text ({0})")]
    NotText(#[from] std::str::Utf8Error),
    #[error("corrupt: schema_version {0} is not {SCHEMA_VERSION}")]
    Schema(u32),
    #[error("corrupt: invalid JSON ({0})")]
    Json(#[from] serde_json::Error),
}

/// The book in a file's bytes, or what is wrong with them.
fn parse(bytes: &[u8]) -> Result<TriageBook, BookError> {
    let book = serde_json::from_str::<TriageBook>(std::str::from_utf8(bytes)?)?;
    if book.schema_version != SCHEMA_VERSION {
        return Err(BookError::Schema(book.schema_version));
    }
    Ok(book)
}
