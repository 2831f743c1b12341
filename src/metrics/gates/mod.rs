//! Validity gates: what a measurement must show before it can be a success. A "success" that
//! served no request, generated no token, ran for no time, has no numbers or a primary metric of
//! zero or not a number measured nothing; it becomes an `invalid_measurement` failure naming the
//! gate and the line that failed it.

mod scan;

pub use scan::Scan;

use super::Metrics;
use crate::classify::{Classifier, Verdict};
use scan::{HEADLINES, Label};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// One gate a measurement has to pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// A success with no numbers at all.
    NoMetrics,
    NoSuccessfulRequests,
    /// More failed requests than `[gates] max_failed_requests` allows (by default: any).
    FailedRequests,
    NoGeneratedTokens,
    ZeroThroughput,
    ZeroDuration,
    /// A latency run without a (positive, finite) latency: its iterations did not run.
    NoLatency,
    /// The primary metric (TPOT, TTFT, ITL, latency, throughput) is zero.
    ZeroPrimaryMetric,
    /// The primary metric is `nan` or infinite: dropped, another metric would stand in silently.
    NonFinitePrimaryMetric,
}

/// Every gate, in the order they are checked.
const ALL: [Gate; 9] = [
    Gate::NoMetrics,
    Gate::NoSuccessfulRequests,
    Gate::FailedRequests,
    Gate::NoGeneratedTokens,
    Gate::ZeroDuration,
    Gate::NonFinitePrimaryMetric,
    Gate::ZeroPrimaryMetric,
    Gate::ZeroThroughput,
    Gate::NoLatency,
];

impl Gate {
    pub fn from_name(name: &str) -> Option<Gate> {
        ALL.into_iter().find(|g| g.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Gate::NoMetrics => "no_metrics",
            Gate::NoSuccessfulRequests => "no_successful_requests",
            Gate::FailedRequests => "failed_requests",
            Gate::NoGeneratedTokens => "no_generated_tokens",
            Gate::ZeroThroughput => "zero_throughput",
            Gate::ZeroDuration => "zero_duration",
            Gate::NoLatency => "no_latency",
            Gate::ZeroPrimaryMetric => "zero_primary_metric",
            Gate::NonFinitePrimaryMetric => "non_finite_primary_metric",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Gate::NoMetrics => "it says success but recorded no metrics",
            Gate::NoSuccessfulRequests => "no request succeeded",
            Gate::FailedRequests => "more requests failed than [gates] max_failed_requests allows",
            Gate::NoGeneratedTokens => "the benchmark generated no tokens",
            Gate::ZeroThroughput => "a throughput of zero",
            Gate::ZeroDuration => "the benchmark ran for no time",
            Gate::NoLatency => "the latency run measured no latency",
            Gate::ZeroPrimaryMetric => "its primary metric is zero",
            Gate::NonFinitePrimaryMetric => "its primary metric is not a number",
        }
    }
}

/// A gate that failed and the line (or metric) that failed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateFailure {
    pub gate: Gate,
    pub evidence: String,
}

impl std::fmt::Display for GateFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "gate {}: {} (`{}`)", self.gate.name(), self.gate.describe(), self.evidence)
    }
}

impl GateFailure {
    /// The `invalid_measurement` verdict, naming the gate (field, explanation, a `gate:` tag).
    pub fn verdict(&self, classifier: &Classifier) -> Option<Verdict> {
        let mut verdict = classifier.named("invalid_measurement", &self.evidence)?;
        verdict.field = Some(format!("gate {}", self.gate.name()));
        verdict.explain = format!("{}: {}", self.gate.describe(), verdict.explain);
        verdict.tags.push(format!("gate:{}", self.gate.name()));
        Some(verdict)
    }
}

/// `[gates]`: how many failed requests a measurement may have.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// More failed requests than this make the measurement invalid (default 0: any).
    pub max_failed_requests: u64,
}

static CONFIGURED: OnceLock<Limits> = OnceLock::new();

/// Set this process's limits from its config (`[gates]`), once, before any result is read; a
/// later call changes nothing. Every reader of result files and logs gates by `configured()`.
pub fn configure(limits: Limits) {
    let _ = CONFIGURED.set(limits);
}

/// The limits `configure` set, else the defaults.
pub fn configured() -> Limits {
    CONFIGURED.get().copied().unwrap_or_default()
}

/// Throughputs that must not be zero where a measurement has them.
const THROUGHPUTS: &[&str] =
    &["request_throughput", "output_throughput", "total_throughput", "input_throughput", "throughput"];

/// The metrics a record's primary one is taken from, in order (where its output shows none).
const PRIMARY: [&str; 5] = ["tpot_mean", "ttft_mean", "itl_mean", "latency_avg", "throughput"];

