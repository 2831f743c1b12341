//! A literal prefilter over many patterns at once: for each pattern, literals one of which every
//! match contains (read from its syntax tree), all in one Aho-Corasick automaton. Only lines
//! holding one of them can match, so the regexes run on those lines alone. A pattern with no such
//! literal (a case-insensitive one, say) makes the filter pass every line.

use aho_corasick::{AhoCorasick, Input, MatchKind};
use regex_syntax::hir::{Hir, HirKind};

/// Literals per automaton: up to 64 an automaton searches with a SIMD prefilter (Teddy); more
/// fall back to walking it byte by byte, several times slower.
const GROUP: usize = 64;

#[derive(Debug, Clone)]
pub struct Prefilter {
    /// `None`: some pattern has no literal, every line may match.
    groups: Option<Vec<Searcher>>,
}

/// One pass over the text. A one-byte literal gets `memchr`: in an automaton it would keep the
/// SIMD prefilter from serving the others.
#[derive(Debug, Clone)]
enum Searcher {
    Automaton(AhoCorasick),
    Byte(u8),
}

impl Searcher {
    fn is_match(&self, text: &str) -> bool {
        match self {
            Searcher::Automaton(a) => a.is_match(text),
            Searcher::Byte(b) => memchr::memchr(*b, text.as_bytes()).is_some(),
        }
    }

    fn starts<'a>(&'a self, text: &'a str) -> Box<dyn Iterator<Item = usize> + 'a> {
        match self {
            Searcher::Automaton(a) => Box::new(a.find_iter(Input::new(text)).map(|m| m.start())),
            Searcher::Byte(b) => Box::new(memchr::memchr_iter(*b, text.as_bytes())),
        }
    }
}

impl Prefilter {
    /// The filter for `patterns` (already known to be valid regexes).
    pub fn new(patterns: &[String]) -> Prefilter {
        let mut literals = Vec::new();
        for pattern in patterns {
            match regex_syntax::parse(pattern).ok().as_ref().and_then(required) {
                Some(found) => literals.extend(found),
                None => return Prefilter { groups: None },
            }
        }
        literals.sort();
        literals.dedup();
        let (bytes, longer): (Vec<_>, Vec<_>) = literals.into_iter().partition(|l| l.len() == 1);
        // Leftmost matching: the SIMD prefilter serves no other kind.
        let build = |group: &[Vec<u8>]| {
            // A contiguous NFA: building a DFA took a tenth of every start, and the SIMD
            // prefilter in front of either does the searching.
            let kind = Some(aho_corasick::AhoCorasickKind::ContiguousNFA);
            let builder = AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).kind(kind).build(group);
            builder.map(Searcher::Automaton)
        };
        let groups: Result<Vec<_>, _> = longer.chunks(GROUP).map(build).collect();
        let groups = groups.ok().map(|mut g| {
            g.extend(bytes.iter().map(|b| Searcher::Byte(b[0])));
            g
        });
        Prefilter { groups }
    }

    /// Whether `line` may match one of the patterns.
    pub fn may_match(&self, line: &str) -> bool {
        self.groups.as_ref().is_none_or(|groups| groups.iter().any(|s| s.is_match(line)))
    }

    /// Where each literal found in `text` starts, ascending: `None` when the filter passes
    /// everything (the caller searches with the regexes themselves).
    pub fn starts(&self, text: &str) -> Option<Vec<usize>> {
        let groups = self.groups.as_ref()?;
        let mut starts: Vec<usize> = groups.iter().flat_map(|s| s.starts(text)).collect();
        starts.sort_unstable();
        Some(starts)
    }
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
        assert_eq!(filter.starts("  ^^^\nKilled ^"), Some(vec![2, 3, 4, 6, 13]));
        assert!(filter.may_match("   ^") && !filter.may_match("nothing"));
    }

    #[test]
    fn more_literals_than_one_automaton_takes_are_all_found() {
        let patterns: Vec<String> = (0..150).map(|n| format!("literal number {n:03}")).collect();
        let filter = Prefilter::new(&patterns);
        let text = "x literal number 149 y literal number 000 z";
        assert_eq!(filter.starts(text), Some(vec![2, 23]));
    }
}
