//! A commit joined with its effective per-variant outcomes and their classification.
//! Result files override the recorded upstream outcome; among files, the record with the newest
//! time of its own wins (one without a time never beats a dated one), per variant and per agent.

use super::measured::MeasuredSet;
use super::results::{Digested, ResultRecord, Stamp};
use super::{Commit, Outcome, RunStatus, Variant};
use crate::classify::{Classifier, Verdict, Warning};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantState {
    pub outcome: Outcome,
    pub verdict: Option<Box<Verdict>>,
    /// The record's own time.
    #[serde(with = "crate::dataset::results::exact_stamp")]
    pub at: Option<Stamp>,
    /// The agent of the run the record belongs to, where its folder says.
    pub agent: Option<String>,
    /// Whether the outcome came from a result file rather than the dataset's record.
    pub loaded: bool,
    /// Lines a rule matched in a record that succeeded and measured: shown, never a category.
    pub warnings: Vec<Warning>,
}

/// A record a newer one replaced, kept so the detail pane can say what was overridden: a small
/// reference (its file names the rest), never the record.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Overridden {
    pub variant: Variant,
    pub agent: Option<String>,
    #[serde(with = "crate::dataset::results::exact_stamp")]
    pub at: Option<Stamp>,
    pub status: RunStatus,
    pub source: Option<String>,
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

/// Serialized only for the joined cache (`super::joined`), which reads back what it wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub commit: Commit,
    pub variants: [VariantState; 3],
    /// Commit-level signature from upstream notes, used where a failure carries no text of its own.
    pub hint: Option<Box<Verdict>>,
    /// Loaded files that are about the commit but are no variant outcome.
    pub notes: Vec<String>,
    /// The newest agent record of each agent (`None`: records whose folder names none). Boxed:
    /// a map's first node holds room for eleven (4.7 KB inline, 47 MB over 10,000 commits).
    #[serde(with = "agents_as_pairs")]
    pub agents: BTreeMap<Option<String>, Box<VariantState>>,
    /// Records a newer one replaced, oldest first.
    pub overridden: Vec<Overridden>,
    /// The newest successful record of each kind (variant, workload, metrics) — agents'
    /// included — for the older-pair search: where the newest records do not measure one
    /// workload, an older comparable pair may.
    pub measured: MeasuredSet,
    /// Its texts not classified yet: the board's first rows, drawn while the rules compile (the
    /// reader's join replaces them). Never cached.
    #[serde(skip)]
    pub pending: bool,
}

impl Entry {
    /// The commit's recorded outcomes move into the entry's variants: its commit keeps none.
    /// `classify` gives the verdict of each of `classified_texts`.
    pub fn new(mut commit: Commit, classify: &dyn Fn(&str) -> Option<Verdict>) -> Entry {
        let hint = classify(&hint_text(&commit)).map(Box::new);
        let workload = commit.recorded_workload();
        let mut recorded = std::mem::take(&mut commit.outcomes);
        let state = |v: Variant| {
            let mut outcome = recorded.remove(&v).unwrap_or_else(Outcome::not_run);
            outcome.workload = workload.clone();
            let text = verdict_text(&outcome);
            let mut state = VariantState {
                verdict: None,
                at: None,
                agent: None,
                loaded: false,
                outcome,
                warnings: Vec::new(),
            };
            state.verdict = text.and_then(|text| classify(&text)).map(Box::new);
            state
        };
        let variants = Variant::ALL.map(state);
        let (notes, agents, overridden, measured) =
            (Vec::new(), BTreeMap::new(), Vec::new(), MeasuredSet::default());
        Entry { commit, variants, hint, notes, agents, overridden, measured, pending: false }
    }

    /// The commit as an entry with nothing classified yet (`pending`).
    pub fn unclassified(commit: Commit) -> Entry {
        Entry { pending: true, ..Entry::new(commit, &|_| None) }
    }