/// The first gate a successful measurement fails: `texts` hold its benchmark output, in order
/// (the last value of each labelled line counts), `metrics` its numbers.
pub fn check(texts: &[&str], metrics: &Metrics, limits: &Limits) -> Option<GateFailure> {
    check_scanned(&Scan::of(texts), metrics, limits)
}

/// `check` of output already scanned (a log read block by block).
pub fn check_scanned(scan: &Scan, metrics: &Metrics, limits: &Limits) -> Option<GateFailure> {
    if metrics.is_empty() {
        return Some(GateFailure { gate: Gate::NoMetrics, evidence: "metrics: {}".into() });
    }
    line_gates(scan, limits).or_else(|| metric_gates(metrics, scan.one_token_each()))
}

/// Per-token metrics a run with one output token a request cannot have (TPOT, ITL): its primary
/// metric is then TTFT.
pub const PER_TOKEN: [&str; 2] = ["tpot_", "itl_"];

/// Drop from `metrics` what `scan` shows is undefined (TPOT and ITL of one-token outputs); whether
/// any was dropped.
pub fn drop_undefined(scan: &Scan, metrics: &mut Metrics) -> bool {
    if !scan.one_token_each() {
        return false;
    }
    let before = metrics.len();
    metrics.retain(|name, _| !PER_TOKEN.iter().any(|p| name.starts_with(p)));
    metrics.len() < before
}

/// The gates a plain benchmark log fails, read from its lines (`Scan::feed` block by block);
/// none for a log with no benchmark result lines (it claims no measurement).
pub fn check_log(scan: &Scan, limits: &Limits) -> Option<GateFailure> {
    line_gates(scan, limits)
}

/// The gates read from labelled output lines.
fn line_gates(scan: &Scan, limits: &Limits) -> Option<GateFailure> {
    let fail = |gate, line: &str| Some(GateFailure { gate, evidence: line.to_string() });
    if let Some((_, line)) = scan.last(Label::Successful).filter(|(n, _)| *n <= 0.0) {
        return fail(Gate::NoSuccessfulRequests, line);
    }
    if let Some((_, line)) = scan.last(Label::Failed).filter(|(n, _)| *n > limits.max_failed_requests as f64)
    {
        return fail(Gate::FailedRequests, line);
    }
    if let Some((_, line)) = scan.last(Label::GeneratedTokens).filter(|(n, _)| *n == 0.0) {
        return fail(Gate::NoGeneratedTokens, line);
    }
    if let Some((_, line)) = scan.last(Label::Duration).filter(|(n, _)| *n == 0.0) {
        return fail(Gate::ZeroDuration, line);
    }
    let undefined = |label: &Label| scan.one_token_each() && matches!(label, Label::Tpot | Label::Itl);
    let (value, line) = HEADLINES.iter().filter(|l| !undefined(l)).find_map(|&label| scan.last(label))?;
    primary_gate(value).and_then(|gate| fail(gate, line))
}

/// A primary metric's gate: not a number, or zero.
fn primary_gate(value: f64) -> Option<Gate> {
    match () {
        _ if !value.is_finite() => Some(Gate::NonFinitePrimaryMetric),
        _ if value == 0.0 => Some(Gate::ZeroPrimaryMetric),
        _ => None,
    }
}

