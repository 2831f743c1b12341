//! Anchors for the literal prefilter: a few rare substrings of the literals, each literal holding
//! one, so one SIMD pass (Teddy takes up to 64) finds every literal after a cheap check. Rare
//! means: not starting with a 4-byte sequence common in real vLLM output (common-4grams.txt).

use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

/// Bytes an anchor starts with: the length of Teddy's fingerprint.
pub const GRAM: usize = 4;
/// The longest anchor: longer ones check no better.
const LONGEST: usize = 16;
/// What one more anchor costs, in occurrences in the table's corpus (7.4 MB): chosen so that the
/// embedded rules' 102 literals take 47 anchors, none of them common (measured: the anchors'
/// SIMD pass over the 202 MB benchmark log 2.2x faster than the literals' two).
const ANCHOR_COST: u64 = 300;

/// An anchor and the literals it stands for, with where it starts in each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    pub text: Vec<u8>,
    pub holders: Vec<Holder>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub literal: Vec<u8>,
    pub offset: usize,
}

impl Anchor {
    /// A literal as its own anchor.
    pub fn whole(literal: Vec<u8>) -> Anchor {
        Anchor { text: literal.clone(), holders: vec![Holder { literal, offset: 0 }] }
    }

    /// The start of a literal it stands for whose anchor is at `at` in `text`.
    pub fn literal_at(&self, text: &[u8], at: usize) -> Option<usize> {
        self.holders.iter().find_map(|h| {
            let start = at.checked_sub(h.offset)?;
            text.get(start..start + h.literal.len()).filter(|t| *t == h.literal).map(|_| start)
        })
    }
}

/// 4-byte sequences common in real run output, and how often each occurred.
static COMMON: LazyLock<Common> = LazyLock::new(|| Common::parse(include_str!("common-4grams.txt")));

struct Common {
    counts: HashMap<[u8; GRAM], u64>,
    /// What a gram not in the table is expected to occur: half the rarest common one.
    floor: u64,
}

impl Common {
    fn parse(text: &str) -> Common {
        let rows = text.lines().filter(|l| !l.starts_with('#')).filter_map(|l| l.split_once(' '));
        let counts: HashMap<[u8; GRAM], u64> =
            rows.filter_map(|(hex, count)| Some((gram_of_hex(hex)?, count.parse().ok()?))).collect();
        let floor = counts.values().min().copied().unwrap_or(2) / 2;
        Common { counts, floor }
    }

    fn cost(&self, gram: &[u8; GRAM]) -> u64 {
        self.counts.get(gram).copied().unwrap_or(self.floor)
    }
}

fn gram_of_hex(hex: &str) -> Option<[u8; GRAM]> {
    let mut gram = [0; GRAM];
    for (i, byte) in gram.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(gram)
}

/// A gram of the literals: what one more anchor starting with it costs, and the literals holding it.
struct Gram {
    gram: [u8; GRAM],
    cost: u64,
    holders: Vec<usize>,
}

/// Anchors for `literals` (each at least `GRAM` bytes): a greedy cover, each step taking the
/// gram that covers the most literals not yet covered per expected occurrence.
pub fn cover(literals: &[Vec<u8>]) -> Vec<Anchor> {
    let grams = grams_of(literals);
    let mut uncovered = vec![true; literals.len()];
    let mut anchors = Vec::new();
    while let Some(best) = best_gram(&grams, &uncovered) {
        let newly: Vec<usize> = best.holders.iter().copied().filter(|&i| uncovered[i]).collect();
        newly.iter().for_each(|&i| uncovered[i] = false);
        anchors.push(anchor(&best.gram, newly.iter().map(|&i| &literals[i][..])));
    }
    anchors
}

/// Every gram of the literals, in order (so the cover is the same on every start).
fn grams_of(literals: &[Vec<u8>]) -> Vec<Gram> {
    let mut grams: BTreeMap<[u8; GRAM], Vec<usize>> = BTreeMap::new();
    for (index, literal) in literals.iter().enumerate() {
        for window in literal.windows(GRAM) {
            let holders = grams.entry(window.try_into().unwrap_or_default()).or_default();
            if holders.last() != Some(&index) {
                holders.push(index);
            }
        }
    }
    let cost = |gram: &[u8; GRAM]| COMMON.cost(gram) + ANCHOR_COST;
    grams.into_iter().map(|(gram, holders)| Gram { gram, cost: cost(&gram), holders }).collect()
}

