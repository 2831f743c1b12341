//! Searching a spool at the speed of its bytes. A line's decoded text is its raw bytes unless the
//! line holds something the decoder changes (a control byte, DEL, a C1 or bidi control, invalid
//! UTF-8), so the raw bytes are scanned for the regex and for those bytes, and only the lines
//! either finds are decoded and matched exactly: the same hits as decoding every line. Two
//! threads take half the spool each; hits stream out block by block.

use super::block::{changed_lines, line_at, line_start, plain_text};
use super::{Decoder, Line, SpoolReader, Stream};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};

/// A matching line: its number and the byte ranges matched in its decoded text.
pub type Hit = (usize, Vec<(usize, usize)>);

/// Bytes read and scanned at a time.
const BLOCK: usize = 4 << 20;

#[derive(Debug, Clone)]
pub struct SpoolSearch {
    raw: regex::bytes::Regex,
    exact: regex::Regex,
}

impl SpoolSearch {
    /// A case-insensitive search for `query`.
    pub fn new(query: &str) -> Result<SpoolSearch, regex::Error> {
        let raw = regex::bytes::RegexBuilder::new(query).case_insensitive(true).multi_line(true).build()?;
        let exact = regex::RegexBuilder::new(query).case_insensitive(true).build()?;
        Ok(SpoolSearch { raw, exact })
    }

    /// Lines `0..upto` of `spool`, on two threads; `on_hits` gets each block's hits as found (the
    /// two halves' interleaved). Stops early when `cancel` is set.
    pub fn run(
        &self,
        spool: &SpoolReader,
        upto: usize,
        cancel: &AtomicBool,
        on_hits: &(dyn Fn(Vec<Hit>) + Sync),
    ) -> std::io::Result<()> {
        let file = std::fs::File::open(spool.path())?;
        let end = spool.offset_of(upto)?;
        let (half_line, half) = spool.checkpoint_near(upto / 2);
        let halves = [(0, 0, half.min(end)), (half_line, half.min(end), end)];
        let file = &file;
        std::thread::scope(|scope| {
            // A clone each: a regex's scratch space is fastest on the thread that owns it.
            let workers = halves.map(|part| {
                let search = self.clone();
                scope.spawn(move || search.range(file, part, cancel, on_hits))
            });
            let failed = || std::io::Error::other("a search thread panicked");
            workers.into_iter().try_for_each(|w| w.join().unwrap_or_else(|_| Err(failed())))
        })
    }

    /// Bytes `from..to` of the file, line `line` at `from`, a block at a time.
    fn range(
        &self,
        file: &std::fs::File,
        (mut line, mut from, to): (usize, u64, u64),
        cancel: &AtomicBool,
        on_hits: &(dyn Fn(Vec<Hit>) + Sync),
    ) -> std::io::Result<()> {
        let mut block = vec![0u8; BLOCK];
        while from < to && !cancel.load(Ordering::Relaxed) {
            let want = usize::try_from(to - from).unwrap_or(BLOCK).min(block.len());
            let n = file.read_at(&mut block[..want], from)?;
            if n == 0 {
                break;
            }
            // Whole lines only, unless one line fills the block.
            let whole = if from + (n as u64) < to {
                memchr::memrchr(b'\n', &block[..n]).map_or(n, |i| i + 1)
            } else {
                n
            };
            let hits = self.block_hits(&block[..whole], line);
            if !hits.is_empty() {
                on_hits(hits);
            }
            line += bytecount::count(&block[..whole], b'\n');
            from += whole as u64;
        }
        Ok(())
    }

    /// Hits among the whole lines of `block`, the first numbered `first`.
    pub fn block_hits(&self, block: &[u8], first: usize) -> Vec<Hit> {
        let mut starts = match std::str::from_utf8(block) {
            Ok(_) => self.candidate_lines(block),
            // Invalid UTF-8 somewhere: every line is decoded.
            Err(_) => {
                let every = std::iter::once(0).chain(memchr::memchr_iter(b'\n', block).map(|i| i + 1));
                every.map(|s| (s, true)).collect()
            }
        };
        starts.sort_unstable();
        starts.dedup_by_key(|(start, _)| *start);
        let (mut hits, mut line, mut counted) = (Vec::new(), first, 0);
        for (start, decode) in starts.into_iter().filter(|(s, _)| *s < block.len()) {
            line += bytecount::count(&block[counted..start], b'\n');
            counted = start;
            let end = memchr::memchr(b'\n', &block[start..]).map_or(block.len(), |i| start + i + 1);
            let ranges =
                if decode { self.exact_ranges(&block[start..end]) } else { self.plain_ranges(block, start) };
            if let Some(ranges) = ranges {
                hits.push((line, ranges));
            }
        }
        hits
    }

