//! Finding every result file below some folders, with each file's key: a root's subfolders are
//! walked on every core (stat'ing 30,000 files on one thread held every reader up), then the
//! files are sorted as paths sort.

use super::{FileKey, LoadWarning};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The result files below some folders, sorted, and what could not be listed.
#[derive(Debug, Default)]
pub struct Found {
    pub files: Vec<FoundFile>,
    pub warnings: Vec<LoadWarning>,
}

/// A result file, and its key where it could be read as it was found.
#[derive(Debug, Clone)]
pub struct FoundFile {
    pub path: PathBuf,
    pub key: Option<FileKey>,
}

/// Every `*.json` under the given directories (recursively), sorted; a file reached twice (by a
/// link, or a hard link) is listed once, by its first path.
pub fn find(dirs: &[PathBuf]) -> Found {
    let mut walk = Walk::default();
    for dir in dirs {
        walk.root(dir);
    }
    walk.files.sort_by_cached_key(|(f, _)| order_key(&f.path));
    let mut once = HashSet::new();
    let files = walk.files.into_iter().filter(|(_, id)| once.insert(*id)).map(|(f, _)| f).collect();
    Found { files, warnings: walk.warnings }
}

/// Every `*.json` below some folders. Links are followed, but each folder and file (by device and
/// inode) is visited once on a walk, so a link cycle ends; an entry that cannot be read is a
/// warning naming it, and the walk goes on with the rest. A file is stat'ed by its folder's
/// descriptor, not by its whole path.
#[derive(Default)]
struct Walk {
    /// Each file and its device and inode.
    files: Vec<(FoundFile, (u64, u64))>,
    warnings: Vec<LoadWarning>,
    seen: HashSet<(u64, u64)>,
    /// Subfolders left for later (a root's, walked on every core), where they are.
    deferred: Option<Vec<PathBuf>>,
}

impl Walk {
    /// A root folder: its own entries here, each subfolder on a walk of its own, on every core.
    fn root(&mut self, dir: &Path) {
        use rayon::prelude::*;
        self.deferred = Some(Vec::new());
        self.folder(dir);
        let subfolders = self.deferred.take().unwrap_or_default();
        let seen = &self.seen;
        let walks: Vec<Walk> = subfolders
            .par_iter()
            .map(|sub| {
                let mut walk = Walk { seen: seen.clone(), ..Walk::default() };
                walk.folder(sub);
                walk
            })
            .collect();
        for walk in walks {
            self.files.extend(walk.files);
            self.warnings.extend(walk.warnings);
            self.seen.extend(walk.seen);
        }
    }

    fn folder(&mut self, dir: &Path) {
        use std::os::unix::fs::MetadataExt;
        let device = match std::fs::metadata(dir) {
            Ok(meta) if self.seen.insert((meta.dev(), meta.ino())) => meta.dev(),
            Ok(_) => return,
            Err(e) => return self.warn(dir, format!("cannot read directory: {e}")),
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => return self.warn(dir, format!("cannot read directory: {e}")),
        };
        for entry in entries {
            match entry {
                Ok(entry) => self.entry(&entry, device),
                Err(e) => self.warn(dir, format!("cannot list an entry: {e}")),
            }
        }
    }

    fn entry(&mut self, entry: &std::fs::DirEntry, device: u64) {
        use std::os::unix::fs::DirEntryExt;
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => match self.deferred.as_mut() {
                Some(later) => later.push(path),
                None => self.folder(&path),
            },
            Ok(kind) if kind.is_file() => {
                let id = (device, entry.ino());
                if is_json(&path) && self.seen.insert(id) {
                    let key = entry.metadata().ok().map(|meta| FileKey::of(&meta));
                    self.files.push((FoundFile { path, key }, id));
                }
            }
            Ok(_) => self.linked(&path),
            Err(e) => self.warn(&path, format!("cannot read: {e}")),
        }
    }

    /// A link (or anything else): what it leads to.
    fn linked(&mut self, path: &Path) {
        use std::os::unix::fs::MetadataExt;
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => self.folder(path),
            Ok(meta) if meta.is_file() && is_json(path) && self.seen.insert((meta.dev(), meta.ino())) => {
                let found = FoundFile { path: path.to_path_buf(), key: Some(FileKey::of(&meta)) };
                self.files.push((found, (meta.dev(), meta.ino())));
            }
            Ok(_) => {}
            Err(e) => self.warn(path, format!("cannot read: {e}")),
        }
    }

    fn warn(&mut self, path: &Path, message: String) {
        self.warnings.push(LoadWarning::at(path, message));
    }
}

/// Bytes that sort as `Path`s do, component by component (a separator below any other byte):
/// comparing them is a `memcmp`, where comparing paths splits both into components every time.
fn order_key(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut key = Vec::with_capacity(path.as_os_str().len());
    for (i, part) in path.components().enumerate() {
        if i > 0 {
            key.push(0);
        }
        key.extend_from_slice(part.as_os_str().as_bytes());
    }
    key
}

fn is_json(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_sort_as_their_paths_do() {
        let names = ["a/x", "a-b/x", "a.b", "a/b/c", "a/b-c", "/r/a", "b", "a/", "ab/x", "a\u{e9}/x"];
        let mut by_path: Vec<&Path> = names.iter().map(Path::new).collect();
        let mut by_key = by_path.clone();
        by_path.sort();
        by_key.sort_by_cached_key(|p| order_key(p));
        assert_eq!(by_key, by_path);
    }
}
