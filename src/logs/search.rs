//! Searching a spool at the speed of its bytes. A line's decoded text is its raw bytes unless the
//! line holds something the decoder changes (a control byte, DEL, a C1 or bidi control, invalid
//! UTF-8); the spool's index marks those lines as they are written, and keeps their decoded text
//! in the spool's text file. So a search is one pass of the regex over the raw bytes, whose hits
//! on unmarked lines are hits, and one over the text file, whose hits are the marked lines' (a
//! marked line with no text there, longer than an append, is decoded): the same hits as decoding
//! every line. Line numbers are counted only up to each hit, from the index's checkpoints. Two
//! threads take half of each file; hits stream out block by block.

use super::block::{line_at, line_start, plain_text};
use super::spool_index::{IndexCopy, Select};
use super::{Decoder, Line, SpoolReader, Stream};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// A matching line: its number and the byte ranges matched in its decoded text.
pub type Hit = (usize, Vec<(usize, usize)>);

/// Bytes read and scanned at a time (more for a line longer than that; small in the unit tests,
/// so that they cross many blocks).
#[cfg(not(test))]
const BLOCK: usize = 4 << 20;
#[cfg(test)]
const BLOCK: usize = 64 << 10;

#[derive(Debug, Clone)]
pub struct SpoolSearch {
    raw: regex::bytes::Regex,
    exact: regex::Regex,
}

/// A part of the spool: lines `lines`, bytes `bytes`.
#[derive(Debug, Clone, Copy)]
struct Part {
    lines: (usize, usize),
    bytes: (u64, u64),
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
        let index = spool.index_copy();
        self.halves(&file, &index, (upto, end), cancel, on_hits)?;
        let text = index.text_file();
        let lines = text.spool.lines;
        let in_view = |hits: Vec<Hit>| {
            let mut select = Select::new(&index.texted);
            let hits = hits.into_iter().filter_map(|(k, ranges)| Some((select.line_of(k)?, ranges)));
            let hits: Vec<Hit> = hits.filter(|(n, _)| *n < upto).collect();
            if !hits.is_empty() {
                on_hits(hits);
            }
        };
        self.halves(spool.text_file(), &text, (lines, text.spool.last_line_start), cancel, &in_view)
    }

    /// Lines `0..upto`, which end at byte `end`, of `file`, which `index` describes: half each on
    /// two threads.
    fn halves(
        &self,
        file: &std::fs::File,
        index: &IndexCopy,
        (upto, end): (usize, u64),
        cancel: &AtomicBool,
        on_hits: &(dyn Fn(Vec<Hit>) + Sync),
    ) -> std::io::Result<()> {
        let half = index.lines().checkpoint(upto / 2).filter(|&(_, h)| h < end);
        let (half_line, half) = half.unwrap_or((upto, end));
        let halves = [
            Part { lines: (0, half_line), bytes: (0, half) },
            Part { lines: (half_line, upto), bytes: (half, end) },
        ];
        std::thread::scope(|scope| {
            // A clone each: a regex's scratch space is fastest on the thread that owns it.
            let workers = halves.map(|part| {
                let search = self.clone();
                scope.spawn(move || search.range(file, index, part, cancel, on_hits))
            });
            let failed = || std::io::Error::other("a search thread panicked");
            workers.into_iter().try_for_each(|w| w.join().unwrap_or_else(|_| Err(failed())))
        })
    }

    /// One part of the file, a block at a time, each mapped where the page cache holds it (not
    /// copied out) and unmapped once searched: whole lines (a block grows until it holds a
    /// newline), and no more of the spool mapped at once than a block a thread.
    fn range(
        &self,
        file: &std::fs::File,
        index: &IndexCopy,
        part: Part,
        cancel: &AtomicBool,
        on_hits: &(dyn Fn(Vec<Hit>) + Sync),
    ) -> std::io::Result<()> {
        let (mut line, mut from, mut size) = (part.lines.0, part.bytes.0, BLOCK as u64);
        while from < part.bytes.1 && !cancel.load(Ordering::Relaxed) {
            let mapped = mapped_file::Mapped::of(file, from, size.min(part.bytes.1 - from))?;
            let block: &[u8] = &mapped;
            if block.is_empty() {
                break; // the file is shorter than its index says
            }
            if from + (block.len() as u64) < part.bytes.1 && memchr::memrchr(b'\n', block).is_none() {
                size *= 2; // whole lines only: this one is longer than the block
                continue;
            }
            let (whole, next) = cut(index, block, (line, from), part);
            let hits = self.indexed_hits(&block[..whole], (line, from), line..next, index);
            if !hits.is_empty() {
                on_hits(hits);
            }
            (line, from) = (next, from + whole as u64);
        }
        Ok(())
    }

    /// Hits among the whole lines of `block` (no index needed), the first numbered `first`.
    pub fn block_hits(&self, block: &[u8], first: usize) -> Vec<Hit> {
        let index = IndexCopy::of_block(block);
        let ends = bytecount::count(block, b'\n');
        let lines = ends + usize::from(block.last().is_some_and(|&b| b != b'\n'));
        let hits = self.indexed_hits(block, (0, 0), 0..lines, &index);
        hits.into_iter().map(|(n, ranges)| (n + first, ranges)).collect()
    }

    /// Hits in `block`, lines `lines`, which starts at line `first`, byte `from` of the spool
    /// `index` describes: the raw regex's lines whose text is their bytes, then the changed lines
    /// with no text in the text file whose decoded text matches.
    fn indexed_hits(
        &self,
        block: &[u8],
        (first, from): (usize, u64),
        lines: Range<usize>,
        index: &IndexCopy,
    ) -> Vec<Hit> {
        let mut hits = Vec::new();
        let mut cursor = Cursor { block, index, from, line: first, at: 0 };
        let mut at = 0;
        while let Some(m) = self.raw.find_at(block, at) {
            let start = line_start(block, m.start());
            let n = cursor.line_of(start);
            if !index.changed.get(n) {
                hits.extend(self.plain_ranges(block, start).map(|ranges| (n, ranges)));
            }
            // One match a line is enough: the line's ranges come from its text.
            at = memchr::memchr(b'\n', &block[m.start()..]).map_or(block.len(), |i| m.start() + i + 1);
            if at >= block.len() {
                break;
            }
        }
        let mut cursor = Cursor { block, index, from, line: first, at: 0 };
        let mut scratch = Vec::new();
        for n in index.changed.ones_in(lines, &index.texted) {
            let raw = line_at(block, cursor.start_of(n));
            if self.may_match_changed(raw, &mut scratch) {
                hits.extend(self.exact_ranges(raw).map(|ranges| (n, ranges)));
            }
        }
        hits.sort_unstable_by_key(|(n, _)| *n);
        hits
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

/// Where to end a block read at `from` (line `line`) of `part`, and the next block's first line:
/// at the block's last checkpoint, so the line is known without counting; at the part's end;
/// or, when the block holds no checkpoint (64 lines longer than a block), at its last newline,
/// counted.
fn cut(index: &IndexCopy, block: &[u8], (line, from): (usize, u64), part: Part) -> (usize, usize) {
    let end = from + block.len() as u64;
    if end >= part.bytes.1 {
        return (block.len(), part.lines.1);
    }
    if let Some((at_line, at)) = index.lines().checkpoint_in(from, end) {
        return (usize::try_from(at - from).unwrap_or(block.len()), at_line);
    }
    let whole = memchr::memrchr(b'\n', block).map_or(block.len(), |i| i + 1);
    (whole, line + bytecount::count(&block[..whole], b'\n'))
}

/// Line numbers and line starts in a block, found going forward from where the last was: from
/// the nearest checkpoint, counting newlines only from there.
struct Cursor<'a> {
    block: &'a [u8],
    index: &'a IndexCopy,
    /// The block's offset in the spool.
    from: u64,
    /// Line `line` starts at byte `at` of the block.
    line: usize,
    at: usize,
}