/// The gates read from the numbers themselves.
fn metric_gates(metrics: &Metrics, one_token_each: bool) -> Option<GateFailure> {
    let shown = |gate, name: &str, v: f64| Some(GateFailure { gate, evidence: format!("{name} = {v}") });
    let defined = |name: &&&str| !(one_token_each && PER_TOKEN.iter().any(|p| name.starts_with(p)));
    if let Some((name, &v)) = PRIMARY.iter().filter(defined).find_map(|n| Some((*n, metrics.get(*n)?)))
        && let Some(gate) = primary_gate(v)
    {
        return shown(gate, name, v);
    }
    if let Some((name, v)) =
        THROUGHPUTS.iter().find_map(|n| Some((*n, *metrics.get(*n)?)).filter(|(_, v)| *v <= 0.0))
    {
        return shown(Gate::ZeroThroughput, name, v);
    }
    if let Some(&v) = metrics.get("elapsed_time").filter(|v| **v <= 0.0) {
        return shown(Gate::ZeroDuration, "elapsed_time", v);
    }
    let latency = metrics.get("latency_avg").copied();
    latency.filter(|v| !v.is_finite() || *v <= 0.0).and_then(|v| shown(Gate::NoLatency, "latency_avg", v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics(pairs: &[(&str, f64)]) -> Metrics {
        pairs.iter().map(|(k, v)| ((*k).to_string(), *v)).collect()
    }

    const BLOCK: &str = "============ Serving Benchmark Result ============\nSuccessful requests:                     100\nBenchmark duration (s):                  2.02\nTotal generated tokens:                  6400\nRequest throughput (req/s):              49.54\n";

    #[test]
    fn a_measurement_that_served_and_generated_passes() {
        let m = metrics(&[("request_throughput", 49.54), ("output_throughput", 3170.3)]);
        assert_eq!(check(&[BLOCK], &m, &Limits::default()), None);
    }

    #[test]
    fn each_gate_names_itself_and_its_line() {
        let m = metrics(&[("request_throughput", 49.54)]);
        let gate =
            |text: &str, m: &Metrics| check(&[text], m, &Limits::default()).map(|f| (f.gate, f.evidence));
        let zero_tokens = BLOCK.replace("6400", "0");
        assert_eq!(
            gate(&zero_tokens, &m),
            Some((Gate::NoGeneratedTokens, "Total generated tokens:                  0".into()))
        );
        let none_served =
            BLOCK.replace("Successful requests:                     100", "Successful requests: 0");
        assert_eq!(
            gate(&none_served, &m),
            Some((Gate::NoSuccessfulRequests, "Successful requests: 0".into()))
        );
        let zero_time = BLOCK.replace("2.02", "0.00");
        assert_eq!(gate(&zero_time, &m).unwrap().0, Gate::ZeroDuration);
        assert_eq!(gate(BLOCK, &Metrics::new()).unwrap().0, Gate::NoMetrics);
        let zero = metrics(&[("output_throughput", 0.0)]);
        assert_eq!(gate(BLOCK, &zero), Some((Gate::ZeroThroughput, "output_throughput = 0".into())));
        let nan = metrics(&[("latency_avg", f64::NAN)]);
        assert_eq!(gate("", &nan).unwrap().0, Gate::NonFinitePrimaryMetric);
        let negative = metrics(&[("latency_avg", -1.0)]);
        assert_eq!(gate("", &negative).unwrap().0, Gate::NoLatency);
    }

    #[test]
    fn failed_requests_fail_beyond_max_failed_requests_any_of_them_by_default() {
        let m = metrics(&[("request_throughput", 1.0)]);
        let some_failed = format!("{BLOCK}Failed requests:                         40\n");
        let failed = check(&[&some_failed], &m, &Limits::default()).unwrap();
        assert_eq!(
            (failed.gate, failed.evidence.as_str()),
            (Gate::FailedRequests, "Failed requests:                         40")
        );
        assert_eq!(check(&[&some_failed], &m, &Limits { max_failed_requests: 40 }), None);
        assert!(check(&[&some_failed], &m, &Limits { max_failed_requests: 39 }).is_some());
        let none_failed = format!("{BLOCK}Failed requests:                         0\n");
        assert_eq!(check(&[&none_failed], &m, &Limits::default()), None);
        let all_failed = "Successful requests: 0\nFailed requests: 100\n";
        assert_eq!(check(&[all_failed], &m, &Limits::default()).unwrap().gate, Gate::NoSuccessfulRequests);
    }

    #[test]
    fn a_zero_or_nan_primary_metric_is_invalid_naming_its_line() {
        let m = metrics(&[("tpot_mean", 0.0), ("ttft_mean", 12.0)]);
        let tpot = |v: &str| {
            format!(
                "{BLOCK}Mean TTFT (ms):                          12.00\nMean TPOT (ms):                          {v}\n"
            )
        };
        let zero = check(&[&tpot("0.00")], &m, &Limits::default()).unwrap();
        assert_eq!(
            (zero.gate, zero.evidence.as_str()),
            (Gate::ZeroPrimaryMetric, "Mean TPOT (ms):                          0.00")
        );
        let nan = check(&[&tpot("nan")], &metrics(&[("ttft_mean", 12.0)]), &Limits::default()).unwrap();
        assert_eq!(nan.gate, Gate::NonFinitePrimaryMetric, "a nan TPOT never lets TTFT stand in");
        assert_eq!(check(&[&tpot("22.70")], &metrics(&[("tpot_mean", 22.7)]), &Limits::default()), None);
        // Numbers without output lines: the first primary metric the record has.
        let zero = check(&[""], &m, &Limits::default()).unwrap();
        assert_eq!((zero.gate, zero.evidence.as_str()), (Gate::ZeroPrimaryMetric, "tpot_mean = 0"));
    }

    #[test]
    fn a_plain_log_is_gated_by_its_lines_and_one_without_results_is_not() {
        let mut scan = Scan::default();
        scan.feed("INFO: starting\n");
        assert_eq!(check_log(&scan, &Limits::default()), None, "no benchmark lines: no claim");
        scan.feed("Successful requests:                     0\n");
        assert_eq!(check_log(&scan, &Limits::default()).unwrap().gate, Gate::NoSuccessfulRequests);
    }
}
