//! Where each cached file's line is in a cache file: a sorted list looked up by path (a tenth of
//! a hash map's memory: 3 MB over 30,000 files).

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

/// The cached files by path.
#[derive(Default)]
pub struct Index {
    lines: Vec<(Box<str>, Cached)>,
}

impl Index {
    pub fn push(&mut self, path: String, cached: Cached) {
        self.lines.push((path.into_boxed_str(), cached));
    }

    /// Sort once every line is in; of a path cached twice, the first line counts.
    pub fn sort(&mut self) {
        self.lines.sort_by(|a, b| a.0.cmp(&b.0));
        self.lines.dedup_by(|later, first| later.0 == first.0);
        self.lines.shrink_to_fit();
    }

    pub fn get(&self, path: &str) -> Option<&Cached> {
        let at = self.lines.binary_search_by(|(p, _)| (**p).cmp(path)).ok()?;
        self.lines.get(at).map(|(_, cached)| cached)
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn clear(&mut self) {
        self.lines.clear();
    }
}
