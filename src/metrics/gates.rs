//! Validity gates: what a measurement must show before it can be a success. A "success" that
//! served no request, generated no token, ran for no time or has no numbers measured nothing;
//! it becomes an `invalid_measurement` failure naming the gate and the line that failed it.

use super::Metrics;
use crate::classify::{Classifier, Verdict};
use aho_corasick::AhoCorasick;
use serde::Serialize;
use std::sync::LazyLock;

/// One gate a measurement has to pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// A success with no numbers at all.
    NoMetrics,
    NoSuccessfulRequests,
    /// More failed requests than the bound allows (by default: all of them).
    FailedRequests,
    NoGeneratedTokens,
    ZeroThroughput,
    ZeroDuration,
    /// A latency run without a (positive, finite) latency: its iterations did not run.
    NoLatency,
}

/// Every gate, in the order they are checked.
const ALL: [Gate; 7] = [
    Gate::NoMetrics,
    Gate::NoSuccessfulRequests,
    Gate::FailedRequests,
    Gate::NoGeneratedTokens,
    Gate::ZeroThroughput,
    Gate::ZeroDuration,
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
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Gate::NoMetrics => "it says success but recorded no metrics",
            Gate::NoSuccessfulRequests => "no request succeeded",
            Gate::FailedRequests => "more requests failed than the bound allows",
            Gate::NoGeneratedTokens => "the benchmark generated no tokens",
            Gate::ZeroThroughput => "a throughput of zero",
            Gate::ZeroDuration => "the benchmark ran for no time",
            Gate::NoLatency => "the latency run measured no latency",
        }
    }
}

/// A gate that failed and the line (or metric) that failed it.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

/// How many failed requests a measurement may have, as a share of all it sent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Above this share the measurement is invalid; 1.0 (the default) lets all but all fail.
    pub max_failed_share: f64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_failed_share: 1.0 }
    }
}

/// Throughputs that must not be zero where a measurement has them.
const THROUGHPUTS: &[&str] =
    &["request_throughput", "output_throughput", "total_throughput", "input_throughput", "throughput"];

/// The first gate a successful measurement fails: `texts` hold its benchmark output, in order
/// (the last value of each labelled line counts), `metrics` its numbers.
pub fn check(texts: &[&str], metrics: &Metrics, limits: &Limits) -> Option<GateFailure> {
    let fail = |gate, evidence: &str| Some(GateFailure { gate, evidence: evidence.trim().to_string() });
    if metrics.is_empty() {
        return fail(Gate::NoMetrics, "metrics: {}");
    }
    let lines = Labelled::read(texts);
    let successful = lines.last(Label::Successful);
    if let Some((n, line)) = successful
        && n <= 0.0
    {
        return fail(Gate::NoSuccessfulRequests, line);
    }
    if let Some((failed, line)) = lines.last(Label::Failed) {
        let sent = failed + successful.map_or(0.0, |(n, _)| n);
        if failed > 0.0 && failed / sent > limits.max_failed_share.min(1.0 - f64::EPSILON) {
            return fail(Gate::FailedRequests, line);
        }
    }
    if let Some((0.0, line)) = lines.last(Label::GeneratedTokens) {
        return fail(Gate::NoGeneratedTokens, line);
    }
    metric_gates(&lines, metrics).map(|(gate, evidence)| GateFailure { gate, evidence })
}

/// The gates read from the numbers themselves.
fn metric_gates(lines: &Labelled, metrics: &Metrics) -> Option<(Gate, String)> {
    let shown = |name: &str, v: f64| format!("{name} = {v}");
    if let Some((name, v)) =
        THROUGHPUTS.iter().find_map(|n| Some((*n, *metrics.get(*n)?)).filter(|(_, v)| *v <= 0.0))
    {
        return Some((Gate::ZeroThroughput, shown(name, v)));
    }
    if let Some((0.0, line)) = lines.last(Label::Duration) {
        return Some((Gate::ZeroDuration, line.trim().to_string()));
    }
    if let Some(&v) = metrics.get("elapsed_time").filter(|v| **v <= 0.0) {
        return Some((Gate::ZeroDuration, shown("elapsed_time", v)));
    }
    let latency = metrics.get("latency_avg").copied();
    latency.filter(|v| !v.is_finite() || *v <= 0.0).map(|v| (Gate::NoLatency, shown("latency_avg", v)))
}

