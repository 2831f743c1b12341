//! The joined cache, `<workspace>/cache/joined.jsonl`: the entries and warnings a headless load
//! made, so a load whose inputs are all as they were reads them back in one pass instead of
//! parsing the dataset, reading each file's digest and joining them again. Valid only for the
//! binary, gates and secrets that wrote it (the digest cache's fingerprint), the same dataset
//! file (path, size, times, inode) and the very same result files (each one's path, size, times
//! and inode, in order, hashed). Anything else makes a fresh load; a cache that cannot be read
//! says so, and is written again.

use super::Entry;
use super::results::{FileKey, Found};
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

const FORMAT: u32 = 1;

/// Entries serialized at a time, on every core, before they are written.
const WRITE_ROUND: usize = 4096;

/// A workspace's joined cache.
pub fn path_in(workspace: &Path) -> PathBuf {
    workspace.join("cache").join("joined.jsonl")
}

/// Where a dataset came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DatasetKey {
    /// The compiled-in dataset: the binary's fingerprint covers it.
    Embedded,
    File {
        path: String,
        key: FileKey,
    },
}

impl DatasetKey {
    /// A dataset file's key, stat'ed before it is read (a change after that is seen next time);
    /// `None` for a path that is not UTF-8 or a file that cannot be stat'ed.
    pub fn of(path: &Path) -> Option<DatasetKey> {
        let key = FileKey::of(&std::fs::metadata(path).ok()?);
        Some(DatasetKey::File { path: path.to_str()?.to_string(), key })
    }

    fn settled(&self, settle: std::time::Duration) -> bool {
        match self {
            DatasetKey::Embedded => true,
            DatasetKey::File { key, .. } => key.settled(settle),
        }
    }
}

/// Everything a load's entries depend on: the cache's first line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inputs {
    perftriage_joined: u32,
    fingerprint: String,
    dataset: DatasetKey,
    /// The result files found: how many, and a 128-bit hash of their paths and keys in order.
    files: usize,
    results: String,
}

impl Inputs {
    /// `None` where no cache can be trusted: the binary not found, a walk that warned (a folder
    /// it could not list may be readable next time), a file not stat'ed.
    pub fn of(dataset: DatasetKey, found: &Found) -> Option<Inputs> {
        if !found.warnings.is_empty() {
            return None;
        }
        let mut hashers = (std::hash::DefaultHasher::new(), std::hash::DefaultHasher::new());
        1u8.hash(&mut hashers.1);
        for file in &found.files {
            let key = file.key.as_ref()?;
            (file.path.as_os_str(), key).hash(&mut hashers.0);
            (file.path.as_os_str(), key).hash(&mut hashers.1);
        }
        let results = format!("{:016x}{:016x}", hashers.0.finish(), hashers.1.finish());
        let fingerprint = super::digests::fingerprint()?;
        Some(Inputs { perftriage_joined: FORMAT, fingerprint, dataset, files: found.files.len(), results })
    }

    pub fn files(&self) -> usize {
        self.files
    }
}

/// The cache's second line: how many entries follow, and the load's warnings.
#[derive(Serialize, Deserialize)]
struct Contents {
    entries: usize,
    warnings: Vec<String>,
}

/// A load's outcome: its entries, and its warnings in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Joined {
    pub entries: Vec<Entry>,
    pub warnings: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum JoinedError {
    #[error("{path}: cannot read the joined cache ({source}); rebuilt")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}:{line}: a joined cache line that cannot be read ({source}); rebuilt")]
    Line { path: PathBuf, line: usize, source: serde_json::Error },
    #[error("{path}: a joined cache cut short ({found} of its {count} entries); rebuilt")]
    Short { path: PathBuf, count: usize, found: usize },
}

/// The fewest bytes an entry's line takes (its field names alone take more): what a corrupt
/// count may reserve room for.
const LEAST_ENTRY_BYTES: u64 = 64;

/// Lines read at a time, then parsed on every core (never the whole cache in memory: an entry
/// of months of re-runs lists hundreds of kilobytes of replaced records): at most this many, and
/// no more once they hold `READ_ROUND_BYTES`.
const READ_ROUND: usize = 1024;
const READ_ROUND_BYTES: usize = 4 << 20;

/// A cache found for the inputs of a load, its header read.
pub struct Opened {
    path: PathBuf,
    /// The file's length in bytes.
    len: u64,
    reader: BufReader<std::fs::File>,
    /// The number of the last line read.
    number: usize,
}

/// The cache at `path`, if it was written for `inputs` (none, or one for other inputs: `None`).
pub fn open(path: &Path, inputs: &Inputs) -> Result<Option<Opened>, JoinedError> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(JoinedError::Read { path: path.to_path_buf(), source }),
    };
    let len = file.metadata().map_err(|source| JoinedError::Read { path: path.to_path_buf(), source })?.len();
    let reader = BufReader::with_capacity(1 << 20, file);
    let mut opened = Opened { path: path.to_path_buf(), len, reader, number: 0 };
    let header: Inputs = opened.line()?;
    Ok((header == *inputs).then_some(opened))
}

