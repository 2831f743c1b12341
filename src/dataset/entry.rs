//! A commit joined with its effective per-variant outcomes and their classification.
//! Result files override the recorded upstream outcome; among files, the newest timestamp wins.

use super::results::{ResultRecord, ResultSet};
use super::{Commit, Outcome, RunStatus, Variant};
use crate::classify::{Classifier, Verdict};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq)]
pub struct VariantState {
    pub outcome: Outcome,
    pub verdict: Option<Verdict>,
    pub timestamp: Option<String>,
    /// Whether the outcome came from a result file rather than the dataset's record.
    pub loaded: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CommitStatus {
    Failed,
    Partial,
    Done,
    Skipped,
    NotRun,
}

impl CommitStatus {
    pub fn name(self) -> &'static str {
        match self {
            CommitStatus::Failed => "failed",
            CommitStatus::Partial => "partial",
            CommitStatus::Done => "done",
            CommitStatus::Skipped => "skipped",
            CommitStatus::NotRun => "not_run",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub commit: Commit,
    pub variants: [VariantState; 3],
    /// Commit-level signature from upstream notes, used where a failure carries no text of its own.
    pub hint: Option<Verdict>,
    /// Loaded files that are about the commit but are no variant outcome.
    pub notes: Vec<String>,
}

impl Entry {
    pub fn new(commit: Commit, classifier: &Classifier) -> Entry {
        let hint_text = commit.upstream.notes.join("\n");
        let hint = classifier.classify(&hint_text);
        let state = |v: Variant| {
            let outcome = commit.outcome(v).cloned().unwrap_or_else(Outcome::not_run);
            let text = outcome.error.clone().unwrap_or_default();
            VariantState { verdict: None, timestamp: None, loaded: false, outcome }
                .classified(&text, classifier)
        };
        let variants = Variant::ALL.map(state);
        Entry { commit, variants, hint, notes: Vec::new() }
    }

    pub fn variant(&self, v: Variant) -> &VariantState {
        &self.variants[v as usize]
    }

    /// Replace a variant's outcome with one read from a result file, unless we hold a newer one.
    pub fn apply(&mut self, record: ResultRecord, classifier: &Classifier) {
        let slot = &mut self.variants[record.variant as usize];
        if slot.loaded && slot.timestamp > record.timestamp {
            return;
        }
        *slot = VariantState {
            outcome: record.outcome,
            verdict: None,
            timestamp: record.timestamp,
            loaded: true,
        }
        .classified(&record.text, classifier);
    }

    pub fn status(&self) -> CommitStatus {
        let statuses = self.variants.iter().map(|v| v.outcome.status);
        let (mut ok, mut failed, mut skipped, mut not_run) = (0, 0, 0, 0);
        for status in statuses {
            match status {
                RunStatus::Success => ok += 1,
                RunStatus::Error | RunStatus::Timeout => failed += 1,
                RunStatus::Skipped => skipped += 1,
                RunStatus::NotRun => not_run += 1,
            }
        }
        match () {
            _ if failed > 0 => CommitStatus::Failed,
            _ if ok == 3 => CommitStatus::Done,
            _ if ok > 0 => CommitStatus::Partial,
            _ if skipped > 0 => CommitStatus::Skipped,
            _ => {
                debug_assert_eq!(not_run, 3);
                CommitStatus::NotRun
            }
        }
    }

    /// The verdict that names the commit's category: the first failing variant's (B, H, A),
    /// else the first skipped one's; a failure without text of its own falls back to the hint.
    pub fn verdict(&self) -> Option<&Verdict> {
        let pick = |want: fn(RunStatus) -> bool| {
            self.variants
                .iter()
                .find(|v| want(v.outcome.status))
                .map(|v| v.verdict.as_ref().or(self.hint.as_ref()))
        };
        pick(RunStatus::is_failure).or_else(|| pick(|s| s == RunStatus::Skipped)).flatten()
    }

    /// The kind's preferred metric that most variants carry (ties go to the earlier candidate).
    pub fn primary_metric(&self) -> Option<&'static str> {
        let candidates = self.commit.kind().primary_candidates();
        let carried = |m: &str| self.variants.iter().filter(|v| v.outcome.metrics.contains_key(m)).count();
        let mut best: Option<(&'static str, usize)> = None;
        for &m in candidates {
            let n = carried(m);
            if n > best.map_or(0, |(_, b)| b) {
                best = Some((m, n));
            }
        }
        best.map(|(m, _)| m)
    }

    /// Category id for the board: a rule id, `unclassified` for an unexplained failure, `` when nothing failed.
    pub fn category(&self) -> &str {
        match (self.verdict(), self.status()) {
            (Some(v), _) => &v.category,
            (None, CommitStatus::Failed) => crate::classify::UNCLASSIFIED,
            (None, CommitStatus::Skipped) => "skipped",
            _ => "",
        }
    }
}

impl VariantState {
    fn classified(mut self, text: &str, classifier: &Classifier) -> VariantState {
        if self.outcome.status != RunStatus::Success {
            self.verdict = classifier.classify(text);
        }
        self
    }
}

/// Join commits with result files. Records for unknown commits become warnings.
pub fn join(commits: Vec<Commit>, results: ResultSet, classifier: &Classifier) -> (Vec<Entry>, Vec<String>) {
    let mut entries: Vec<Entry> = commits.into_iter().map(|c| Entry::new(c, classifier)).collect();
    let index: std::collections::HashMap<String, usize> =
        entries.iter().enumerate().map(|(i, e)| (e.commit.short.clone(), i)).collect();
    let mut warnings: Vec<String> = results.warnings.iter().map(ToString::to_string).collect();
    for record in results.records {
        match index.get(&record.short) {
            Some(&i) => entries[i].apply(record, classifier),
            None => warnings.push(format!(
                "{}: commit {} is not in the dataset",
                record.outcome.source.as_deref().unwrap_or("?"),
                record.short
            )),
        }
    }
    for (short, note) in results.notes {
        match index.get(&short) {
            Some(&i) => entries[i].notes.push(note),
            None => warnings.push(format!("{note}: commit {short} is not in the dataset")),
        }
    }
    (entries, warnings)
}
