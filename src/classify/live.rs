//! Incremental classification: feed lines as they arrive; the verdict is always current and no
//! line is ever scanned twice.

use super::{Classifier, Verdict};

#[derive(Debug, Clone)]
pub struct LiveClassifier<'a> {
    classifier: &'a Classifier,
    hit: Vec<bool>,
    best: Option<(usize, usize, String)>,
    lines: usize,
}

impl<'a> LiveClassifier<'a> {
    pub fn new(classifier: &'a Classifier) -> LiveClassifier<'a> {
        LiveClassifier { classifier, hit: vec![false; classifier.rules().len()], best: None, lines: 0 }
    }

    /// Feed the next line of output (without its newline).
    pub fn feed(&mut self, line: &str) {
        self.lines += 1;
        if self.classifier.any().is_match(line) {
            self.feed_numbered(line, self.lines);
        }
    }

    /// Feed a line known to be line `number` of the text (1-based).
    pub(super) fn feed_numbered(&mut self, line: &str, number: usize) {
        self.lines = self.lines.max(number);
        if self.classifier.is_noise(line) {
            return;
        }
        for rule in self.classifier.matching_rules(line) {
            self.hit[rule] = true;
            if self.best.as_ref().is_none_or(|(b, _, _)| rule < *b) {
                self.best = Some((rule, number, line.trim().chars().take(400).collect()));
            }
        }
    }

    pub fn verdict(&self) -> Option<Verdict> {
        let (index, line, evidence) = self.best.clone()?;
        let rules = self.classifier.rules();
        let tags =
            self.hit.iter().enumerate().filter(|(_, h)| **h).map(|(i, _)| rules[i].id.clone()).collect();
        Some(Verdict {
            category: rules[index].id.clone(),
            disposition: rules[index].disposition,
            tags,
            evidence,
            line,
            fixes: rules[index].fixes.clone(),
            explain: rules[index].explain.clone(),
            context: Vec::new(),
        })
    }
}