impl Opened {
    /// Its warnings and entries.
    pub fn read(mut self) -> Result<Joined, JoinedError> {
        let Contents { entries: count, warnings } = self.line()?;
        // Room for them all at once (an entry is over a kilobyte before its strings), but no more
        // than the file could hold.
        let room = usize::try_from(self.len / LEAST_ENTRY_BYTES).unwrap_or(usize::MAX);
        let mut entries = Vec::with_capacity(count.min(room));
        let mut lines = Vec::new();
        loop {
            let first = self.number + 1;
            let more = self.lines(&mut lines)?;
            entries.extend(parse(&lines, first).map_err(|(line, source)| self.bad(line, source))?);
            if !more {
                break;
            }
        }
        if entries.len() != count {
            return Err(JoinedError::Short { path: self.path, count, found: entries.len() });
        }
        Ok(Joined { entries, warnings })
    }

    /// The next line as a `T`.
    fn line<T: serde::de::DeserializeOwned>(&mut self) -> Result<T, JoinedError> {
        let mut line = Vec::new();
        self.read_line(&mut line)?;
        serde_json::from_slice(&line).map_err(|e| self.bad(self.number, e))
    }

    /// The next round of lines into `lines`; whether there may be more.
    fn lines(&mut self, lines: &mut Vec<Vec<u8>>) -> Result<bool, JoinedError> {
        lines.clear();
        let mut bytes = 0;
        while lines.len() < READ_ROUND && bytes < READ_ROUND_BYTES {
            let mut line = Vec::new();
            if !self.read_line(&mut line)? {
                return Ok(false);
            }
            bytes += line.len();
            lines.push(line);
        }
        Ok(true)
    }

    /// The next line, without its newline; `false` at the end.
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<bool, JoinedError> {
        let read = self.reader.read_until(b'\n', line);
        let read = read.map_err(|source| JoinedError::Read { path: self.path.clone(), source })?;
        self.number += 1;
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        Ok(read > 0)
    }

    fn bad(&self, line: usize, source: serde_json::Error) -> JoinedError {
        JoinedError::Line { path: self.path.clone(), line, source }
    }
}

/// The entries of lines numbered from `first`, read on every core; the first that does not
/// read, by number.
fn parse(lines: &[Vec<u8>], first: usize) -> Result<Vec<Entry>, (usize, serde_json::Error)> {
    use rayon::prelude::*;
    let numbered = lines.par_iter().zip(first..first + lines.len());
    numbered.map(|(line, number)| serde_json::from_slice(line).map_err(|e| (number, e))).collect()
}

/// Whether `joined` may be cached: its dataset file last changed `settle` ago or more (its result
/// files' are the load's to say), and every number in it spells in JSON.
pub fn cacheable(inputs: &Inputs, joined: &Joined, settle: std::time::Duration) -> bool {
    inputs.dataset.settled(settle) && joined.entries.iter().all(Entry::finite)
}

/// Write the cache for `inputs` (to a temporary file renamed over the old one); one that
/// cannot be written is logged and made again next time.
pub fn write(path: &Path, inputs: &Inputs, joined: &Joined) {
    let tmp = path.with_extension(format!("jsonl.{}.tmp", std::process::id()));
    let written = write_to(&tmp, inputs, joined).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        log::warn!("{}: the joined cache was not written: {e}", path.display());
        let _ = std::fs::remove_file(&tmp);
    }
}

fn write_to(tmp: &Path, inputs: &Inputs, joined: &Joined) -> std::io::Result<()> {
    use rayon::prelude::*;
    let mut out = BufWriter::with_capacity(1 << 20, crate::files::create(tmp)?);
    serde_json::to_writer(&mut out, inputs)?;
    out.write_all(b"\n")?;
    let contents = Contents { entries: joined.entries.len(), warnings: joined.warnings.clone() };
    serde_json::to_writer(&mut out, &contents)?;
    out.write_all(b"\n")?;
    for round in joined.entries.chunks(WRITE_ROUND) {
        let lines: Vec<std::io::Result<Vec<u8>>> = round.par_chunks(WRITE_ROUND / 16).map(lines_of).collect();
        for lines in lines {
            out.write_all(&lines?)?;
        }
    }
    out.flush()
}

/// A JSON line per entry.
fn lines_of(entries: &[Entry]) -> std::io::Result<Vec<u8>> {
    let mut lines = Vec::new();
    for entry in entries {
        serde_json::to_writer(&mut lines, entry)?;
        lines.push(b'\n');
    }
    Ok(lines)
}