    /// The lines of a valid UTF-8 block that may match, each with whether the decoder changes
    /// it: the raw regex's lines (one match a line is enough: the search goes on at its end), and
    /// the lines the decoder changes whose text may match. A line whose raw bytes are its text
    /// needs no decoding.
    fn candidate_lines(&self, block: &[u8]) -> Vec<(usize, bool)> {
        let changed = changed_lines(block);
        let mut scratch = Vec::new();
        let mut starts: Vec<(usize, bool)> = changed
            .iter()
            .filter(|&&s| self.may_match_changed(line_at(block, s), &mut scratch))
            .map(|&s| (s, true))
            .collect();
        let mut at = 0;
        while let Some(m) = self.raw.find_at(block, at) {
            let start = line_start(block, m.start());
            if changed.binary_search(&start).is_err() {
                starts.push((start, false));
            }
            at = memchr::memchr(b'\n', &block[m.start()..]).map_or(block.len(), |i| m.start() + i + 1);
            if at >= block.len() {
                break;
            }
        }
        starts
    }

    /// The matches in a line that decodes to its own bytes (valid UTF-8, nothing the decoder changes).
    fn plain_ranges(&self, block: &[u8], start: usize) -> Option<Vec<(usize, usize)>> {
        let text = std::str::from_utf8(line_at(block, start)).ok()?;
        let ranges: Vec<_> = self.exact.find_iter(text).map(|m| (m.start(), m.end())).collect();
        (!ranges.is_empty()).then_some(ranges)
    }

    /// Whether a line the decoder changes may match: when its only changes are colours, tabs and
    /// carriage returns, its text is made cheaply (`plain_text`); otherwise it is decoded to know.
    fn may_match_changed(&self, line: &[u8], scratch: &mut Vec<u8>) -> bool {
        scratch.clear();
        !plain_text(line, scratch) || self.raw.is_match(scratch)
    }

    /// The matches in one raw line's decoded text, as a log view decodes it.
    fn exact_ranges(&self, raw: &[u8]) -> Option<Vec<(usize, usize)>> {
        let mut decoder = Decoder::new(Stream::Stdout);
        let mut out = super::Output::default();
        decoder.feed(raw, &mut out);
        decoder.finish(&mut out);
        let line: &Line = out.lines.first()?;
        let ranges: Vec<_> = self.exact.find_iter(line.text()).map(|m| (m.start(), m.end())).collect();
        (!ranges.is_empty()).then_some(ranges)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line decoded and matched: what the fast search must equal.
    fn slowly(search: &SpoolSearch, block: &[u8]) -> Vec<Hit> {
        let mut decoder = Decoder::new(Stream::Stdout);
        let mut out = super::super::Output::default();
        decoder.feed(block, &mut out);
        decoder.finish(&mut out);
        let ranges =
            |l: &Line| search.exact.find_iter(l.text()).map(|m| (m.start(), m.end())).collect::<Vec<_>>();
        out.lines.iter().enumerate().map(|(n, l)| (n, ranges(l))).filter(|(_, r)| !r.is_empty()).collect()
    }

    #[test]
    fn the_same_hits_as_decoding_every_line() {
        let mut log = crate::logs::chatty_log(5_000).into_bytes();
        log.extend_from_slice(
            b"ai\x1b[1mmv2 split by a colour\nai\x1b]0;t\x07mv2 by a title\nAIMV2 upper\nai\xc2\x85mv2 by C1\n\
              ai\xe2\x80\x8fmv2 by a bidi mark\nai\tmv2 tab\r\nprogress aimv\rdone aimv2\nnot valid \xff aimv2\n",
        );
        for query in ["aimv2", "ai +mv2", "^done", "mv2$", "Traceback|Killed", r"\d+ reqs"] {
            let search = SpoolSearch::new(query).unwrap();
            let (head, tail) = log.split_at(log.len() - 20);
            assert_eq!(search.block_hits(&log, 0), slowly(&search, &log), "{query}");
            assert_eq!(
                search.block_hits(head, 0),
                slowly(&search, head),
                "{query}, valid UTF-8 only: {tail:?}"
            );
        }
        let hits = SpoolSearch::new("aimv2").unwrap().block_hits(&log, 0);
        let numbers: Vec<usize> = hits.iter().map(|(n, _)| *n).collect();
        assert!(hits.len() >= 6, "escape-split, C1, bidi, upper-case and rewritten lines: {numbers:?}");
    }
}
