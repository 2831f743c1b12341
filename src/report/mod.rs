//! Headless truth: per-commit status records (`status --json`) and the report tables, computed from
//! the same entries and triage book the board shows. Pure; formatting lives in `format`.

mod campaign;
mod compare;
mod forest;
mod format;
mod html;
mod markup;
mod morning;
mod patches;
mod status;
mod svg;

pub use campaign::CampaignOutcome;
pub use compare::{BOARD_BAND_PCT, Comparison, PAIRS, Pair, compare, reasons};
pub use forest::{ForestRow, PAIR_LABELS, axis_half_width, forest, pair_label, verdict_words};
pub use format::{ReportFormat, render};
pub use morning::{MorningRow, csv as morning_csv, duration, hours};
pub use patches::PatchRow;
pub use status::{STATUS_SCHEMA_VERSION, StatusRecord, status_record};

use crate::dataset::{Entry, Variant};
use crate::ids::Short;
use crate::metrics::Verdict;
use crate::triage::{Mark, TriageBook};
use serde::Serialize;
use std::collections::BTreeMap;

/// Agent vs human verdicts at one band: the agent worse (a human win), beats (an agent win),
/// similar, undecided (its interval reaches over the band's edge), or repeats with no interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Outcomes {
    pub human_wins: usize,
    pub agent_wins: usize,
    pub similar: usize,
    pub undecided: usize,
    pub no_interval: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    pub schema_version: u32,
    pub commits: usize,
    pub by_status: BTreeMap<String, usize>,
    pub by_category: BTreeMap<String, usize>,
    pub by_kind: BTreeMap<String, usize>,
    pub by_gpu: BTreeMap<String, usize>,
    /// Per variant: status word → count.
    pub by_variant: BTreeMap<String, BTreeMap<String, usize>>,
    /// Agent vs human on each commit's primary metric, at ±2% and ±5%.
    pub three_way_2pct: Outcomes,
    pub three_way_5pct: Outcomes,
    /// Commits without a comparable human and agent value for the primary metric.
    pub not_comparable: usize,
    /// Per pair (`agent_vs_human`, …): whether its two values measured one workload, and why not.
    pub comparability: BTreeMap<String, Comparability>,
    /// The same 3-way outcome with each agent's own results in the agent slot.
    pub by_agent: BTreeMap<String, AgentOutcomes>,
    pub unfixable: Vec<(Short, String)>,
    pub skipped: Vec<Short>,
    /// (commit, variant, fixes): numbers measured in a modified environment.
    pub modified: Vec<(Short, String, Vec<String>)>,
    /// Files changed by the human and the agent, and by both, for commits with a patch known.
    pub patches: Vec<PatchRow>,
    /// (commit, variant, gate): results that said success but failed a validity gate.
    pub invalid_measurements: Vec<(Short, String, String)>,
    /// The workspace's newest campaign and its outcome, where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub campaign: Option<(String, CampaignOutcome)>,
    /// That campaign's cells the morning after.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub campaign_cells: Vec<MorningRow>,
}

/// One pair over all commits that have both of its values.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Comparability {
    pub with_values: usize,
    /// The newest records measured one workload.
    pub comparable: usize,
    /// They did not, but an older pair of records did (that pair is used).
    pub comparable_older: usize,
    pub not_comparable: usize,
    /// Workload part → pairs it made not comparable.
    pub reasons: BTreeMap<String, usize>,
}

impl Comparability {
    /// A pair with both values; its reasons are the newest records' (none when they agreed).
    fn count(&mut self, pair: &Pair) {
        self.with_values += 1;
        match (pair.comparable, &pair.older) {
            (true, None) => self.comparable += 1,
            (true, Some(_)) => self.comparable_older += 1,
            (false, _) => self.not_comparable += 1,
        }
        for reason in &pair.reasons {
            let part = reason.split(':').next().unwrap_or(reason);
            *self.reasons.entry(part.to_string()).or_default() += 1;
        }
    }
}

