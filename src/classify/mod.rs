//! Failure classification: a data table of signatures (rules.toml) → a verdict with the primary
//! category, secondary tags and the evidence line. Pure; one RegexSet pass per line whatever the rule count.

mod rules;

pub use rules::{Classifier, ClassifyError, Disposition, Rule};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Rule id of the highest-priority hit.
    pub category: String,
    pub disposition: Disposition,
    /// All rule ids that matched, in priority order (the primary first).
    pub tags: Vec<String>,
    /// The first line that matched the primary rule, and its 1-based number in the text.
    pub evidence: String,
    pub line: usize,
}

/// Category of a failure no rule recognises.
pub const UNCLASSIFIED: &str = "unclassified";

impl Classifier {
    /// Classify a block of output; `None` when no rule matches.
    pub fn classify(&self, text: &str) -> Option<Verdict> {
        let mut best: Option<(usize, usize, &str)> = None; // (rule index, line no, line)
        let mut hit = vec![false; self.rules().len()];
        for (number, line) in text.lines().enumerate() {
            if self.is_noise(line) {
                continue;
            }
            for rule in self.matching_rules(line) {
                hit[rule] = true;
                if best.is_none_or(|(b, _, _)| rule < b) {
                    best = Some((rule, number + 1, line));
                }
            }
        }
        let (index, line, evidence) = best?;
        let rule = &self.rules()[index];
        let tags =
            hit.iter().enumerate().filter(|(_, h)| **h).map(|(i, _)| self.rules()[i].id.clone()).collect();
        Some(Verdict {
            category: rule.id.clone(),
            disposition: rule.disposition,
            tags,
            evidence: evidence.trim().chars().take(400).collect(),
            line,
        })
    }
}
