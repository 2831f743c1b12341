//! A literal prefilter over many patterns at once: for each pattern, literals one of which every
//! match contains (read from its syntax tree), found through a few rare anchors (anchors.rs) in
//! one Aho-Corasick automaton. Only lines holding a literal can match, so the regexes run on those
//! lines alone. A pattern with no such literal (a case-insensitive one, say) makes the filter pass
//! every line.

use super::anchors::{self, Anchor, GRAM};
use aho_corasick::{AhoCorasick, Input, MatchKind};
use regex_syntax::hir::{Hir, HirKind};

/// Anchors per automaton. Up to 64 an automaton searches with a SIMD prefilter (Teddy), more
/// fall back to walking it byte by byte, several times slower; past 32 or so Teddy goes "fat"
/// (16 buckets, half the bytes a step): the embedded rules' 47 anchors in two slim passes
/// classify the 202 MB benchmark log in 0.107 s, in one fat pass in 0.121 s (medians of 21).
const GROUP: usize = 24;

#[derive(Debug, Clone)]
pub struct Prefilter {
    /// `None`: some pattern has no literal, every line may match.
    groups: Option<Vec<Searcher>>,
}

/// One pass over the text. A one-byte literal gets `memchr`: in an automaton it would keep the
/// SIMD prefilter from serving the others.
#[derive(Debug, Clone)]
enum Searcher {
    Anchored { automaton: AhoCorasick, anchors: Vec<Anchor> },
    Byte(u8),
}

impl Searcher {
    /// The start of the first literal whose anchor is at or after `from` in `text`.
    fn first_from(&self, text: &[u8], from: usize) -> Option<usize> {
        match self {
            Searcher::Anchored { automaton, anchors } => {
                let mut at = from;
                loop {
                    let found = automaton.find(Input::new(text).range(at..))?;
                    let anchor = &anchors[found.pattern().as_usize()];
                    match anchor.literal_at(text, found.start()) {
                        Some(start) => return Some(start),
                        // No two anchors of a group start alike (a gram each, or a short literal
                        // whole, never refused): one refused here hides none starting further.
                        None => at = found.start() + 1,
                    }
                }
            }
            Searcher::Byte(b) => memchr::memchr(*b, &text[from..]).map(|i| from + i),
        }
    }

    /// A literal's start in each line of `text` that holds one.
    fn lines(&self, text: &[u8], into: &mut Vec<usize>) {
        let mut from = 0;
        while let Some(start) = self.first_from(text, from) {
            into.push(start);
            from = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |i| start + i + 1);
        }
    }
}

impl Prefilter {
    /// The filter for patterns already parsed.
    pub fn of(patterns: &[Hir]) -> Prefilter {
        let mut literals = Vec::new();
        for pattern in patterns {
            match required(pattern) {
                Some(found) => literals.extend(found),
                None => return Prefilter { groups: None },
            }
        }
        literals.sort();
        literals.dedup();
        let (bytes, longer): (Vec<_>, Vec<_>) = literals.into_iter().partition(|l| l.len() == 1);
        // Literals shorter than an anchor's gram are their own anchors, apart: in one automaton
        // with the others they would shorten its SIMD fingerprint.
        let (short, long): (Vec<_>, Vec<_>) = longer.into_iter().partition(|l| l.len() < GRAM);
        let groups = [anchors::cover(&long), short.into_iter().map(Anchor::whole).collect()];
        let searchers = groups.iter().flat_map(|group| chunks(group)).map(automaton);
        let groups: Result<Vec<_>, _> = searchers.collect();
        let groups = groups.ok().map(|mut g| {
            g.extend(bytes.iter().map(|b| Searcher::Byte(b[0])));
            g
        });
        Prefilter { groups }
    }

    /// Whether `line` may match one of the patterns.
    pub fn may_match(&self, line: &str) -> bool {
        let found = |s: &Searcher| s.first_from(line.as_bytes(), 0).is_some();
        self.groups.as_ref().is_none_or(|groups| groups.iter().any(found))
    }

    /// A position in each line of `text` holding a literal, ascending: `None` when the filter
    /// passes everything (the caller searches with the regexes themselves).
    pub fn starts(&self, text: &str) -> Option<Vec<usize>> {
        let groups = self.groups.as_ref()?;
        let mut starts = Vec::new();
        groups.iter().for_each(|s| s.lines(text.as_bytes(), &mut starts));
        starts.sort_unstable();
        Some(starts)
    }
}

/// `anchors` in groups of at most `GROUP`.
fn chunks(anchors: &[Anchor]) -> Vec<Vec<Anchor>> {
    anchors.chunks(GROUP).map(<[Anchor]>::to_vec).collect()
}

/// One automaton over `anchors`: leftmost matching, the kind the SIMD prefilter serves.
fn automaton(anchors: Vec<Anchor>) -> Result<Searcher, aho_corasick::BuildError> {
    // A contiguous NFA: building a DFA took a tenth of every start, and the SIMD prefilter in
    // front of either does the searching.
    let kind = Some(aho_corasick::AhoCorasickKind::ContiguousNFA);
    let mut builder = AhoCorasick::builder();
    let automaton =
        builder.match_kind(MatchKind::LeftmostFirst).kind(kind).build(anchors.iter().map(|a| &a.text))?;
    Ok(Searcher::Anchored { automaton, anchors })
}