/// Count a commit's pairs that have both values.
fn count_pairs(out: &mut BTreeMap<String, Comparability>, cmp: Option<&Comparison>) {
    for pair in cmp.iter().flat_map(|c| &c.pairs).filter(|p| p.measured) {
        out.entry(pair.name.to_string()).or_default().count(pair);
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AgentOutcomes {
    /// Commits with a result of this agent.
    pub commits: usize,
    pub three_way_2pct: Outcomes,
    pub three_way_5pct: Outcomes,
    pub not_comparable: usize,
}

/// Per agent: its results in the agent slot, compared with the human on the primary metric.
fn by_agent(entries: &[Entry]) -> BTreeMap<String, AgentOutcomes> {
    let names = crate::dataset::agent_names(entries);
    let mut out = BTreeMap::new();
    for name in names {
        let mut tally = AgentOutcomes::default();
        for entry in entries.iter().filter(|e| e.agents.contains_key(&Some(name.clone()))) {
            let mut entry = entry.clone();
            entry.select_agent(Some(name));
            tally.commits += 1;
            let cmp = compare(&entry);
            if !tally_agent_vs_human(cmp.as_ref(), &mut tally.three_way_2pct, &mut tally.three_way_5pct) {
                tally.not_comparable += 1;
            }
        }
        out.insert(name.clone(), tally);
    }
    out
}

/// All three variants measured on the primary metric and every pair of them comparable: a commit
/// the benchmark can count.
pub fn usable_3way(entry: &Entry) -> bool {
    compare(entry).is_some_and(|c| c.pairs.len() == 3 && c.pairs.iter().all(|p| p.measured && p.comparable))
}

pub fn build(entries: &[Entry], book: &TriageBook) -> Report {
    let mut r = Report {
        schema_version: STATUS_SCHEMA_VERSION,
        commits: entries.len(),
        by_agent: by_agent(entries),
        ..Report::default()
    };
    for entry in entries {
        let c = &entry.commit;
        *r.by_status.entry(entry.status().name().into()).or_default() += 1;
        let category = entry.category();
        if !category.is_empty() {
            *r.by_category.entry(category.into()).or_default() += 1;
        }
        *r.by_kind.entry(c.kind().name().into()).or_default() += 1;
        *r.by_gpu.entry(c.gpu.clone().unwrap_or_else(|| "unknown".into())).or_default() += 1;
        for v in Variant::ALL {
            // "Measured" in modified environments: a run that failed measured nothing.
            let outcome = &entry.variant(v).outcome;
            if !outcome.fixes.is_empty() && outcome.status == crate::dataset::RunStatus::Success {
                r.modified.push((c.short.clone(), v.name().into(), outcome.fixes.clone()));
            }
            if let Some(gate) = entry.variant(v).verdict.as_ref().and_then(|x| x.gate()) {
                r.invalid_measurements.push((c.short.clone(), v.name().into(), gate.into()));
            }
            let word = entry.variant(v).outcome.status.word();
            *r.by_variant.entry(v.name().into()).or_default().entry(word.into()).or_default() += 1;
        }
        let cmp = compare(entry);
        count_pairs(&mut r.comparability, cmp.as_ref());
        if !tally_agent_vs_human(cmp.as_ref(), &mut r.three_way_2pct, &mut r.three_way_5pct) {
            r.not_comparable += 1;
        }
        match book.mark(&c.short) {
            Some(Mark::Unfixable { reason }) => r.unfixable.push((c.short.clone(), reason)),
            Some(Mark::Skip) => r.skipped.push(c.short.clone()),
            None => {}
        }
    }
    r
}

/// Agent vs human of a commit's comparison into the ±2 % and ±5 % tallies (by its confidence
/// interval where both repeated); `false` when there is no comparable pair of values.
fn tally_agent_vs_human(cmp: Option<&Comparison>, at_2: &mut Outcomes, at_5: &mut Outcomes) -> bool {
    let Some(pair) = cmp.and_then(|c| c.pair("agent_vs_human")) else { return false };
    if pair.pct.is_none() {
        return false;
    }
    tally_outcome(at_2, pair.verdict_2pct);
    tally_outcome(at_5, pair.verdict_5pct);
    true
}

fn tally_outcome(outcomes: &mut Outcomes, v: Option<Verdict>) {
    match v {
        Some(Verdict::Beats) => outcomes.agent_wins += 1,
        Some(Verdict::Worse) => outcomes.human_wins += 1,
        Some(Verdict::Similar) => outcomes.similar += 1,
        Some(Verdict::Undecided) => outcomes.undecided += 1,
        None => outcomes.no_interval += 1,
    }
}
