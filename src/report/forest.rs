//! The forest plot's rows: for one pair of variants, each commit's relative difference on its
//! primary metric with its 95 % interval (or a single run's point), sorted by the estimate; a commit
//! with no estimate says why. The board's verdict plot and the HTML report draw the same rows.

use super::compare::{PAIRS, Pair, compare};
use crate::dataset::{Entry, RunStatus, Variant};
use crate::ids::Short;
use crate::metrics::{BANDS, Verdict};

/// One commit's row for a pair.
#[derive(Debug, Clone, PartialEq)]
pub struct ForestRow {
    pub short: Short,
    /// The estimate in percent, better positive; `None`: nothing to place.
    pub pct: Option<f64>,
    /// The 95 % interval, where both sides repeated.
    pub interval: Option<(f64, f64)>,
    /// The verdicts at ±2 % and ±5 %.
    pub verdicts: [Option<Verdict>; 2],
    /// Why there is no interval (a single run, constant repeats), or no estimate at all.
    pub why: Option<String>,
}

impl ForestRow {
    /// The verdict the row is coloured by: the ±2 % one.
    pub fn verdict(&self) -> Option<Verdict> {
        self.verdicts[0]
    }

    /// `+3.2% [+1.0, +5.4] beats at ±2/±5%`, with why it has no interval; or why there is no
    /// estimate.
    pub fn words(&self) -> String {
        let Some(pct) = self.pct else { return self.why.clone().unwrap_or_default() };
        let interval = self.interval.map_or(String::new(), |(l, h)| format!(" [{l:+.1}, {h:+.1}]"));
        let why = self.why.as_ref().map_or(String::new(), |w| format!(" ({w})"));
        format!("{pct:+.1}%{interval} {}{why}", verdict_words(self.verdicts))
    }
}

/// `beats at ±2/±5%`, `similar at ±2%, beats at ±5%`, or `no verdict`.
pub fn verdict_words(verdicts: [Option<Verdict>; 2]) -> String {
    match verdicts {
        [Some(two), Some(five)] if two == five => format!("{} at ±2/±5%", two.word()),
        [Some(two), Some(five)] => format!("{} at ±2%, {} at ±5%", two.word(), five.word()),
        _ => "no verdict".to_string(),
    }
}

/// The short names of `PAIRS`, in their order.
pub const PAIR_LABELS: [&str; 3] = ["H vs B", "A vs B", "A vs H"];

/// The short name of pair `i` of `PAIRS`.
pub fn pair_label(i: usize) -> &'static str {
    PAIR_LABELS[i % PAIRS.len()]
}

/// The rows of pair `i` for these commits: estimates highest first, then the rows without one.
pub fn forest<'a>(entries: impl IntoIterator<Item = &'a Entry>, i: usize) -> Vec<ForestRow> {
    let (_, reference, candidate) = PAIRS[i % PAIRS.len()];
    let mut rows: Vec<ForestRow> = entries.into_iter().map(|e| row(e, i, (reference, candidate))).collect();
    rows.sort_by(|a, b| match (a.pct, b.pct) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    rows
}

fn row(entry: &Entry, i: usize, sides: (Variant, Variant)) -> ForestRow {
    let short = entry.commit.short.clone();
    let Some(cmp) = compare(entry) else {
        let why = format!("not measured: no variant has a {} metric", entry.commit.kind().name());
        return ForestRow { short, pct: None, interval: None, verdicts: [None, None], why: Some(why) };
    };
    let pair = &cmp.pairs[i % PAIRS.len()];
    ForestRow {
        short,
        pct: pair.pct,
        interval: pair.interval.as_ref().map(|iv| (iv.low, iv.high)),
        verdicts: BANDS.map(|band| pair.verdict(band)),
        why: why_not(entry, cmp.metric, pair, sides),
    }
}

/// What the row cannot show: no estimate (a side not measured, the two not comparable), or no
/// interval (repeats that gave none, a single run).
fn why_not(entry: &Entry, metric: &str, pair: &Pair, sides: (Variant, Variant)) -> Option<String> {
    if !pair.measured {
        return Some(format!("not measured: {}", unmeasured(entry, metric, sides)));
    }
    if !pair.comparable {
        let first = pair.reasons.first().map_or(String::new(), |r| format!(": {r}"));
        return Some(format!("not comparable{first}"));
    }
    match (&pair.interval, &pair.no_interval) {
        (Some(_), _) => None,
        (None, Some(why)) => Some(why.to_string()),
        (None, None) => Some("single run".to_string()),
    }
}

/// `baseline error, agent has no throughput`: each side without a value of the metric.
fn unmeasured(entry: &Entry, metric: &str, (reference, candidate): (Variant, Variant)) -> String {
    let said = |v: Variant| {
        let outcome = &entry.variant(v).outcome;
        match outcome.status {
            RunStatus::Success if outcome.metrics.get(metric).is_some() => None,
            RunStatus::Success => Some(format!("{} has no {metric}", v.name())),
            status => Some(format!("{} {}", v.name(), status.word())),
        }
    };
    [reference, candidate].into_iter().filter_map(said).collect::<Vec<_>>().join(", ")
}

/// The half-width of a symmetric axis that shows nine rows in ten whole (and the ±5 % band
/// always), at most ±100 %: a few outliers do not squeeze the bands into a column; what lies
/// beyond is drawn at the edge.
pub fn axis_half_width(rows: &[ForestRow]) -> f64 {
    let placed = rows.iter().filter_map(|r| Some(r.interval.unwrap_or((r.pct?, r.pct?))));
    let mut widest: Vec<f64> =
        placed.map(|(low, high)| low.abs().max(high.abs())).filter(|b| b.is_finite()).collect();
    widest.sort_by(f64::total_cmp);
    let nine_in_ten = widest.get((widest.len() * 9).div_ceil(10).saturating_sub(1)).copied().unwrap_or(0.0);
    (nine_in_ten * 1.1).clamp(BANDS[1] * 1.2, 100.0)
}
