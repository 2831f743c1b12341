//! Finding every result file below some folders, and reading them on all cores a chunk at a
//! time, handed on in file order as they come: a reader never holds more than a few chunks.

use super::{FileKey, LoadWarning, ResultSet, read_file};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Files a reading thread takes at a time.
const CHUNK: usize = 256;

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

/// Every `*.json` under the given directories (recursively), sorted.
pub fn find(dirs: &[PathBuf]) -> Found {
    let mut walk = Walk::default();
    for dir in dirs {
        walk.folder(dir);
    }
    walk.files.sort_by_cached_key(|f| order_key(&f.path));
    Found { files: walk.files, warnings: walk.warnings }
}

/// Read every `*.json` under the given directories into one set, in file order.
pub fn read_dirs(dirs: &[PathBuf]) -> ResultSet {
    let found = find(dirs);
    let mut set = ResultSet { warnings: found.warnings, ..ResultSet::default() };
    stream(&found.files, &read_chunk, &mut |part, _| set.absorb(part));
    set
}

/// Read `files` on all cores, `CHUNK` at a time: each chunk is `read` on a reading thread, and
/// handed to `on_part` on this one, in file order, with the number of files read so far.
pub fn stream<T: Send>(
    files: &[FoundFile],
    read: &(dyn Fn(&[FoundFile]) -> T + Sync),
    on_part: &mut dyn FnMut(T, usize),
) {
    let chunks: Vec<&[FoundFile]> = files.chunks(CHUNK).collect();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(chunks.len()).max(1);
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, T)>(workers * 2);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (tx, next, chunks) = (tx.clone(), &next, &chunks);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(part) = chunks.get(index) else { break };
                    if tx.send((index, read(part))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        in_order(rx, files.len(), on_part);
    });
}

/// Hand chunks on in their order, holding those that came early.
fn in_order<T>(rx: std::sync::mpsc::Receiver<(usize, T)>, total: usize, on_part: &mut dyn FnMut(T, usize)) {
    let mut early = BTreeMap::new();
    let mut due = 0;
    for (index, part) in rx {
        early.insert(index, part);
        while let Some(part) = early.remove(&due) {
            due += 1;
            on_part(part, (due * CHUNK).min(total));
        }
    }
}

/// One chunk's files; a panic while reading them (a bug of ours) is a warning per file.
fn read_chunk(files: &[FoundFile]) -> ResultSet {
    std::panic::catch_unwind(|| read_files(files)).unwrap_or_else(|_| ResultSet {
        warnings: files
            .iter()
            .map(|f| warning(&f.path, "reading it failed (a bug: please report it)"))
            .collect(),
        files_read: files.len(),
        ..ResultSet::default()
    })
}

fn read_files(files: &[FoundFile]) -> ResultSet {
    let mut set = ResultSet::default();
    for FoundFile { path, .. } in files {
        set.files_read += 1;
        match read_file(path) {
            Ok(parsed) => set.absorb(parsed),
            Err(why) => set.warnings.push(warning(path, &why.to_string())),
        }
    }
    set
}

fn warning(path: &Path, message: &str) -> LoadWarning {
    LoadWarning { path: path.to_path_buf(), message: message.to_string() }
}

/// Every `*.json` below some folders. Links are followed, but each folder and file (by device and
/// inode) is visited once, so a link cycle ends; an entry that cannot be read is a warning naming
/// it, and the walk goes on with the rest. A plain file is known by its directory entry: no call
/// per file beyond listing its folder.
#[derive(Default)]
struct Walk {
    files: Vec<FoundFile>,
    warnings: Vec<LoadWarning>,
    seen: std::collections::HashSet<(u64, u64)>,
}

impl Walk {
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
            Ok(kind) if kind.is_dir() => self.folder(&path),
            Ok(kind) if kind.is_file() => {
                if is_json(&path) && self.seen.insert((device, entry.ino())) {
                    // By the folder's descriptor: cheaper than by the whole path later.
                    let key = entry.metadata().ok().map(|meta| FileKey::of(&meta));
                    self.files.push(FoundFile { path, key });
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
                self.files.push(FoundFile { path: path.to_path_buf(), key: Some(FileKey::of(&meta)) });
            }
            Ok(_) => {}
            Err(e) => self.warn(path, format!("cannot read: {e}")),
        }
    }

    fn warn(&mut self, path: &Path, message: String) {
        self.warnings.push(LoadWarning { path: path.to_path_buf(), message });
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

    #[test]
    fn chunks_that_come_early_wait_for_their_turn() {
        let (tx, rx) = std::sync::mpsc::sync_channel(8);
        for index in [2, 0, 3, 1] {
            tx.send((index, index)).unwrap();
        }
        drop(tx);
        let mut got = Vec::new();
        in_order(rx, 4 * CHUNK - 10, &mut |part, read| got.push((part, read)));
        assert_eq!(got, [(0, CHUNK), (1, 2 * CHUNK), (2, 3 * CHUNK), (3, 4 * CHUNK - 10)]);
    }
}
