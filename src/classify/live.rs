//! Incremental classification: feed lines as they arrive; the verdict is always current and no
//! line is ever scanned twice.

use super::{Classifier, Verdict};
use std::sync::Arc;

/// What the lines seen so far matched; the classifier is passed in, so bulk classification needs
/// no owned copy. A block's tally (`Classifier::tally`) can be made on any thread and absorbed
/// in order by a `LiveClassifier`.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    hit: Vec<bool>,
    best: Option<(usize, usize, String)>,
    pub(super) lines: usize,
}

impl Tally {
    /// Count a line known to be line `number` of the text (1-based).
    pub(super) fn feed_numbered(&mut self, classifier: &Classifier, line: &str, number: usize) {
        self.lines = self.lines.max(number);
        if classifier.is_noise(line) {
            return;
        }
        if self.hit.is_empty() {
            self.hit = vec![false; classifier.rules().len()];
        }
        for rule in classifier.matching_rules(line) {
            self.hit[rule] = true;
            if self.best.as_ref().is_none_or(|(b, _, _)| rule < *b) {
                self.best = Some((rule, number, super::evidence_text(line)));
            }
        }
    }

    /// Take in what `later` saw in the lines after the first `offset` lines.
    fn absorb(&mut self, later: Tally, offset: usize) {
        self.lines = self.lines.max(offset + later.lines);
        if self.hit.len() < later.hit.len() {
            self.hit.resize(later.hit.len(), false);
        }
        for (mine, theirs) in self.hit.iter_mut().zip(later.hit) {
            *mine |= theirs;
        }
        if let Some((rule, line, evidence)) = later.best
            && self.best.as_ref().is_none_or(|(b, _, _)| rule < *b)
        {
            self.best = Some((rule, line + offset, evidence));
        }
    }

    pub(super) fn verdict(&self, classifier: &Classifier) -> Option<Verdict> {
        let (index, line, evidence) = self.best.clone()?;
        let rules = classifier.rules();
        let tags =
            self.hit.iter().enumerate().filter(|(_, h)| **h).map(|(i, _)| rules[i].id.clone()).collect();
        Some(Verdict {
            category: rules[index].id.clone(),
            disposition: rules[index].disposition,
            tags,
            evidence,
            line,
            field: None,
            fixes: rules[index].fixes.clone(),
            explain: rules[index].explain.clone(),
            context: super::Context::default(),
        })
    }
}

#[derive(Debug, Clone)]
pub struct LiveClassifier {
    classifier: Arc<Classifier>,
    tally: Tally,
}

impl LiveClassifier {
    pub fn new(classifier: Arc<Classifier>) -> LiveClassifier {
        LiveClassifier { classifier, tally: Tally::default() }
    }

    /// Feed the next line of output (without its newline).
    pub fn feed(&mut self, line: &str) {
        let number = self.tally.lines + 1;
        self.tally.lines = number;
        if self.classifier.may_match(line) {
            self.tally.feed_numbered(&self.classifier, line, number);
        }
    }

    /// Feed whole lines at once (`\n`-separated; the last one may lack its newline). A large
    /// block is cut in two at a line end and its halves classified on two threads.
    pub fn feed_block(&mut self, text: &str) {
        let (first, second) = text.split_at(crate::logs::halves(text.as_bytes()).0.len());
        let classifier = &self.classifier;
        let (firsts, seconds) = crate::logs::in_two(first, second, |half| classifier.tally(half));
        self.absorb(firsts);
        self.absorb(seconds);
    }

    /// `feed_block` for bytes read from a file, each half made text (invalid UTF-8 replaced) on
    /// its thread and handed to `side` there too; what `side` made of each half, in order.
    pub fn feed_bytes<S: Send + Default>(&mut self, bytes: &[u8], side: impl Fn(&str) -> S + Sync) -> (S, S) {
        let (first, second) = crate::logs::halves(bytes);
        let classifier = &self.classifier;
        let ((firsts, first_side), (seconds, second_side)) = crate::logs::in_two(first, second, |half| {
            let text = crate::logs::text_of(half);
            (classifier.tally(&text), side(&text))
        });
        self.absorb(firsts);
        self.absorb(seconds);
        (first_side, second_side)
    }

    /// Take in the tally of the lines after those seen so far.
    pub fn absorb(&mut self, tally: Tally) {
        let before = self.tally.lines;
        self.tally.absorb(tally, before);
    }

    pub fn verdict(&self) -> Option<Verdict> {
        self.tally.verdict(&self.classifier)
    }
}
