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
    ("):", Mark::ServingLine),
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

/// vLLM's periodic engine stats line, which looks like a throughput result but is not.
fn is_stats(line: &str) -> bool {
    line.contains("metrics.py") || line.contains("Avg prompt throughput")
}
