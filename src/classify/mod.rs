//! Failure classification: a data table of signatures (rules.toml) → a verdict with the primary
//! category, secondary tags, the evidence line and its context. Pure. Cost does not grow with the
//! rule count: one combined automaton finds candidate lines, a RegexSet names their rules.

mod live;
mod rules;

pub use live::LiveClassifier;
pub use rules::{Classifier, ClassifyError, Disposition, Rule};

use serde::{Deserialize, Serialize};

/// Lines of context kept on each side of the evidence line.
pub const CONTEXT_LINES: usize = 20;

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
    /// The field (or file) of a result record the evidence line is in; `line` counts from its start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Suggested fix recipe ids and the rule's one-line explanation.
    #[serde(default)]
    pub fixes: Vec<String>,
    #[serde(default)]
    pub explain: String,
    /// Up to `CONTEXT_LINES` lines before and after the evidence line (bulk classification only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<String>,
}

/// Category of a failure no rule recognises.
pub const UNCLASSIFIED: &str = "unclassified";

impl Classifier {
    /// Classify a block of output; `None` when no rule matches.
    pub fn classify(&self, text: &str) -> Option<Verdict> {
        let mut tally = live::Tally::default();
        let mut line_no = 1;
        let mut counted_to = 0;
        let mut pos = 0;
        // Jump from candidate to candidate; most lines never reach the per-rule RegexSet.
        while let Some(m) = self.any().find_at(text, pos) {
            let start = memchr::memrchr(b'\n', &text.as_bytes()[..m.start()]).map_or(0, |i| i + 1);
            let end =
                memchr::memchr(b'\n', &text.as_bytes()[m.start()..]).map_or(text.len(), |i| m.start() + i);
            line_no += memchr::memchr_iter(b'\n', &text.as_bytes()[counted_to..start]).count();
            counted_to = start;
            tally.feed_numbered(self, &text[start..end], line_no);
            pos = end + 1;
            if pos > text.len() {
                break;
            }
        }
        let mut verdict = tally.verdict(self)?;
        verdict.context = context(text, verdict.line);
        Some(verdict)
    }
}

impl Classifier {
    /// The verdict of a rule named by id (a run's own classification, read back from its result
    /// file), with the evidence it recorded; `None` for an id no rule has.
    pub fn named(&self, id: &str, evidence: &str) -> Option<Verdict> {
        let rule = self.rule(id)?;
        Some(Verdict {
            category: rule.id.clone(),
            disposition: rule.disposition,
            tags: vec![rule.id.clone()],
            evidence: evidence.to_string(),
            line: 0,
            field: Some("perftriage.classification".into()),
            fixes: rule.fixes.clone(),
            explain: rule.explain.clone(),
            context: Vec::new(),
        })
    }
}

/// The lines around 1-based line `line` of `text` (`CONTEXT_LINES` each side, cut to 240 chars).
pub fn context(text: &str, line: usize) -> Vec<String> {
    let first = line.saturating_sub(CONTEXT_LINES + 1);
    text.lines()
        .skip(first)
        .take(line - first + CONTEXT_LINES)
        .map(|l| l.chars().take(240).collect())
        .collect()
}