/// Literals one of which every match of `hir` contains; `None` when none can be named.
fn required(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Literal(literal) => Some(vec![literal.0.to_vec()]),
        HirKind::Capture(capture) => required(&capture.sub),
        HirKind::Repetition(repetition) if repetition.min >= 1 => required(&repetition.sub),
        HirKind::Alternation(branches) => {
            branches.iter().map(required).collect::<Option<Vec<_>>>().map(|sets| sets.concat())
        }
        // Of the parts every match has, the one whose shortest literal is longest.
        HirKind::Concat(parts) => parts.iter().filter_map(required).max_by_key(|set| shortest(set)),
        _ => None,
    }
}

fn shortest(set: &[Vec<u8>]) -> usize {
    set.iter().map(Vec::len).min().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Prefilter {
        fn new(patterns: &[String]) -> Prefilter {
            let trees: Vec<Hir> = patterns.iter().map(|p| regex_syntax::parse(p).unwrap()).collect();
            Prefilter::of(&trees)
        }
    }

    fn literals(pattern: &str) -> Option<Vec<String>> {
        let found = required(&regex_syntax::parse(pattern).unwrap())?;
        Some(found.into_iter().map(|l| String::from_utf8(l).unwrap()).collect())
    }

    #[test]
    fn every_match_holds_one_of_the_literals() {
        assert_eq!(
            literals("Ignoring invalid distribution [-~]ransformers").unwrap(),
            ["Ignoring invalid distribution "]
        );
        assert_eq!(literals("No module named '(?:pandas|datasets)'").unwrap(), ["No module named '"]);
        assert_eq!(
            literals(r"^[0-9a-f]{12}: (Pull complete|Waiting)").unwrap(),
            ["Pull complete", "Waiting"]
        );
        assert_eq!(literals(r"^\s+\^+\s*$").unwrap(), ["^"]);
        assert_eq!(literals("(?i)killed"), None, "case-insensitive: no literal");
        assert_eq!(literals("a|[bc]"), None, "one branch has none");
    }

    #[test]
    fn a_pattern_without_literals_passes_every_line() {
        let filter = Prefilter::new(&["(?i)error".into(), "Killed".into()]);
        assert!(filter.may_match("nothing here") && filter.starts("x").is_none());
        let filter = Prefilter::new(&["Killed".into(), "OOM".into()]);
        assert!(!filter.may_match("nothing here") && filter.may_match("process Killed"));
        assert_eq!(filter.starts("a\nOOM and Killed"), Some(vec![2, 10]));
    }

    #[test]
    fn one_byte_literals_are_found_beside_longer_ones() {
        let filter = Prefilter::new(&[r"^\s+\^+\s*$".into(), "Killed".into()]);
        assert_eq!(filter.starts("  ^^^\nKilled ^"), Some(vec![2, 6, 13]), "a line once for each pass");
        assert!(filter.may_match("   ^") && !filter.may_match("nothing"));
    }

    #[test]
    fn more_anchors_than_one_automaton_takes_are_all_found() {
        // Four bytes each: every literal is its own only anchor.
        let patterns: Vec<String> = (0..150).map(|n| format!("w{n:03}")).collect();
        let filter = Prefilter::new(&patterns);
        assert!(filter.groups.as_ref().unwrap().len() > 2, "{:?}", filter.groups);
        assert_eq!(filter.starts("x w149 y\nz w000\nnothing w\n"), Some(vec![2, 11]));
    }

    /// Lines holding a literal, by looking for each in each line.
    fn naive(literals: &[String], text: &str) -> Vec<usize> {
        let lines = text.split('\n').enumerate();
        let held = lines.filter(|(_, line)| literals.iter().any(|l| line.contains(l.as_str())));
        held.map(|(index, _)| index).collect()
    }

    #[test]
    fn the_lines_found_are_those_holding_a_literal_and_no_others() {
        let words = ["module", "named", "Error", "failed", "to", "import", "the", "CUDA", "memory", "'vllm"];
        let literals: Vec<String> =
            (0..90).map(|n| format!("{} {} {}", words[n % 10], words[n / 10], words[(n * 7) % 10])).collect();
        let filter = Prefilter::new(&literals.iter().map(|l| regex_syntax::escape(l)).collect::<Vec<_>>());
        let mut lines = Vec::new();
        for literal in &literals {
            // Every piece of it short of the whole, then the whole amid other text.
            lines.extend((1..literal.len()).map(|cut| literal[..cut].to_string()));
            lines.extend((1..literal.len()).map(|cut| literal[cut..].to_string()));
            lines.push(format!("before {literal} after"));
        }
        let text = lines.join("\n");
        let index_of = |at: usize| text[..at].matches('\n').count();
        let found: Vec<usize> = filter.starts(&text).unwrap().into_iter().map(index_of).collect();
        assert_eq!(found, naive(&literals, &text));
        for line in &lines {
            assert_eq!(filter.may_match(line), !naive(&literals, line).is_empty(), "{line}");
        }
    }
}
