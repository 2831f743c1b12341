//! Reading the result files found on all cores a chunk at a time, handed on in file order as
//! they come: a reader never holds more than a few chunks.

use super::{FoundFile, LoadWarning, ResultSet, find, read_file};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Files a reading thread takes at a time.
const CHUNK: usize = 256;

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
        warnings: files.iter().map(|f| LoadWarning::at(&f.path, super::READ_PANICKED)).collect(),
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
            Err(why) => set.warnings.push(LoadWarning::at(path, why.to_string())),
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

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
