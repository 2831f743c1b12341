//! Finding and reading every result file below some folders, on all cores.

use super::{LoadWarning, ResultSet, read_file};
use std::path::{Path, PathBuf};

/// Read every `*.json` under the given directories (recursively), on all cores.
pub fn read_dirs(dirs: &[PathBuf]) -> ResultSet {
    let mut set = ResultSet::default();
    let mut walk = Walk::default();
    for dir in dirs {
        walk.folder(dir);
    }
    set.warnings.append(&mut walk.warnings);
    let mut files = walk.files;
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
            Err(why) => set.warnings.push(LoadWarning { path: path.clone(), message: why.to_string() }),
        }
    }
    set
}

/// Every `*.json` below some folders. Links are followed, but each folder and file (by device and
/// inode) is visited once, so a link cycle ends; an entry that cannot be read is a warning naming
/// it, and the walk goes on with the rest.
#[derive(Default)]
struct Walk {
    files: Vec<PathBuf>,
    warnings: Vec<LoadWarning>,
    seen: std::collections::HashSet<(u64, u64)>,
}

impl Walk {
    fn folder(&mut self, dir: &Path) {
        if !self.first_visit(dir) {
            return;
        }
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => return self.warn(dir, format!("cannot read directory: {e}")),
        };
        for entry in entries {
            match entry {
                Ok(entry) => self.entry(&entry.path()),
                Err(e) => self.warn(dir, format!("cannot list an entry: {e}")),
            }
        }
    }

    fn entry(&mut self, path: &Path) {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => self.folder(path),
            Ok(_) if path.extension().is_some_and(|e| e == "json") && self.first_visit(path) => {
                self.files.push(path.to_path_buf());
            }
            Ok(_) => {}
            Err(e) => self.warn(path, format!("cannot read: {e}")),
        }
    }

    fn first_visit(&mut self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).map(|m| self.seen.insert((m.dev(), m.ino()))).unwrap_or(true)
    }

    fn warn(&mut self, path: &Path, message: String) {
        self.warnings.push(LoadWarning { path: path.to_path_buf(), message });
    }
}
