//! The digest cache, `<workspace>/cache/digests.jsonl`: what each result file gave, its records
//! read, redacted and classified, keyed by the file's path, size, times and inode, so a file is
//! read again only when it changed. Valid only for the binary, gates and secrets that wrote it;
//! anything wrong with it makes it empty (and says so), never wrong.

mod index;
mod key;
mod next;

use super::results::{self, Digested, LoadWarning, ResultSet};
use super::results::{FileKey, FoundFile};
use crate::classify::{Classifier, Context};
use index::{Cached, Index};
use key::LineKey;
pub use key::fingerprint;
pub use next::NextCache;
use serde::{Deserialize, Serialize};
use std::io::BufRead;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Where a cache is, and how long ago a file must have last changed to be cached in it (one
/// changed more recently may change again within its clock's tick, unseen by its times).
#[derive(Debug, Clone, PartialEq)]
pub struct CacheFile {
    pub path: PathBuf,
    pub settle: std::time::Duration,
}

/// Two seconds: the coarsest clock of a file system in use (FAT).
pub const SETTLE: std::time::Duration = std::time::Duration::from_secs(2);

impl CacheFile {
    /// A workspace's cache file.
    pub fn path_in(workspace: &Path) -> PathBuf {
        workspace.join("cache").join("digests.jsonl")
    }
}

/// What one result file gave: its records digested, its notes and its warnings, in file order.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct FileDigest {
    pub records: Vec<Digested>,
    pub notes: Vec<(String, String)>,
    pub warnings: Vec<LoadWarning>,
}

impl FileDigest {
    pub fn of(set: ResultSet, classifier: &Classifier) -> FileDigest {
        let records = set.records.into_iter().map(|r| r.digest(classifier)).collect();
        FileDigest { records, notes: set.notes, warnings: set.warnings }
    }

    /// Each record's verdict's context, taken out (`None`: no verdict).
    fn take_contexts(&mut self) -> Vec<Option<Context>> {
        let verdicts = self.records.iter_mut().map(|r| r.verdict.as_mut());
        verdicts.map(|v| v.map(|v| std::mem::take(&mut v.context))).collect()
    }

    /// Put back contexts `take_contexts` took (a record without a verdict takes none).
    fn put_contexts(&mut self, contexts: Vec<Option<Context>>) {
        for (record, context) in self.records.iter_mut().zip(contexts) {
            if let (Some(verdict), Some(context)) = (record.verdict.as_mut(), context) {
                verdict.context = context;
            }
        }
    }

    /// A file that could not be read: its warning.
    fn unreadable(path: &Path, why: &str) -> FileDigest {
        FileDigest { warnings: vec![LoadWarning::at(path, why)], ..FileDigest::default() }
    }
}

/// The first line of a cache file: what its digests are valid for.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Header {
    perftriage_digests: u32,
    fingerprint: String,
}

const FORMAT: u32 = 1;

/// A cache as found on disk: each file's key, and where its line is in the cache file, which
/// stays open (a digest is read from it when it is wanted: the cache is never all in memory).
#[derive(Default)]
pub struct DigestCache {
    file: Option<PathBuf>,
    /// Whether verdicts keep the lines around their evidence.
    contexts: bool,
    /// How long ago a file must have changed to be cached.
    settle: std::time::Duration,
    fingerprint: String,
    open: Option<std::fs::File>,
    lines: Index,
    /// Why the cache on disk was not (all) used, where that is news (not a missing file or an
    /// older binary).
    problem: Option<String>,
    /// The number of a line whose digest did not read back (0: none), found while reading.
    unread: std::sync::atomic::AtomicUsize,
}

/// What to write for a file in the next cache: the line it had, a new one, or none new (not
/// cached now: too young, or unreadable; a stale old line is kept as it was); with where the old
/// cache had its line, if it had one (looked up once, by the reading thread).
pub enum Line {
    Kept(Range<u64>),
    New { text: String, old: Option<Range<u64>> },
    Uncached { old: Option<Range<u64>> },
}

