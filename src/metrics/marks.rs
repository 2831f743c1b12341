//! Where a text's result and failure lines are, found in one pass: every literal one of the
//! parser's patterns needs (a line holding none cannot match it) through one Aho-Corasick automaton,
//! the lines recorded by what they hold. vLLM's periodic stats lines (`metrics.py`, `Avg prompt
//! throughput`) are left out, as the parser ignores them. The patterns then run on these lines
//! alone, not on the whole text.

use aho_corasick::{AhoCorasick, MatchKind};
use std::sync::LazyLock;

/// What a line holds, one per literal of `LITERALS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mark {
    ServingStart,
    Rule,
    AvgLatency,
    PercentileLatency,
    Throughput,
    PrefixStart,
    PrefixSpeed,
    PrefixCost,
    ServingLine,
    Traceback,
    Error,
    ServerCrashed,
    Rank,
    BuildingWheel,
    MetadataFailed,
    WheelBuildFailed,
    CmakeError,
    Installed,
}

const LITERALS: [(&str, Mark); 18] = [
    ("Serving Benchmark Result", Mark::ServingStart),
    ("====================", Mark::Rule),
    ("Avg latency:", Mark::AvgLatency),
    ("% percentile latency:", Mark::PercentileLatency),
    ("Throughput:", Mark::Throughput),
    ("start generating", Mark::PrefixStart),
    ("est. speed input:", Mark::PrefixSpeed),
    ("cost time", Mark::PrefixCost),
    // Every unit a serving line's label takes ends in `s`: (ms), (s), (req/s), (tok/s). A
    // two-byte literal here made the search try most of a log's bytes.
    ("s):", Mark::ServingLine),
    ("Traceback (most recent call last)", Mark::Traceback),
    ("Error: ", Mark::Error),
    ("SERVER_CRASHED", Mark::ServerCrashed),
    ("[rank", Mark::Rank),
    ("Building wheel", Mark::BuildingWheel),
    ("error: metadata-generation-failed", Mark::MetadataFailed),
    ("failed-wheel-build", Mark::WheelBuildFailed),
    ("CMake Error", Mark::CmakeError),
    ("Successfully installed", Mark::Installed),
];

static FINDER: LazyLock<AhoCorasick> = LazyLock::new(|| {
    let builder = AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(LITERALS.map(|(l, _)| l));
    builder.unwrap_or_else(|e| panic!("the metric literals: {e}"))
});

/// The marked lines of a text, in order: (what, the line's start, the line's end before its newline).
#[derive(Debug, Default)]
pub(super) struct Marks {
    lines: Vec<(Mark, usize, usize)>,
}

impl Marks {
    pub(super) fn of(text: &str) -> Marks {
        let bytes = text.as_bytes();
        let mut lines: Vec<(Mark, usize, usize)> = Vec::new();
        for found in FINDER.find_iter(text) {
            let mark = LITERALS[found.pattern().as_usize()].1;
            if mark == Mark::Rank && !is_rank_prefix(&bytes[found.end()..]) {
                continue;
            }
            let start = memchr::memrchr(b'\n', &bytes[..found.start()]).map_or(0, |i| i + 1);
            if lines.last().is_some_and(|&(m, s, _)| m == mark && s == start) {
                continue;
            }
            let end = memchr::memchr(b'\n', &bytes[found.end()..]).map_or(text.len(), |i| found.end() + i);
            if !is_stats(&text[start..end]) {
                lines.push((mark, start, end));
            }
        }
        Marks { lines }
    }

    /// The lines holding `mark`'s literal, in order, as (start, end).
    pub(super) fn lines<'a>(&'a self, mark: Mark) -> impl DoubleEndedIterator<Item = (usize, usize)> + 'a {
        self.lines.iter().filter(move |(m, _, _)| *m == mark).map(|&(_, s, e)| (s, e))
    }
}

/// Whether the text after `[rank` is a rank's number and `]: `, as in `[rank0]: ValueError`:
/// torch's `[rank0]:[W… ProcessGroupNCCL.cpp]` warnings, a tenth of some logs' lines, are not.
fn is_rank_prefix(after: &[u8]) -> bool {
    let digits = after.iter().take_while(|b| b.is_ascii_digit()).count();
    digits > 0 && after[digits..].starts_with(b"]: ")
}

/// vLLM's periodic engine stats line, which looks like a throughput result but is not.
fn is_stats(line: &str) -> bool {
    line.contains("metrics.py") || line.contains("Avg prompt throughput")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rank_line_is_marked_only_where_a_rank_error_can_follow() {
        let text = "[rank0]:[W07-26 ProcessGroupNCCL.cpp:1250] Warning\n[rank1]: ValueError: x\n[rank]: y\n";
        let marked: Vec<_> = Marks::of(text).lines(Mark::Rank).map(|(s, e)| &text[s..e]).collect();
        assert_eq!(marked, ["[rank1]: ValueError: x"]);
    }
}