impl Cursor<'_> {
    /// The number of the line starting at `start` (at or after the last asked).
    fn line_of(&mut self, start: usize) -> usize {
        let (line, offset) = self.index.lines().checkpoint_before(self.from + start as u64);
        if offset >= self.from + self.at as u64 && line >= self.line {
            (self.line, self.at) = (line, usize::try_from(offset - self.from).unwrap_or(start));
        }
        self.line += bytecount::count(&self.block[self.at..start], b'\n');
        self.at = start;
        self.line
    }

    /// Where line `n` starts (at or after the last asked).
    fn start_of(&mut self, n: usize) -> usize {
        if let Some((at_line, offset)) = self.index.lines().checkpoint(n)
            && at_line > self.line
            && offset >= self.from
        {
            let at = usize::try_from(offset - self.from).unwrap_or(self.block.len());
            (self.line, self.at) = (at_line, at.min(self.block.len()));
        }
        while self.line < n && self.at < self.block.len() {
            let rest = &self.block[self.at..];
            self.at += memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
            self.line += 1;
        }
        self.at
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

    /// A spool of many blocks in both halves, written in appends that cut lines (a 1.5 MB line,
    /// longer than a block, with a colour in an append of its own and one in its last): the
    /// index's marks, checkpoints and text file give the same hits, numbered the same, as
    /// decoding every line.
    #[test]
    fn a_spool_searched_through_its_index_gives_the_same_hits_as_decoding_every_line() {
        let mut log = Vec::new();
        for round in 0..6 {
            log.extend_from_slice(crate::logs::chatty_log(2_000 + round).as_bytes());
            log.extend_from_slice(b"ai\x1b[1mmv2 split\nnot valid \xff aimv2\nai\xc2\x85mv2 C1\n");
        }
        let long_at = log.len();
        log.extend_from_slice(b"aimv2 at the start of a long line ");
        log.extend(std::iter::repeat_n(b'x', 1_200_000));
        log.extend_from_slice(b"\x1b[0m");
        log.extend(std::iter::repeat_n(b'x', 300_000));
        log.extend_from_slice(b" \x1b[1maimv2 at the end of a long line\nAIMV2 after it\n");
        log.extend_from_slice(crate::logs::chatty_log(3_000).as_bytes());
        let dir = tempfile::tempdir().unwrap();
        let mut writer = super::super::SpoolWriter::create(&dir.path().join("spool.log")).unwrap();
        let cuts = [long_at + 1_000_000, long_at + 1_400_000];
        let ends: std::collections::BTreeSet<usize> =
            (0..log.len()).step_by(300_001).skip(1).chain(cuts).chain([log.len()]).collect();
        let mut at = 0;
        for end in ends {
            writer.append(&log[at..end]).unwrap();
            at = end;
        }
        writer.flush().unwrap();
        let reader = writer.reader();
        for query in ["aimv2", "^AIMV2", "x{3}\\s+ai", r"\d+ reqs"] {
            let search = SpoolSearch::new(query).unwrap();
            let found = std::sync::Mutex::new(Vec::new());
            let cancel = AtomicBool::new(false);
            search.run(&reader, reader.lines(), &cancel, &|hits| found.lock().unwrap().extend(hits)).unwrap();
            let mut found = found.into_inner().unwrap();
            found.sort_unstable_by_key(|(n, _)| *n);
            assert_eq!(found, slowly(&search, &log), "{query}");
        }
    }
}
