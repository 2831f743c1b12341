//! 3-way deltas on a commit's primary metric (direction-aware; positive = better), each only
//! between two results of one workload: otherwise the pair is "not comparable", with reasons.
//! Where the newest records of a pair differ, the newest pair of older records that agree is
//! used instead, and named.

use crate::dataset::{Entry, Measured, RunStatus, Variant, VariantState, Workload};
use crate::metrics::{Interval, Verdict, improvement_pct, interval, verdict};
use serde::Serialize;
use std::collections::HashMap;

/// The board's tie band, in percent.
pub const TIE_BAND_PCT: f64 = 2.0;

/// The three pairs: (name, reference, candidate).
pub const PAIRS: [(&str, Variant, Variant); 3] = [
    ("human_vs_baseline", Variant::Baseline, Variant::Human),
    ("agent_vs_baseline", Variant::Baseline, Variant::Agent),
    ("agent_vs_human", Variant::Human, Variant::Agent),
];

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair {
    pub name: &'static str,
    /// The delta in percent; `None` when not comparable or a value is missing.
    pub pct: Option<f64>,
    /// Both variants have a value for the metric (else there is nothing to compare).
    pub measured: bool,
    pub comparable: bool,
    /// Why not: each differing workload part, both sides.
    pub reasons: Vec<String>,
    /// Parts one side's record does not say, where both come from one harness (which ran one
    /// command for every variant): not checked, and not held against the pair.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unverified: Vec<String>,
    /// Where the values came from when they are older records, not the newest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub older: Option<String>,
    /// The delta's 95 % confidence interval, where both sides repeated their benchmark.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// How the verdict is reached: `95 % CI over 5+5 runs`, or `single runs: ±2 % band`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

impl Pair {
    /// Better, worse or tie: by the interval where there is one (a tie if it crosses zero),
    /// else by the `band_pct` band around a single run's delta.
    pub fn verdict(&self, band_pct: f64) -> Option<Verdict> {
        match (&self.interval, self.pct) {
            (Some(i), _) => Some(i.verdict()),
            (None, Some(pct)) => Some(verdict(pct, band_pct)),
            (None, None) => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub metric: &'static str,
    pub baseline: Option<f64>,
    pub human: Option<f64>,
    pub agent: Option<f64>,
    pub human_vs_baseline: Option<f64>,
    pub agent_vs_baseline: Option<f64>,
    pub agent_vs_human: Option<f64>,
    pub pairs: Vec<Pair>,
}

impl Comparison {
    pub fn pair(&self, name: &str) -> Option<&Pair> {
        self.pairs.iter().find(|p| p.name == name)
    }
}

pub fn compare(entry: &Entry) -> Option<Comparison> {
    let metric = entry.primary_metric()?;
    let value = |v: Variant| value_of(entry.variant(v), metric);
    let pairs: Vec<Pair> = PAIRS.iter().map(|&(name, r, c)| pair(entry, metric, name, r, c)).collect();
    let pct = |i: usize| pairs[i].pct;
    Some(Comparison {
        metric,
        baseline: value(Variant::Baseline),
        human: value(Variant::Human),
        agent: value(Variant::Agent),
        human_vs_baseline: pct(0),
        agent_vs_baseline: pct(1),
        agent_vs_human: pct(2),
        pairs,
    })
}

fn value_of(state: &VariantState, metric: &str) -> Option<f64> {
    let o = &state.outcome;
    (o.status == RunStatus::Success).then(|| o.metrics.get(metric).copied()).flatten()
}

fn pair(entry: &Entry, metric: &'static str, name: &'static str, r: Variant, c: Variant) -> Pair {
    let (reference, candidate) = (entry.variant(r), entry.variant(c));
    let values = value_of(reference, metric).zip(value_of(candidate, metric));
    let (reasons, unverified) = reasons(r, &reference.outcome.workload, c, &candidate.outcome.workload);
    let (measured, comparable) = (values.is_some(), reasons.is_empty());
    let mut out = Pair {
        name,
        pct: None,
        measured,
        comparable,
        reasons,
        unverified,
        older: None,
        interval: None,
        method: None,
    };
    match values {
        Some(_) if out.comparable => {
            (out.pct, out.interval) = delta(metric, Side::of(reference, metric), Side::of(candidate, metric));
        }
        Some(_) => {
            if let Some((a, b)) = older_pair(entry, metric, r, c) {
                (out.pct, out.interval) = delta(metric, Side::kept(a, metric), Side::kept(b, metric));
                out.older = Some(format!("older records: {} and {}", described(r, a), described(c, b)));
                out.comparable = true;
            }
        }
        None => {}
    }
    out.method = out.pct.map(|_| method(out.interval.as_ref()));
    out
}

/// What a verdict rests on.
fn method(interval: Option<&Interval>) -> String {
    match interval {
        Some(i) => format!("95 % CI over {}+{} runs", i.runs.0, i.runs.1),
        None => format!("single runs: ±{TIE_BAND_PCT} % band"),
    }
}

/// What a delta needs of one side: its value of the metric and its repeats' values.
#[derive(Clone, Copy)]
struct Side<'a> {
    value: Option<f64>,
    samples: &'a [f64],
}

impl<'a> Side<'a> {
    fn of(state: &'a VariantState, metric: &str) -> Side<'a> {
        let samples = state.outcome.samples.get(metric).map_or(&[][..], Vec::as_slice);
        Side { value: value_of(state, metric), samples }
    }

    fn kept(measured: &'a Measured, metric: &str) -> Side<'a> {
        Side { value: measured.value(metric), samples: measured.samples(metric) }
    }
}

/// The delta of two sides on `metric`, and its interval where both repeated (the delta is then
/// the interval's, from the means).
fn delta(metric: &str, reference: Side, candidate: Side) -> (Option<f64>, Option<Interval>) {
    let spread = interval(metric, reference.samples, candidate.samples);
    let single = || improvement_pct(metric, reference.value?, candidate.value?);
    (spread.map(|i| i.pct).or_else(single), spread)
}

/// Why two workloads are not one — each part that differs, or is known on one side only — and
/// the parts left unverified: known on one side only, within one harness.
pub fn reasons(r: Variant, a: &Workload, c: Variant, b: &Workload) -> (Vec<String>, Vec<String>) {
    let one_harness = a.same_harness(b);
    let (mut reasons, mut unverified) = (Vec::new(), Vec::new());
    for d in a.differences(b) {
        let text = format!("{}: {} {} — {} {}", d.label, r.name(), d.this, c.name(), d.other);
        if d.one_sided && one_harness { unverified.push(text) } else { reasons.push(text) }
    }
    (reasons, unverified)
}

/// The newest pair of successful records of `r` and `c` with the metric and one workload (as the
/// newest pair is judged: parts one record of a shared harness does not say are not held against it).
/// Records of two harnesses never agree (the harness is a part both name), so only pairs within
/// one harness are tried: the search grows with the records, not their square.
fn older_pair<'e>(
    entry: &'e Entry,
    metric: &str,
    r: Variant,
    c: Variant,
) -> Option<(&'e Measured, &'e Measured)> {
    let of = |v: Variant| entry.measured.iter().filter(move |m| m.variant == v && m.value(metric).is_some());
    let mut by_harness: HashMap<u64, Vec<(&Measured, Workload)>> = HashMap::new();
    for b in of(c) {
        by_harness.entry(b.harness).or_default().push((b, b.workload()));
    }
    let mut best: Option<(&Measured, &Measured)> = None;
    for a in of(r) {
        let Some(group) = by_harness.get(&a.harness) else { continue };
        let workload = a.workload();
        for (b, _) in group.iter().filter(|(_, w)| reasons(r, &workload, c, w).0.is_empty()) {
            if best.is_none_or(|(x, y)| a.at.max(b.at) > x.at.max(y.at)) {
                best = Some((a, b));
            }
        }
    }
    best
}

fn described(v: Variant, kept: &Measured) -> String {
    let at = kept.at.map(|t| format!(" at {t}")).unwrap_or_default();
    format!("{} from {}{at}", v.name(), kept.source.as_deref().unwrap_or("?"))
}