    /// The texts `new` classifies for `commit`: its upstream notes, and the recorded error of each
    /// variant that did not succeed (one not recorded did not run: an empty text).
    pub fn classified_texts(commit: &Commit) -> impl Iterator<Item = String> {
        let errors = Variant::ALL.map(|v| commit.outcomes.get(&v).map_or(Some(String::new()), verdict_text));
        std::iter::once(hint_text(commit)).chain(errors.into_iter().flatten())
    }

    /// Whether every number it holds is finite (JSON spells no other).
    pub fn finite(&self) -> bool {
        let states = self.variants.iter().chain(self.agents.values().map(|state| &**state));
        states.map(|state| &state.outcome).all(Outcome::finite) && self.measured.finite()
    }

    pub fn variant(&self, v: Variant) -> &VariantState {
        &self.variants[v as usize]
    }

    /// Take a record read from a result file: it replaces the variant's outcome unless a newer
    /// one is held; a record that cannot stand for its variant becomes a note.
    pub fn apply(&mut self, record: ResultRecord, classifier: &Classifier) {
        self.take(record.digest(classifier));
    }

    /// `apply` for a record already classified (on a reading thread).
    pub fn take(&mut self, digested: Digested) {
        let Digested { record, verdict, warnings } = digested;
        if let Some(why) = &record.not_comparable {
            let at = record.at.map(|t| format!(" at {t}")).unwrap_or_default();
            let source = record.outcome.source.as_deref().unwrap_or("?");
            self.notes
                .push(format!("{}{at}, not comparable ({why}): {source}", record.outcome.status.word()));
            return;
        }
        if let Some(note) = other_kind(&self.commit, &record, &self.notes) {
            self.notes.push(note);
        }
        let state = VariantState {
            outcome: record.outcome,
            verdict: verdict.map(Box::new),
            at: record.at,
            agent: record.agent,
            loaded: true,
            warnings,
        };
        if !state.failed() {
            let candidates = self.commit.kind().primary_candidates();
            self.measured.remember(record.variant, &state, candidates);
        }
        if record.variant == Variant::Agent {
            // Agents do not override each other: each keeps its newest, the slot shows the newest of all.
            let held = self.agents.remove(&state.agent).map(|held| *held);
            let newest = self.newer(Variant::Agent, held, state);
            self.agents.insert(newest.agent.clone(), Box::new(newest));
            return self.select_agent(None);
        }
        let slot = std::mem::replace(&mut self.variants[record.variant as usize], VariantState::empty());
        let held = slot.loaded.then_some(slot);
        self.variants[record.variant as usize] = self.newer(record.variant, held, state);
    }

    /// Once every record is in: each overridden record listed once.
    pub fn settle(&mut self) {
        let mut seen = HashSet::new();
        self.overridden.retain(|o| seen.insert(o.clone()));
    }

    /// The newer of two states (the second on a tie: files are read in order); the other is
    /// remembered as overridden.
    fn newer(&mut self, variant: Variant, held: Option<VariantState>, new: VariantState) -> VariantState {
        let Some(held) = held else { return new };
        let (keep, drop) = if held.at > new.at { (held, new) } else { (new, held) };
        let gone = Overridden {
            variant,
            agent: drop.agent.clone(),
            at: drop.at,
            status: drop.outcome.status,
            source: drop.outcome.source.clone(),
        };
        self.overridden.push(gone);
        keep
    }