/// The benchmark output lines the gates read, in the order of `LABELS`.
#[derive(Debug, Clone, Copy)]
enum Label {
    Successful,
    Failed,
    GeneratedTokens,
    Duration,
}

const LABELS: [&str; 4] =
    ["Successful requests:", "Failed requests:", "Total generated tokens:", "Benchmark duration (s):"];

static FINDER: LazyLock<AhoCorasick> =
    LazyLock::new(|| AhoCorasick::new(LABELS).unwrap_or_else(|e| unreachable!("four literals: {e}")));

/// Each label's last line with a number (the last text that has one, its last such line), found
/// in one forward pass over each text where it lies (no copy of them joined).
struct Labelled<'a> {
    last: [Option<(f64, &'a str)>; LABELS.len()],
}

impl<'a> Labelled<'a> {
    fn read(texts: &[&'a str]) -> Labelled<'a> {
        let mut last = [None; LABELS.len()];
        for text in texts {
            for found in FINDER.find_iter(text) {
                if let Some(value) = value_at(text, found.start(), found.end()) {
                    last[found.pattern().as_usize()] = Some(value);
                }
            }
        }
        Labelled { last }
    }

    fn last(&self, label: Label) -> Option<(f64, &'a str)> {
        self.last[label as usize]
    }
}

/// The number after the label at `start..end` and its line, where the label begins the line
/// (after blanks) and a number follows it.
fn value_at(text: &str, start: usize, end: usize) -> Option<(f64, &str)> {
    let before = &text[..start];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    if !before[line_start..].trim().is_empty() {
        return None;
    }
    let line_end = memchr::memchr(b'\n', &text.as_bytes()[end..]).map_or(text.len(), |i| end + i);
    let value = text[end..line_end].trim().parse::<f64>().ok()?;
    Some((value, &text[line_start..line_end]))
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
        assert_eq!(gate("", &nan).unwrap().0, Gate::NoLatency);
    }

    #[test]
    fn failed_requests_fail_only_beyond_the_bound_all_of_them_by_default() {
        let m = metrics(&[("request_throughput", 1.0)]);
        let some_failed = format!("{BLOCK}Failed requests:                         40\n");
        assert_eq!(check(&[&some_failed], &m, &Limits::default()), None);
        let strict = Limits { max_failed_share: 0.1 };
        assert_eq!(check(&[&some_failed], &m, &strict).unwrap().gate, Gate::FailedRequests);
        let all_failed = "Successful requests: 0\nFailed requests: 100\n";
        assert_eq!(check(&[all_failed], &m, &Limits::default()).unwrap().gate, Gate::NoSuccessfulRequests);
        let only_failed = "Failed requests: 100\n";
        assert_eq!(check(&[only_failed], &m, &Limits::default()).unwrap().gate, Gate::FailedRequests);
    }

    #[test]
    fn the_last_labelled_line_counts_and_a_label_inside_a_line_does_not() {
        let text =
            "Successful requests: 0\nlater:\nSuccessful requests: 20\nsaid: Total generated tokens: 0\n";
        assert_eq!(Labelled::read(&[text]).last(Label::Successful).map(|v| v.0), Some(20.0));
        assert_eq!(Labelled::read(&[text]).last(Label::GeneratedTokens), None);
        let fields = ["Successful requests: 20\n", "Successful requests: 0\n", "other field\n"];
        let later = Labelled::read(&fields).last(Label::Successful);
        assert_eq!(later.map(|v| v.0), Some(0.0), "the later field's");
    }
}
