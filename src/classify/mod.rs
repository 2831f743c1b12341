//! Failure classification: a data table of signatures (rules.toml) → a verdict with the primary
//! category, secondary tags, the evidence line and its context. Pure. Cost does not grow with the
//! rule count: one Aho-Corasick automaton over rare anchors of the rules' literals finds candidate
//! lines, a RegexSet names their rules.

mod anchors;
mod context;
mod live;
mod prefilter;
mod rules;
mod shared;

pub use context::{CONTEXT_LINES, Context};
pub use live::{LiveClassifier, Tally};
pub use rules::{Classifier, ClassifyError, Disposition, Rule};
pub use shared::SharedClassifier;

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
    /// The field (or file) of a result record the evidence line is in; `line` counts from its start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Suggested fix recipe ids and the rule's one-line explanation.
    #[serde(default)]
    pub fixes: Vec<String>,
    #[serde(default)]
    pub explain: String,
    /// Up to `CONTEXT_LINES` lines before and after the evidence line (bulk classification only).
    #[serde(default, skip_serializing_if = "Context::is_empty")]
    pub context: Context,
}

impl Verdict {
    /// The validity gate an `invalid_measurement` failed (its `gate:<name>` tag).
    pub fn gate(&self) -> Option<&str> {
        self.tags.iter().find_map(|t| t.strip_prefix("gate:"))
    }
}

/// A line a rule matched in a variant that succeeded and measured: shown beside it, never its
/// category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    pub rule: String,
    /// The field (or file) of a result record the line is in.
    #[serde(default)]
    pub field: Option<String>,
    /// 1-based, within `field`.
    pub line: usize,
    pub text: String,
}

/// Category of a failure no rule recognises.
pub const UNCLASSIFIED: &str = "unclassified";

/// Category of a failure whose texts are not classified yet (the board's first rows).
pub const PENDING: &str = "…";

impl Classifier {
    /// Classify a block of output; `None` when no rule matches.
    pub fn classify(&self, text: &str) -> Option<Verdict> {
        let mut verdict = self.classify_bare(text)?;
        verdict.context = Context::around(text, verdict.line);
        Some(verdict)
    }

    /// `classify` without the evidence's context, for a caller that cuts its own.
    pub fn classify_bare(&self, text: &str) -> Option<Verdict> {
        let mut tally = live::Tally::default();
        self.tally_block(&mut tally, text, 0);
        tally.verdict(self)
    }

    /// What the lines of `text` (whole lines; the last may lack its newline) matched.
    pub fn tally(&self, text: &str) -> live::Tally {
        let mut tally = live::Tally::default();
        tally.lines = self.tally_block(&mut tally, text, 0);
        tally
    }

    /// Feed the lines of `text` that may match to `tally`, numbered after `before` lines; how
    /// many lines `text` holds.
    fn tally_block(&self, tally: &mut live::Tally, text: &str, before: usize) -> usize {
        // Jump from candidate to candidate; most lines never reach the per-rule RegexSet.
        let mut candidates = lines_at(text, self.candidates(text));
        for (index, line) in candidates.by_ref() {
            tally.feed_numbered(self, line.strip_suffix('\r').unwrap_or(line), before + index + 1);
        }
        candidates.total()
    }

    /// The first line each rule matched in `text`, in priority order of the rules.
    pub fn warnings(&self, text: &str) -> Vec<Warning> {
        let mut first: Vec<Option<(usize, &str)>> = vec![None; self.rules().len()];
        for (index, line) in lines_at(text, self.candidates(text)) {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if self.is_noise(line) {
                continue;
            }
            for rule in self.matching_rules(line) {
                first[rule].get_or_insert((index + 1, line));
            }
        }
        let rules = self.rules().iter().zip(first);
        let hit = rules.filter_map(|(rule, hit)| Some((rule, hit?)));
        hit.map(|(rule, (line, text))| Warning {
            rule: rule.id.clone(),
            field: None,
            line,
            text: evidence_text(text),
        })
        .collect()
    }

    /// Indices (from 0) of the noise lines among the lines of `text`, ascending.
    pub fn noise_lines(&self, text: &str) -> Vec<usize> {
        let candidates = lines_at(text, self.noise_candidates(text));
        candidates.filter(|(_, line)| self.is_noise(line)).map(|(index, _)| index).collect()
    }
}

/// The lines of `text` holding one of the ascending offsets `starts`, each once, with their
/// index (from 0).
fn lines_at(text: &str, starts: Vec<usize>) -> LinesAt<'_> {
    LinesAt { text, starts: starts.into_iter(), index: 0, counted_to: 0 }
}

struct LinesAt<'a> {
    text: &'a str,
    starts: std::vec::IntoIter<usize>,
    /// Lines before `counted_to`.
    index: usize,
    counted_to: usize,
}

