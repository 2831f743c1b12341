//! Where each cached file's line is in a cache file: a sorted list looked up by a 128-bit hash of
//! the path (a chance of two paths colliding near 2^-90 at a million files, and a collision
//! would still need the same size, times and inode to be taken for the other file). 72 bytes a
//! file: 2 MB over 30,000 files, where a hash map keyed by path took 7.4.

use crate::dataset::results::FileKey;
use std::ops::Range;

/// Where a file's line (without its newline), digest and contexts are in the cache file.
pub struct Cached {
    /// The line's number in the file, from 1.
    pub number: u32,
    pub key: FileKey,
    start: u64,
    len: u32,
    /// Where the digest and the contexts start, from the line's start.
    digest_at: u32,
    contexts_at: u32,
}

impl Cached {
    /// `None` for a line over 4 GiB.
    pub fn new(
        number: usize,
        key: FileKey,
        line: Range<u64>,
        (digest, contexts): (Range<u64>, Range<u64>),
    ) -> Option<Cached> {
        let within = |at: u64| u32::try_from(at.checked_sub(line.start)?).ok();
        Some(Cached {
            number: u32::try_from(number).ok()?,
            key,
            len: within(line.end)?,
            digest_at: within(digest.start)?,
            contexts_at: within(contexts.start)?,
            start: line.start,
        })
    }

    pub fn line(&self) -> Range<u64> {
        self.start..self.start + u64::from(self.len)
    }

    pub fn digest(&self) -> Range<u64> {
        self.start + u64::from(self.digest_at)..(self.start + u64::from(self.contexts_at)).saturating_sub(1)
    }

    pub fn contexts(&self) -> Range<u64> {
        self.start + u64::from(self.contexts_at)..self.line().end
    }
}

/// The cached files by their path's hash.
#[derive(Default)]
pub struct Index {
    lines: Vec<(u128, Cached)>,
    /// Two hashers of this process (what they hash is never kept).
    hashers: (std::hash::RandomState, std::hash::RandomState),
}

impl Index {
    fn hash(&self, path: &str) -> u128 {
        use std::hash::BuildHasher;
        (u128::from(self.hashers.0.hash_one(path)) << 64) | u128::from(self.hashers.1.hash_one(path))
    }

    pub fn push(&mut self, path: &str, cached: Cached) {
        self.lines.push((self.hash(path), cached));
    }

    /// Sort once every line is in; of a path cached twice, the first line counts.
    pub fn sort(&mut self) {
        self.lines.sort_by_key(|(hash, _)| *hash);
        self.lines.dedup_by_key(|(hash, _)| *hash);
        self.lines.shrink_to_fit();
    }

    pub fn get(&self, path: &str) -> Option<&Cached> {
        let hash = self.hash(path);
        let at = self.lines.binary_search_by_key(&hash, |(h, _)| *h).ok()?;
        self.lines.get(at).map(|(_, cached)| cached)
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn clear(&mut self) {
        self.lines.clear();
    }
}
