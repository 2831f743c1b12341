//! The benchmark output lines the gates read: each label's last value and its line, found in one
//! forward pass over each text (or each block of a streamed log), in order.

use aho_corasick::{AhoCorasick, MatchKind};
use std::sync::LazyLock;

/// A labelled line of benchmark output, in the order of `LABELS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    Successful,
    Failed,
    GeneratedTokens,
    Duration,
    Tpot,
    Ttft,
    Itl,
    Latency,
    Throughput,
}

const LABELS: [&str; 9] = [
    "Successful requests:",
    "Failed requests:",
    "Total generated tokens:",
    "Benchmark duration (s):",
    "Mean TPOT (ms):",
    "Mean TTFT (ms):",
    "Mean ITL (ms):",
    "Avg latency:",
    "Throughput:",
];

/// The headline metrics, in the order a record's primary one is taken: a serving run's TPOT
/// (else TTFT, ITL), a latency run's average, a throughput run's requests/s.
pub const HEADLINES: [Label; 5] = [Label::Tpot, Label::Ttft, Label::Itl, Label::Latency, Label::Throughput];

/// Leftmost-first: the kind aho-corasick serves with its SIMD prefilter (Teddy); the default
/// kind walked the automaton byte by byte, 8x slower over a 202 MB log. The labels never overlap,
/// so the matches are the same.
static FINDER: LazyLock<AhoCorasick> = LazyLock::new(|| {
    let builder = AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(LABELS);
    builder.unwrap_or_else(|e| unreachable!("nine literals: {e}"))
});

/// Each label's last value and line so far.
#[derive(Debug, Default)]
pub struct Scan {
    last: [Option<(f64, String)>; LABELS.len()],
}

impl Scan {
    pub fn of(texts: &[&str]) -> Scan {
        let mut scan = Scan::default();
        texts.iter().for_each(|text| scan.feed(text));
        scan
    }

    /// Read `text` (whole lines): a later value of a label replaces an earlier one.
    pub fn feed(&mut self, text: &str) {
        for found in FINDER.find_iter(text) {
            if let Some((value, line)) = value_at(text, found.start(), found.end()) {
                self.last[found.pattern().as_usize()] = Some((value, line.trim().to_string()));
            }
        }
    }

    /// Take in what `later` read in the text after this one's.
    pub fn absorb(&mut self, later: Scan) {
        for (mine, theirs) in self.last.iter_mut().zip(later.last) {
            if theirs.is_some() {
                *mine = theirs;
            }
        }
    }

    /// Whether every request generated at most one token (`--random-output-len 1`): there is no
    /// second token, so TPOT and ITL are undefined (printed as 0.00), not measured as zero.
    pub fn one_token_each(&self) -> bool {
        let (Some((generated, _)), Some((served, _))) =
            (self.last(Label::GeneratedTokens), self.last(Label::Successful))
        else {
            return false;
        };
        served > 0.0 && generated <= served
    }

    pub fn last(&self, label: Label) -> Option<(f64, &str)> {
        self.last[label as usize].as_ref().map(|(v, line)| (*v, line.as_str()))
    }
}

/// The number after the label at `start..end` and its line, where the label begins the line
/// (after blanks) and a number (`nan` and `inf` too) is the first word after it.
fn value_at(text: &str, start: usize, end: usize) -> Option<(f64, &str)> {
    let before = &text[..start];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    if !before[line_start..].trim().is_empty() {
        return None;
    }
    let line_end = memchr::memchr(b'\n', &text.as_bytes()[end..]).map_or(text.len(), |i| end + i);
    let value = text[end..line_end].split_whitespace().next()?.trim_end_matches(',').parse::<f64>().ok()?;
    Some((value, &text[line_start..line_end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_labelled_line_counts_and_a_label_inside_a_line_does_not() {
        let text =
            "Successful requests: 0\nlater:\nSuccessful requests: 20\nsaid: Total generated tokens: 0\n";
        assert_eq!(Scan::of(&[text]).last(Label::Successful).map(|v| v.0), Some(20.0));
        assert_eq!(Scan::of(&[text]).last(Label::GeneratedTokens), None);
        let fields = ["Successful requests: 20\n", "Successful requests: 0\n", "other field\n"];
        let later = Scan::of(&fields).last(Label::Successful).map(|v| v.0);
        assert_eq!(later, Some(0.0), "the later field's");
        let mut first = Scan::of(&[fields[0]]);
        first.absorb(Scan::of(&fields[1..]));
        assert_eq!(first.last(Label::Successful).map(|v| v.0), later, "read in two, absorbed in order");
        first.absorb(Scan::of(&["no labels here\n"]));
        assert_eq!(first.last(Label::Successful).map(|v| v.0), later, "a later text without it keeps it");
    }

    #[test]
    fn a_value_is_the_first_word_and_nan_is_read_as_not_a_number() {
        let text = "Throughput: 12.50 requests/s, 6400.0 total tokens/s\nMean TPOT (ms):  nan\n";
        let scan = Scan::of(&[text]);
        assert_eq!(
            scan.last(Label::Throughput),
            Some((12.5, "Throughput: 12.50 requests/s, 6400.0 total tokens/s"))
        );
        assert!(scan.last(Label::Tpot).is_some_and(|(v, _)| v.is_nan()));
    }
}