impl<'a> Iterator for LinesAt<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let bytes = self.text.as_bytes();
        // Offsets in a line already given are passed over.
        let at = self.starts.by_ref().find(|at| *at >= self.counted_to)?;
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        self.index += newlines(&bytes[self.counted_to..start]);
        let found = (self.index, &self.text[start..end]);
        self.index += 1;
        self.counted_to = end + 1;
        Some(found)
    }
}

impl LinesAt<'_> {
    /// How many lines the whole text holds (the last may lack its newline), counting only what
    /// the lines given have not counted yet.
    fn total(self) -> usize {
        let rest = self.text.as_bytes().get(self.counted_to..).unwrap_or_default();
        let unterminated = usize::from(!rest.is_empty() && !rest.ends_with(b"\n"));
        self.index + newlines(rest) + unterminated
    }
}

/// Newlines in `bytes`.
pub fn newlines(bytes: &[u8]) -> usize {
    bytecount::count(bytes, b'\n')
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
            context: Context::default(),
        })
    }
}

/// An evidence line as verdicts and warnings keep it: trimmed, at most 400 characters.
pub(crate) fn evidence_text(line: &str) -> String {
    line.trim().chars().take(400).collect()
}

#[cfg(test)]
mod same_as_line_by_line {
    use super::*;

    /// The classification the prefilter must not change: every line, every regex.
    fn reference(classifier: &Classifier, text: &str) -> Option<(String, usize, Vec<String>)> {
        let mut tally = live::Tally::default();
        for (n, line) in text.split('\n').enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if classifier.by_regexes_alone(line) == (false, true) {
                tally.feed_numbered(classifier, line, n + 1);
            }
        }
        tally.verdict(classifier).map(|v| (v.category, v.line, v.tags))
    }

    fn texts(dir: &std::path::Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                texts(&path, out);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                // A result file's escaped output as well as its raw text.
                out.push(text.replace("\\n", "\n"));
                out.push(text);
            }
        }
    }

    #[test]
    fn every_fixture_classifies_as_with_every_regex_on_every_line() {
        let classifier = Classifier::embedded().unwrap();
        let mut all = Vec::new();
        texts(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"), &mut all);
        all.push(crate::logs::chatty_log(20_000));
        assert!(all.len() > 100, "{} texts", all.len());
        let mut classified = 0;
        for text in &all {
            let fast = classifier.classify(text).map(|v| (v.category, v.line, v.tags));
            assert_eq!(fast, reference(&classifier, text), "{}", &text[..text.len().min(300)]);
            classified += usize::from(fast.is_some());
        }
        assert!(classified > 20, "the texts hold failures to classify: {classified}");
    }

    #[test]
    fn a_tally_counts_every_line_wherever_the_candidates_lie() {
        let classifier = Classifier::embedded().unwrap();
        let hit = "ValueError: 'aimv2' is already used by a Transformers config";
        for text in [
            String::new(),
            "plain\n".into(),
            "plain".into(),
            hit.to_string(),
            format!("{hit}\n"),
            format!("a\n{hit}\nb\nc"),
            format!("a\n\n{hit}\n{hit}\n\nz\n"),
        ] {
            let lines = text.split_inclusive('\n').count();
            assert_eq!(classifier.tally(&text).lines, lines, "{text:?}");
        }
    }

    #[test]
    fn a_large_block_on_two_threads_reads_as_one() {
        let classifier = std::sync::Arc::new(Classifier::embedded().unwrap());
        let mut text = crate::logs::chatty_log(30_000);
        text.push_str("ValueError: 'aimv2' is already used by a Transformers config\nKilled\n");
        assert!(text.len() > 2 << 20, "big enough to be cut in two: {}", text.len());
        let mut live = LiveClassifier::new(classifier.clone());
        live.feed_block(&text);
        let whole = classifier.classify(&text).map(|v| (v.category, v.line, v.tags));
        assert_eq!(live.verdict().map(|v| (v.category, v.line, v.tags)), whole);
        assert_eq!(whole.map(|w| w.1), Some(text.lines().count() - 1));
    }

    #[test]
    fn a_large_block_of_bytes_reads_as_its_text_with_invalid_bytes_replaced() {
        let classifier = std::sync::Arc::new(Classifier::embedded().unwrap());
        let mut bytes = crate::logs::chatty_log(30_000).into_bytes();
        bytes.extend_from_slice(
            b"bad \xff\xfe byte\nValueError: 'aimv2' is already used by a Transformers config\n",
        );
        let text = String::from_utf8_lossy(&bytes).to_string();
        let mut live = LiveClassifier::new(classifier.clone());
        let (first, second) = live.feed_bytes(&bytes, |half| half.to_string());
        assert!(!first.is_empty() && !second.is_empty(), "cut in two");
        assert_eq!(first + &second, text, "each half as its text, in order");
        let whole = classifier.classify(&text).map(|v| (v.category, v.line, v.tags));
        assert_eq!(live.verdict().map(|v| (v.category, v.line, v.tags)), whole);
        assert!(whole.is_some());
    }
}
