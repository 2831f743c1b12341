//! 3-way deltas on a commit's primary metric (direction-aware; positive = better).

use crate::dataset::{Entry, RunStatus, Variant};
use crate::metrics::improvement_pct;
use serde::Serialize;

/// The board's tie band, in percent.
pub const TIE_BAND_PCT: f64 = 2.0;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub metric: &'static str,
    pub baseline: Option<f64>,
    pub human: Option<f64>,
    pub agent: Option<f64>,
    pub human_vs_baseline: Option<f64>,
    pub agent_vs_baseline: Option<f64>,
    pub agent_vs_human: Option<f64>,
}

pub fn compare(entry: &Entry) -> Option<Comparison> {
    let metric = entry.primary_metric()?;
    let value = |v: Variant| {
        let o = &entry.variant(v).outcome;
        (o.status == RunStatus::Success).then(|| o.metrics.get(metric).copied()).flatten()
    };
    let (b, h, a) = (value(Variant::Baseline), value(Variant::Human), value(Variant::Agent));
    let delta =
        |reference: Option<f64>, candidate: Option<f64>| improvement_pct(metric, reference?, candidate?);
    Some(Comparison {
        metric,
        baseline: b,
        human: h,
        agent: a,
        human_vs_baseline: delta(b, h),
        agent_vs_baseline: delta(b, a),
        agent_vs_human: delta(h, a),
    })
}