    /// Show one agent's result in the agent slot (`None`: the newest of any agent). An agent
    /// with no result here leaves the slot not run.
    pub fn select_agent(&mut self, agent: Option<&str>) {
        let pick = match agent {
            None => self.agents.values().max_by(|a, b| a.at.cmp(&b.at)).map(|state| (**state).clone()),
            Some(name) => self.agents.get(&Some(name.to_string())).map(|state| (**state).clone()),
        };
        let fallback = || VariantState { agent: agent.map(str::to_string), ..VariantState::empty() };
        if let Some(state) = pick.or_else(|| agent.map(|_| fallback())) {
            self.variants[Variant::Agent as usize] = state;
        }
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

    /// The failing variant whose record is newest (a run just made on the board, say); among
    /// equally dated (or undated) ones the first of B, H, A.
    pub fn newest_failing(&self) -> Option<Variant> {
        let mut best: Option<Variant> = None;
        for v in Variant::ALL.into_iter().filter(|v| self.variant(*v).outcome.status.is_failure()) {
            if best.is_none_or(|b| self.variant(v).at > self.variant(b).at) {
                best = Some(v);
            }
        }
        best
    }

    /// The verdict that names the commit's category: the newest failing variant's, else the
    /// first skipped one's; a failure without text of its own falls back to the hint.
    pub fn verdict(&self) -> Option<&Verdict> {
        let state = match self.newest_failing() {
            Some(v) => self.variant(v),
            None => self.variants.iter().find(|v| v.outcome.status == RunStatus::Skipped)?,
        };
        state.verdict.as_deref().or(self.hint.as_deref())
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
            (None, CommitStatus::Failed) if self.pending => crate::classify::PENDING,
            (None, CommitStatus::Failed) => crate::classify::UNCLASSIFIED,
            (None, CommitStatus::Skipped) => "skipped",
            _ => "",
        }
    }
}

impl VariantState {
    /// A slot with nothing in it: not run, from no file.
    fn empty() -> VariantState {
        VariantState {
            outcome: Outcome::not_run(),
            verdict: None,
            at: None,
            agent: None,
            loaded: false,
            warnings: Vec::new(),
        }
    }

    fn failed(&self) -> bool {
        self.outcome.status != RunStatus::Success
    }
}

/// What a variant's verdict is read from: its recorded error, where it did not succeed (a run
/// that succeeded gets no verdict).
fn verdict_text(outcome: &Outcome) -> Option<String> {
    (outcome.status != RunStatus::Success).then(|| outcome.error.clone().unwrap_or_default())
}

/// What a commit-level verdict is read from: the upstream notes.
fn hint_text(commit: &Commit) -> String {
    commit.upstream.notes.join("\n")
}

/// Every agent with a result for some commit, by name.
pub fn agent_names(entries: &[Entry]) -> std::collections::BTreeSet<&String> {
    entries.iter().flat_map(|e| e.agents.keys().flatten()).collect()
}

/// A successful record of another kind of benchmark than the dataset's command for the commit
/// (a throughput run of a serving commit): it stands for its variant, and this says what it
/// measured, once per variant and kind.
fn other_kind(commit: &Commit, record: &ResultRecord, notes: &[String]) -> Option<String> {
    let asked = super::BenchKind::from_command(commit.perf_command.dataset.as_deref());
    let measured = record.outcome.workload.get("kind")?;
    let known = !matches!(asked, super::BenchKind::Other | super::BenchKind::None);
    if record.outcome.status != RunStatus::Success || !known || measured == asked.name() {
        return None;
    }
    let said = format!(
        "{} measured a {measured} benchmark; the dataset's command for the commit is a {} benchmark",
        record.variant.name(),
        asked.name()
    );
    let source = record.outcome.source.as_deref().unwrap_or("?");
    notes.iter().all(|n| !n.starts_with(&said)).then(|| format!("{said}: {source}"))
}

/// An entry's agents as a list of pairs: JSON keys are strings, and the key here may be `None`.
mod agents_as_pairs {
    use super::VariantState;
    use serde::{Deserialize, Deserializer, Serializer};
    use std::collections::BTreeMap;

    type Agents = BTreeMap<Option<String>, Box<VariantState>>;

    pub fn serialize<S: Serializer>(agents: &Agents, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(agents.iter())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Agents, D::Error> {
        Ok(Vec::<(Option<String>, Box<VariantState>)>::deserialize(d)?.into_iter().collect())
    }
}
