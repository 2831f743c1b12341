//! One metric vocabulary for every upstream spelling: canonical names, units, direction,
//! and direction-aware comparison. Pure; knows nothing of files or screens.

pub mod gates;
mod map;
mod marks;
pub mod parse;
pub mod rank;
mod spread;
pub mod stream;
mod vocabulary;

pub use spread::{BANDS, Interval, NoInterval, interval, mean};
pub use vocabulary::{MetricDef, canonical_name, definition};

use serde::{Deserialize, Serialize};

pub use map::Metrics;

/// Where a record's numbers came from: its raw benchmark output (whole, or salvaged from a cut
/// block, gaps filled from the file's own `metrics`), or only the metrics the file recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricsFrom {
    RawOutput,
    PartialRawOutput,
    PartialRawOutputAndRecorded,
    Recorded,
}

impl MetricsFrom {
    pub fn describe(self) -> &'static str {
        match self {
            MetricsFrom::RawOutput => "raw output",
            MetricsFrom::PartialRawOutput => "raw output (partial block)",
            MetricsFrom::PartialRawOutputAndRecorded => "raw output (partial block) + recorded metrics",
            MetricsFrom::Recorded => "recorded metrics (no raw output holds them)",
        }
    }
}

/// Raw output first (a partial block is topped up from `recorded`), else what the file recorded.
pub fn pick(raw: Option<&str>, recorded: Metrics) -> (Metrics, Option<MetricsFrom>) {
    pick_parsed(raw.map(parse::parse), recorded)
}

/// `pick` for output already parsed (`None`: there was no output).
pub fn pick_parsed(
    parsed: Option<Result<parse::Parsed, parse::NoMetrics>>,
    recorded: Metrics,
) -> (Metrics, Option<MetricsFrom>) {
    match parsed {
        Some(Ok(p)) if !p.partial => (p.metrics, Some(MetricsFrom::RawOutput)),
        Some(Ok(p)) if recorded.keys().all(|k| p.metrics.contains_key(k)) => {
            (p.metrics, Some(MetricsFrom::PartialRawOutput))
        }
        Some(Ok(mut p)) => {
            for (k, v) in recorded {
                p.metrics.entry(k).or_insert(v);
            }
            (p.metrics, Some(MetricsFrom::PartialRawOutputAndRecorded))
        }
        _ if recorded.is_empty() => (recorded, None),
        _ => (recorded, Some(MetricsFrom::Recorded)),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    HigherIsBetter,
    LowerIsBetter,
}

/// Normalise a map of upstream metric names; unknown names are kept verbatim so nothing is lost.
pub fn normalise<'a>(pairs: impl IntoIterator<Item = (&'a str, f64)>) -> Metrics {
    pairs
        .into_iter()
        .filter(|(_, v)| v.is_finite())
        .map(|(k, v)| (canonical_name(k).unwrap_or(k).to_string(), v))
        .collect()
}

/// Improvement of `candidate` over `reference` in percent; positive is better, whatever the direction.
pub fn improvement_pct(metric: &str, reference: f64, candidate: f64) -> Option<f64> {
    if reference == 0.0 || !reference.is_finite() || !candidate.is_finite() {
        return None;
    }
    let raw = (candidate - reference) / reference.abs() * 100.0;
    match definition(metric)?.direction {
        Direction::HigherIsBetter => Some(raw),
        Direction::LowerIsBetter => Some(-raw),
    }
}

/// A delta judged at a band, in ISO-Bench's terms (its paper's Beats, Similar, Worse at ±5 %),
/// and undecided where a 95 % interval still reaches over the band's edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Beats,
    Similar,
    Worse,
    Undecided,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Beats => "beats",
            Verdict::Similar => "similar",
            Verdict::Worse => "worse",
            Verdict::Undecided => "undecided",
        }
    }
}

/// A single run's point estimate against a band in percent (e.g. 2.0 for ±2 %): never undecided.
pub fn verdict(improvement: f64, band_pct: f64) -> Verdict {
    if improvement.abs() <= band_pct {
        Verdict::Similar
    } else if improvement > 0.0 {
        Verdict::Beats
    } else {
        Verdict::Worse
    }
}

/// Short human form: `22.7 ms`, `3170 tok/s`.
pub fn format_value(metric: &str, value: f64) -> String {
    let unit = definition(metric).map(|d| d.unit).unwrap_or("");
    let number = if value.abs() >= 1000.0 {
        format!("{value:.0}")
    } else if value.abs() >= 100.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    };
    if unit.is_empty() { number } else { format!("{number} {unit}") }
}
