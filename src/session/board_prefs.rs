//! `<workspace>/board.json`: sort, view, filter, agent and selection, written when the board
//! closes and read at the next start. Only view preferences live here; a file that cannot be
//! read is a warning and the board starts as new.

use crate::app::BoardPrefs;
use std::path::{Path, PathBuf};

fn path(workspace: &Path) -> PathBuf {
    workspace.join("board.json")
}

/// What is wrong with the file: the board starts with its defaults.
#[derive(Debug, thiserror::Error)]
pub enum PrefsError {
    #[error("{}: {source}; the board starts with its defaults", path.display())]
    Unreadable { path: PathBuf, source: std::io::Error },
    #[error("{}: {source}; the board starts with its defaults", path.display())]
    Invalid { path: PathBuf, source: serde_json::Error },
}

/// The board as it was left.
pub fn load(workspace: &Path) -> Result<Option<BoardPrefs>, PrefsError> {
    let path = path(workspace);
    match crate::files::read_regular(&path, 1 << 20) {
        Ok(bytes) => {
            serde_json::from_slice(&bytes).map(Some).map_err(|source| PrefsError::Invalid { path, source })
        }
        Err(e) if e.is_missing() => Ok(None),
        Err(crate::files::RegularError::Io { source, .. }) => Err(PrefsError::Unreadable { path, source }),
        Err(_) => {
            let source = std::io::Error::other("not a regular file of at most 1 MiB");
            Err(PrefsError::Unreadable { path, source })
        }
    }
}

pub fn save(workspace: &Path, prefs: &BoardPrefs) -> std::io::Result<()> {
    let bytes = serde_json::to_vec_pretty(prefs).map_err(std::io::Error::other)?;
    crate::files::write(&path(workspace), &bytes)
}
