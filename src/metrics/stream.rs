//! The numbers of a log read block by block (`logs::read_pieces`), in bounded memory: each block
//! is parsed as `parse::parse` parses a whole text, and the end of the one before is kept so a
//! result block cut between two reads is still read whole. The last complete result wins, else
//! the last partial one (the whole-text parse prefers a serving block over a later one of
//! another kind; streamed, the later block wins).

use super::parse::{NoMetrics, Parsed, Seen, parse_seen};

/// The end of a block kept for the next: a result block is a few KiB.
const TAIL: usize = 64 << 10;

#[derive(Debug, Default)]
pub struct StreamParse {
    tail: String,
    last: Option<Parsed>,
    seen: Seen,
}

/// What one piece of a log gave: its numbers, what it showed, its first and last lines (up to
/// `TAIL` bytes) for the straddles, and what the caller's `side` made of it.
struct Piece<S> {
    found: Option<Parsed>,
    seen: Seen,
    head: String,
    tail: String,
    side: S,
}

impl<S> Piece<S> {
    fn of(text: &str, side: impl Fn(&str) -> S) -> Piece<S> {
        let (found, seen) = parse_seen(text);
        let head = text[..line_end_after(text, TAIL)].to_string();
        let tail = text[line_start_before(text, text.len().saturating_sub(TAIL))..].to_string();
        Piece { found, seen, head, tail, side: side(text) }
    }
}

impl StreamParse {
    /// Read the next block of whole lines.
    pub fn feed(&mut self, text: &str) {
        self.take(Piece::of(text, |_| ()));
    }

    /// `feed` for bytes read from a file: a large block is cut in two at a line end, each half
    /// made text (invalid UTF-8 replaced), parsed and handed to `side` on a thread of its own;
    /// what `side` made of each half, in order.
    pub fn feed_bytes<S: Send>(&mut self, bytes: &[u8], side: impl Fn(&str) -> S + Sync) -> (S, S) {
        let (first, second) = crate::logs::halves(bytes);
        let work = |half: &[u8]| Piece::of(&crate::logs::text_of(half), &side);
        let (first, second) = crate::logs::in_two(first, second, work);
        (self.take(first), self.take(second))
    }

    /// Take in the piece after those read so far: first what straddles the two, then the piece.
    fn take<S>(&mut self, piece: Piece<S>) -> S {
        if piece.head.is_empty() {
            return piece.side; // an empty half: the tail before it still ends the text so far
        }
        let straddle = format!("{}{}", self.tail, piece.head);
        self.offer(parse_seen(&straddle).0);
        self.offer(piece.found);
        self.seen = self.seen.and(piece.seen);
        self.tail = piece.tail;
        piece.side
    }

    fn offer(&mut self, parsed: Option<Parsed>) {
        if let Some(p) = parsed
            && (!p.partial || self.last.as_ref().is_none_or(|l| l.partial))
        {
            self.last = Some(p);
        }
    }

    /// The numbers found, or why there are none.
    pub fn finish(self) -> Result<Parsed, NoMetrics> {
        self.last.ok_or_else(|| self.seen.why_none())
    }
}

/// Where the line holding byte `at` ends (after its newline), or the text's end.
fn line_end_after(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(text.len(), |i| at + i + 1)
}

/// Where the line holding byte `at` starts.
fn line_start_before(text: &str, at: usize) -> usize {
    memchr::memrchr(b'\n', &text.as_bytes()[..at]).map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    const BLOCK: &str = "============ Serving Benchmark Result ============\nSuccessful requests:                     100\nBenchmark duration (s):                  2.02\nRequest throughput (req/s):              49.54\nMean TTFT (ms):                          573.16\nMean TPOT (ms):                          22.72\n==================================================\n";

    #[test]
    fn a_result_block_cut_between_two_reads_is_read_whole() {
        let text = format!("{}{BLOCK}INFO: done\n", "INFO: noise\n".repeat(10_000));
        let whole = parse(&text).unwrap();
        for cut in [text.len() - BLOCK.len() / 2 - 11, text.len() - 20, 30] {
            let cut = line_start_before(&text, cut);
            let mut stream = StreamParse::default();
            stream.feed(&text[..cut]);
            stream.feed(&text[cut..]);
            assert_eq!(stream.finish().unwrap().metrics, whole.metrics, "cut at {cut}");
        }
    }

    #[test]
    fn a_block_cut_between_two_small_reads_of_bytes_is_read_whole() {
        let text = format!("INFO: start\n{BLOCK}INFO: done\n");
        let cut = line_start_before(&text, text.len() / 2);
        let mut stream = StreamParse::default();
        let sides = stream.feed_bytes(&text.as_bytes()[..cut], str::len);
        assert_eq!(sides, (cut, 0), "a small read is one half");
        stream.feed_bytes(&text.as_bytes()[cut..], str::len);
        assert_eq!(stream.finish().unwrap().metrics, parse(&text).unwrap().metrics);
    }

    #[test]
    fn without_numbers_it_says_why_as_the_whole_text_would() {
        let mut stream = StreamParse::default();
        stream.feed("Traceback (most recent call last):\n");
        stream.feed("RuntimeError: CUDA error\n");
        assert_eq!(
            stream.finish().unwrap_err(),
            parse("Traceback (most recent call last):\nRuntimeError: CUDA error\n").unwrap_err()
        );
    }
}
