//! 3-way deltas on a commit's primary metric (direction-aware; positive = better), each only
//! between two results of one workload: otherwise the pair is "not comparable", with reasons.
//! Where the newest records of a pair differ, the newest pair of older records that agree is
//! used instead, and named.

use crate::dataset::{Entry, Measured, RunStatus, Variant, VariantState, Workload};
use crate::metrics::{BANDS, Interval, NoInterval, Verdict, improvement_pct, interval, verdict};
use serde::Serialize;
use std::collections::HashMap;

/// The band the board's A-vs-H column judges at, in percent (the narrower of the two).
pub const BOARD_BAND_PCT: f64 = BANDS[0];

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
    /// Why repeats gave no interval (and so no verdict): `no interval: both sides constant …`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_interval: Option<NoInterval>,
    /// How the verdict is reached: `95 % CI over 5+5 runs`, `single runs: point estimate`, or
    /// the reason there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The verdict at ±2 % and at ±5 % (`verdict()` of each of `metrics::BANDS`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict_2pct: Option<Verdict>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict_5pct: Option<Verdict>,
}

impl Pair {
    /// At band `band_pct`: by the interval where both repeated; none where repeats gave no
    /// interval; else by a single run's point estimate.
    pub fn verdict(&self, band_pct: f64) -> Option<Verdict> {
        match (&self.interval, &self.no_interval, self.pct) {
            (Some(i), _, _) => Some(i.verdict_at(band_pct)),
            (None, Some(_), _) => None,
            (None, None, pct) => pct.map(|pct| verdict(pct, band_pct)),
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
    /// Where the primary metric is not the one its benchmark kind names first, or a successful
    /// variant lacks it: said, never a silent switch.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
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
        missing: missing(entry, metric),
        pairs,
    })
}

/// What the primary metric choice leaves out: the kind's first metric where another stands in,
/// and each successful variant without the chosen one.
fn missing(entry: &Entry, metric: &str) -> Vec<String> {
    let first = entry.commit.kind().primary_candidates().first().copied();
    let mut out: Vec<String> = first
        .filter(|f| *f != metric)
        .map(|f| format!("{f} (the benchmark's first metric) is in fewer records: compared on {metric}"))
        .into_iter()
        .collect();
    for v in Variant::ALL {
        let o = &entry.variant(v).outcome;
        if o.status == RunStatus::Success && !o.metrics.contains_key(metric) {
            out.push(format!("{} has no {metric}", v.name()));
        }
    }
    out
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
        no_interval: None,
        method: None,
        verdict_2pct: None,
        verdict_5pct: None,
    };
    match values {
        Some(_) if out.comparable => {
            out.judge(delta(metric, Side::of(reference, metric), Side::of(candidate, metric)));
        }
        Some(_) => {
            if let Some((a, b)) = older_pair(entry, metric, r, c) {
                out.judge(delta(metric, Side::kept(a, metric), Side::kept(b, metric)));
                out.older = Some(format!("older records: {} and {}", described(r, a), described(c, b)));
                out.comparable = true;
            }
        }
        None => {}
    }
    out
}

impl Pair {
    /// The pair's delta, its interval or why there is none, and its verdicts at the bands.
    fn judge(&mut self, delta: Delta) {
        (self.pct, self.interval, self.no_interval) = (delta.pct, delta.interval, delta.no_interval);
        self.method = self.pct.map(|_| self.method());
        [self.verdict_2pct, self.verdict_5pct] = BANDS.map(|band| self.verdict(band));
    }

    /// What a verdict rests on.
    fn method(&self) -> String {
        match (&self.interval, &self.no_interval) {
            (Some(i), _) => format!("95 % CI over {}+{} runs", i.runs.0, i.runs.1),
            (None, Some(why)) => why.to_string(),
            (None, None) => "single runs: point estimate".to_string(),
        }
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

    /// Each run's value: the repeats', or a single run's one.
    fn runs(&self) -> Vec<f64> {
        if self.samples.is_empty() { self.value.into_iter().collect() } else { self.samples.to_vec() }
    }
}

/// A delta of two sides, with its interval or why repeats gave none.
#[derive(Clone, Copy)]
struct Delta {
    pct: Option<f64>,
    interval: Option<Interval>,
    no_interval: Option<NoInterval>,
}

/// The delta of two sides on `metric`: single runs by their values; where either side repeated,
/// the interval's (from the means), or the values' delta and why there is no interval.
fn delta(metric: &str, reference: Side, candidate: Side) -> Delta {
    let single = reference.value.zip(candidate.value).and_then(|(r, c)| improvement_pct(metric, r, c));
    if reference.samples.is_empty() && candidate.samples.is_empty() {
        return Delta { pct: single, interval: None, no_interval: None };
    }
    match interval(metric, &reference.runs(), &candidate.runs()) {
        Ok(i) => Delta { pct: Some(i.pct), interval: Some(i), no_interval: None },
        Err(why) => Delta { pct: single, interval: None, no_interval: Some(why) },
    }
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