impl DigestCache {
    /// The cache at `file`, if it was written for this binary, gates and secrets (no file: no
    /// cache). A cache that cannot be read is empty; a line that cannot be read is left out.
    /// Without `contexts`, verdicts keep no lines around their evidence.
    pub fn open(file: Option<CacheFile>, contexts: bool) -> DigestCache {
        let (Some(CacheFile { path: file, settle }), Some(fingerprint)) = (file, key::fingerprint()) else {
            return DigestCache { contexts, ..DigestCache::default() };
        };
        let mut cache = DigestCache { fingerprint, contexts, settle, ..DigestCache::default() };
        match std::fs::File::open(&file).and_then(|open| cache.index(open, &file)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                cache.lines.clear();
                cache.problem =
                    Some(format!("{}: cannot read the digest cache ({e}); rebuilt", file.display()));
            }
        }
        cache.file = Some(file);
        cache
    }

    /// Index the cache's lines, if its header says it is for this binary.
    fn index(&mut self, open: std::fs::File, file: &Path) -> std::io::Result<()> {
        let mut reader = std::io::BufReader::with_capacity(1 << 20, &open);
        let mut line = Vec::new();
        let mut at = reader.read_until(b'\n', &mut line)? as u64;
        let Ok(header) = serde_json::from_slice::<Header>(&line) else {
            let why = "is not a digest cache (its first line is no header); rebuilt";
            self.problem = Some(format!("{}: {why}", file.display()));
            return Ok(());
        };
        // Another binary's, gates' or secrets' cache: not news, rebuilt.
        if header.perftriage_digests != FORMAT || header.fingerprint != self.fingerprint {
            return Ok(());
        }
        for number in 2.. {
            match key::next_line(&mut reader, &mut at, &mut line) {
                Ok(Some(found)) => self.take_line(found, number),
                Ok(None) => break,
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    let why = "a digest cache line that cannot be read; rebuilt";
                    self.problem = Some(format!("{}:{number}: {why}", file.display()));
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        drop(reader);
        self.lines.sort();
        self.open = Some(open);
        Ok(())
    }

    fn take_line(&mut self, found: key::Located, number: usize) {
        let key::Located { key, line, digest, contexts } = found;
        if let Some(cached) = Cached::new(number, key.file, line, (digest, contexts)) {
            self.lines.push(&key.path, cached);
        }
    }

    /// Why the cache on disk was not (all) used: a load warning.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// Which cached digest did not read back, after the reading: a load warning.
    pub fn unread(&self) -> Option<String> {
        let number = self.unread.load(std::sync::atomic::Ordering::Relaxed);
        let file = self.file.as_ref().filter(|_| number > 0)?;
        Some(format!("{}:{number}: a cached digest that does not read back; read again", file.display()))
    }

    /// What a file gives: its cached digest when it is unchanged, else read and digested now,
    /// with the line the next cache holds for it.
    pub fn digest(&self, file: &FoundFile, classifier: &Classifier) -> (FileDigest, Line) {
        let FoundFile { path, key } = file;
        let old = path.to_str().and_then(|name| self.lines.get(name));
        let cached = key.as_ref().zip(old).and_then(|(key, old)| self.cached(old, key));
        let old = old.map(Cached::line);
        if let (Some(digest), Some(line)) = (cached, old.clone()) {
            return (digest, Line::Kept(line));
        }
        let (mut digest, line) = match (read(path, classifier), key, path.to_str()) {
            (Ok(mut digest), Some(key), Some(name)) if self.file.is_some() && key.settled(self.settle) => {
                let line = match LineKey::join(name, key, &mut digest) {
                    Some(text) => Line::New { text, old },
                    None => Line::Uncached { old },
                };
                (digest, line)
            }
            (Ok(digest) | Err(digest), ..) => (digest, Line::Uncached { old }),
        };
        if !self.contexts {
            digest.take_contexts();
        }
        (digest, line)
    }

    /// The digest of a cached line, if its key is `key` and it reads back (its contexts too,
    /// where they are wanted).
    fn cached(&self, cached: &Cached, key: &FileKey) -> Option<FileDigest> {
        if cached.key != *key {
            return None;
        }
        let digest = self.read_back(cached);
        if digest.is_none() {
            let unread = &self.unread;
            let _ = unread.compare_exchange(
                0,
                cached.number as usize,
                std::sync::atomic::Ordering::Relaxed,
                std::sync::atomic::Ordering::Relaxed,
            );
        }
        digest
    }

    fn read_back(&self, cached: &Cached) -> Option<FileDigest> {
        let (digest, contexts) = (cached.digest(), cached.contexts());
        let wanted = if self.contexts { digest.start..contexts.end } else { digest.clone() };
        let bytes = self.bytes(wanted.clone()).ok()?;
        let from = |at: u64| usize::try_from(at - wanted.start).ok();
        let mut read: FileDigest = serde_json::from_slice(bytes.get(..from(digest.end)?)?).ok()?;
        if self.contexts {
            read.put_contexts(serde_json::from_slice(bytes.get(from(contexts.start)?..)?).ok()?);
        }
        Some(read)
    }

    /// Bytes of the cache file.
    fn bytes(&self, range: Range<u64>) -> std::io::Result<Vec<u8>> {
        let open = self.open.as_ref().ok_or(std::io::ErrorKind::NotFound)?;
        let mut bytes = vec![0; usize::try_from(range.end - range.start).unwrap_or(0)];
        open.read_exact_at(&mut bytes, range.start)?;
        Ok(bytes)
    }

    /// Start the next cache: the lines of the files found, in their order, as the load hands
    /// them on.
    pub fn next(&self) -> NextCache<'_> {
        NextCache::after(self)
    }
}

/// Read and digest one file; a file that cannot be read (or whose reading panicked: a bug of
/// ours) is `Err` with its warning, and is not cached, so it is tried again next time. A file
/// read whole that gives no record (not JSON, no commit) says so again while its key is the
/// same: its warning is its digest.
fn read(path: &Path, classifier: &Classifier) -> Result<FileDigest, FileDigest> {
    let reading = std::panic::AssertUnwindSafe(|| match results::read_file(path) {
        Ok(set) => Ok(FileDigest::of(set, classifier)),
        Err(why @ results::ReadError::Unreadable(_)) => Err(FileDigest::unreadable(path, &why.to_string())),
        Err(why) => Ok(FileDigest::unreadable(path, &why.to_string())),
    });
    std::panic::catch_unwind(reading)
        .unwrap_or_else(|_| Err(FileDigest::unreadable(path, results::READ_PANICKED)))
}