/// The gram worth most (the first of equals); `None` once every literal is covered.
fn best_gram<'a>(grams: &'a [Gram], uncovered: &[bool]) -> Option<&'a Gram> {
    let mut best: Option<(&Gram, f64)> = None;
    for gram in grams {
        let gain = gram.holders.iter().filter(|&&i| uncovered[i]).count();
        let worth = gain as f64 / gram.cost as f64;
        if gain > 0 && best.is_none_or(|(_, most)| worth > most) {
            best = Some((gram, worth));
        }
    }
    best.map(|(gram, _)| gram)
}

/// The anchor starting with `gram` at its first place in each literal, as long as they all go on
/// alike (up to `LONGEST` bytes): the longer it is, the fewer places in a log it is found.
fn anchor<'a>(gram: &[u8; GRAM], literals: impl Iterator<Item = &'a [u8]>) -> Anchor {
    let starts: Vec<(&[u8], usize)> =
        literals.map(|l| (l, l.windows(GRAM).position(|w| w == gram).unwrap_or(0))).collect();
    let tails = || starts.iter().map(|(l, at)| &l[*at..]);
    let shortest = tails().map(<[u8]>::len).min().unwrap_or(GRAM).min(LONGEST);
    let first = tails().next().unwrap_or_default();
    let len = (GRAM..shortest).take_while(|&i| tails().all(|t| t[i] == first[i])).count() + GRAM;
    let holders = starts.iter().map(|(l, at)| Holder { literal: l.to_vec(), offset: *at }).collect();
    Anchor { text: first[..len].to_vec(), holders }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literals(list: &[&str]) -> Vec<Vec<u8>> {
        list.iter().map(|l| l.as_bytes().to_vec()).collect()
    }

    #[test]
    fn every_literal_holds_an_anchor_at_its_offset() {
        let literals = literals(&[
            "No module named 'vllm._C'",
            "No module named 'pyairports'",
            "CUDA out of memory",
            "Errno 98",
            "abcabcabc",
        ]);
        let anchors = cover(&literals);
        for literal in &literals {
            let mut held = anchors.iter().flat_map(|a| a.holders.iter().map(move |h| (a, h)));
            let (anchor, holder) = held.find(|(_, h)| &h.literal == literal).expect("covered");
            assert_eq!(&literal[holder.offset..holder.offset + anchor.text.len()], &anchor.text[..]);
            let text = [b"xx ".as_slice(), literal].concat();
            assert_eq!(anchor.literal_at(&text, 3 + holder.offset), Some(3), "{literal:?}");
        }
        assert!(anchors.len() < literals.len(), "the two module literals share one: {anchors:?}");
    }

    #[test]
    fn a_shared_anchor_goes_on_as_far_as_its_literals_agree() {
        let pair = literals(&["No module named 'vllm._C'", "No module named 'pyairports'"]);
        let anchors = cover(&pair);
        assert_eq!(anchors.len(), 1, "{anchors:?}");
        let (anchor, holders) = (&anchors[0].text, &anchors[0].holders);
        let after = |h: &Holder| h.literal.get(h.offset + anchor.len()).copied();
        assert_ne!(after(&holders[0]), after(&holders[1]), "{:?}", String::from_utf8_lossy(anchor));
    }

    #[test]
    fn common_grams_are_not_chosen_where_a_rare_one_covers_as_much() {
        assert!(COMMON.cost(b"    ") > 100_000, "four blanks are the commonest");
        let anchors = cover(&literals(&["the model Qwen/Qwen3-0.6B"]));
        let gram = |a: &Anchor| <[u8; GRAM]>::try_from(&a.text[..GRAM]).unwrap();
        assert!(anchors.iter().all(|a| COMMON.cost(&gram(a)) == COMMON.floor), "{anchors:?}");
    }

    #[test]
    fn an_anchor_without_its_literal_around_it_is_no_hit() {
        let literal = "Server crashed while loading the model";
        let anchors = cover(&literals(&[literal]));
        let anchor = &anchors[0];
        let at = |text: &str| {
            let found = memchr::memmem::find(text.as_bytes(), &anchor.text)?;
            anchor.literal_at(text.as_bytes(), found)
        };
        assert_eq!(at(&format!("the {literal}")), Some(4));
        let alone = String::from_utf8_lossy(&anchor.text).to_string();
        assert!(alone.len() < literal.len());
        assert_eq!(at(&format!("the {alone}")), None, "{alone}");
    }
}
