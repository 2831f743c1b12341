//! Benchmark output → metrics. Every pattern is anchored at a line start and matched within its
//! line (one pass finds the lines that can match: `marks`); vLLM's periodic stats
//! lines (`metrics.py`, `Avg prompt throughput`) are ignored; the last complete result wins
//! (REPORT.md §3.8). A "no metrics" outcome says why.

use super::Metrics;
use super::marks::{Mark, Marks};
use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParsedKind {
    Serving,
    Latency,
    Throughput,
    PrefixCaching,
}

impl ParsedKind {
    /// As `BenchKind::name` names the same kind of benchmark.
    pub fn name(self) -> &'static str {
        match self {
            ParsedKind::Serving => "serving",
            ParsedKind::Latency => "latency",
            ParsedKind::Throughput => "throughput",
            ParsedKind::PrefixCaching => "prefix_caching",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoMetrics {
    /// Output ends with no result block at all.
    NoResultBlock,
    /// A serving result block started but never closed.
    IncompleteBlock,
    /// A traceback or fatal error ends the output.
    BenchmarkCrashed,
    /// The source build never finished.
    BuildNeverFinished,
}

impl NoMetrics {
    pub fn describe(self) -> &'static str {
        match self {
            NoMetrics::NoResultBlock => "no result block in the output",
            NoMetrics::IncompleteBlock => "the result block is incomplete",
            NoMetrics::BenchmarkCrashed => "the benchmark crashed before printing results",
            NoMetrics::BuildNeverFinished => "the build never finished",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Parsed {
    pub kind: ParsedKind,
    pub metrics: Metrics,
    /// Salvaged from a serving block whose start was cut off (or whose end never came).
    pub partial: bool,
}

const NUM: &str = r"([0-9]+(?:\.[0-9]+)?)";

fn re(pattern: &str) -> Regex {
    // Patterns are constants of this file; a typo is caught by the unit tests.
    Regex::new(&pattern.replace("{N}", NUM)).unwrap_or_else(|e| panic!("metric pattern {pattern}: {e}"))
}

static SERVING_START: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^=+ Serving Benchmark Result =+\s*$"));
static SERVING_END: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^={20,}\s*$"));
static AVG_LATENCY: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^Avg latency:\s*{N}\s*seconds"));
static PCT_LATENCY: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^(\d+)% percentile latency:\s*{N}\s*seconds"));
static THROUGHPUT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?m)^Throughput:\s*{N}\s*requests/s,\s*{N}\s*(total )?tokens/s(?:,\s*{N}\s*output tokens/s)?")
});
static PREFIX_START: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^-+start generating-+\s*$"));
static PREFIX_SPEED: LazyLock<Regex> =
    LazyLock::new(|| re(r"est\. speed input:\s*{N}\s*toks/s,\s*output:\s*{N}\s*toks/s"));
static PREFIX_COST: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^cost time\s+{N}"));
static CRASH: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?m)^Traceback \(most recent call last\)|^\S*Error: |SERVER_CRASHED|^\[rank\d+\]: \w+Error")
});
static BUILD: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?m)^\s*Building wheel|error: metadata-generation-failed|failed-wheel-build|CMake Error")
});

fn num(s: &str) -> Option<f64> {
    s.parse().ok()
}

/// Parse benchmark output; `Err` says why there are no metrics.
pub fn parse(raw: &str) -> Result<Parsed, NoMetrics> {
    let (found, seen) = parse_seen(raw);
    found.ok_or_else(|| seen.why_none())
}

/// The numbers of a text, if any, and what it showed: one pass finds the lines the patterns
/// need (`marks`), the patterns run on those lines alone.
pub(super) fn parse_seen(text: &str) -> (Option<Parsed>, Seen) {
    let marks = Marks::of(text);
    let found = serving(text, &marks)
        .or_else(|| latency(text, &marks))
        .or_else(|| prefix_caching(text, &marks))
        .or_else(|| throughput(text, &marks))
        .or_else(|| salvaged_serving(text, &marks));
    (found.filter(|p| !p.metrics.is_empty()), Seen::of(text, &marks))
}

/// The marked lines `re` matches. A pattern is matched within its line: vLLM prints each
/// result on a line of its own.
fn matching<'m>(
    re: &'m Regex,
    text: &'m str,
    marks: &'m Marks,
    mark: Mark,
) -> impl DoubleEndedIterator<Item = (usize, usize)> + 'm {
    marks.lines(mark).filter(move |&(s, e)| re.is_match(&text[s..e]))
}

/// The last captures of `re` on the line `(start, end)`.
fn captures_on<'t>(re: &Regex, text: &'t str, (start, end): (usize, usize)) -> Option<regex::Captures<'t>> {
    re.captures_iter(&text[start..end]).last()
}

/// The last of the marked lines with captures of `re`, its last captures.
fn last_captures<'t>(
    re: &Regex,
    text: &'t str,
    lines: impl DoubleEndedIterator<Item = (usize, usize)>,
) -> Option<regex::Captures<'t>> {
    lines.rev().find_map(|line| captures_on(re, text, line))
}

/// What a text without numbers showed, for why it has none (gathered block by block too).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Seen {
    serving_start: bool,
    build: bool,
    installed: bool,
    crash: bool,
}

impl Seen {
    fn of(text: &str, marks: &Marks) -> Seen {
        let any = |re: &Regex, of: &[Mark]| of.iter().any(|&m| matching(re, text, marks, m).next().is_some());
        Seen {
            serving_start: any(&SERVING_START, &[Mark::ServingStart]),
            build: any(
                &BUILD,
                &[Mark::BuildingWheel, Mark::MetadataFailed, Mark::WheelBuildFailed, Mark::CmakeError],
            ),
            installed: marks.lines(Mark::Installed).next().is_some(),
            crash: any(&CRASH, &[Mark::Traceback, Mark::Error, Mark::ServerCrashed, Mark::Rank]),
        }
    }

    /// Both texts', as if they were one.
    pub(super) fn and(self, later: Seen) -> Seen {
        Seen {
            serving_start: self.serving_start || later.serving_start,
            build: self.build || later.build,
            installed: self.installed || later.installed,
            crash: self.crash || later.crash,
        }
    }

    pub(super) fn why_none(self) -> NoMetrics {
        match () {
            _ if self.serving_start => NoMetrics::IncompleteBlock,
            _ if self.build && !self.installed => NoMetrics::BuildNeverFinished,
            _ if self.crash => NoMetrics::BenchmarkCrashed,
            _ => NoMetrics::NoResultBlock,
        }
    }
}

/// The last complete serving block (it is often printed twice).
fn serving(text: &str, marks: &Marks) -> Option<Parsed> {
    let rules: Vec<usize> = matching(&SERVING_END, text, marks, Mark::Rule).map(|(s, _)| s).collect();
    let closed = |&(_, end): &(usize, usize)| rules.iter().any(|&rule| rule > end);
    let (_, from) = matching(&SERVING_START, text, marks, Mark::ServingStart).rev().find(closed)?;
    let to = *rules.iter().find(|&&rule| rule > from)?;
    let metrics = serving_metrics(&text[from..to]);
    Some(Parsed { kind: ParsedKind::Serving, metrics, partial: false })
}

/// The serving lines of a block cut short: outputs kept to their last 5,000 characters start inside
/// the block, and a block that never closed still holds what it printed. Marked partial.
fn salvaged_serving(text: &str, marks: &Marks) -> Option<Parsed> {
    let from = matching(&SERVING_START, text, marks, Mark::ServingStart).last().map_or(0, |(_, end)| end);
    let is_serving = |&(s, e): &(usize, usize)| s >= from && serving_line(&text[s..e]).is_some();
    let (first, _) = marks.lines(Mark::ServingLine).find(is_serving)?;
    let rule = matching(&SERVING_END, text, marks, Mark::Rule).map(|(s, _)| s).find(|&s| s >= first);
    let metrics = serving_metrics(&text[first..rule.unwrap_or(text.len())]);
    Some(Parsed { kind: ParsedKind::Serving, metrics, partial: true })
}

/// The metrics of a serving block's lines.
fn serving_metrics(block: &str) -> Metrics {
    let named = |(label, unit, value)| Some((serving_label(label, unit)?, num(value)?));
    block.lines().filter_map(serving_line).filter_map(named).collect()
}

/// `Mean TTFT (ms):     12.34` → (`Mean TTFT`, `ms`, `12.34`): a label of letters, digits and
/// spaces, a unit in brackets, a colon and a number, nothing else on the line. (By hand: a regex
/// with captures cost a quarter of reading a results tree.)
fn serving_line(line: &str) -> Option<(&str, &str, &str)> {
    let (label, rest) = line.split_once(" (")?;
    let label_ok = |b: u8| b.is_ascii_alphanumeric() || b == b' ';
    if label.is_empty() || !label.bytes().all(label_ok) {
        return None;
    }
    let (unit, rest) = rest.split_once("):")?;
    let value = rest.trim();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let number = match value.split_once('.') {
        Some((whole, fraction)) => digits(whole) && digits(fraction),
        None => digits(value),
    };
    (!unit.is_empty() && !unit.contains(')') && number).then_some((label, unit, value))
}

/// `Mean TTFT (ms)` → `ttft_mean`; `Output token throughput (tok/s)` → `output_throughput`.
fn serving_label(label: &str, unit: &str) -> Option<String> {
    let lower = label.trim().to_ascii_lowercase();
    let throughput = match lower.as_str() {
        "request throughput" => Some("request_throughput"),
        "output token throughput" => Some("output_throughput"),
        "total token throughput" => Some("total_throughput"),
        "input token throughput" => Some("input_throughput"),
        _ => None,
    };
    if let Some(name) = throughput {
        return Some(name.to_string());
    }
    if unit != "ms" {
        return None;
    }
    let (stat, metric) = lower.split_once(' ')?;
    let metric = match metric {
        "ttft" => "ttft",
        "tpot" => "tpot",
        "itl" => "itl",
        "e2el" | "e2e latency" => "e2e_latency",
        _ => return None,
    };
    let stat = match stat {
        "mean" => "mean",
        "median" | "p50" => "median",
        "p90" => "p90",
        "p99" => "p99",
        _ => return None,
    };
    Some(format!("{metric}_{stat}"))
}

fn latency(text: &str, marks: &Marks) -> Option<Parsed> {
    let avg = last_captures(&AVG_LATENCY, text, marks.lines(Mark::AvgLatency))?;
    let mut metrics = Metrics::new();
    metrics.insert("latency_avg".into(), num(&avg[1])? * 1000.0);
    let percentiles =
        marks.lines(Mark::PercentileLatency).filter_map(|line| captures_on(&PCT_LATENCY, text, line));
    for cap in percentiles {
        if let Some(v) = num(&cap[2]) {
            metrics.insert(format!("latency_p{}", &cap[1]), v * 1000.0);
        }
    }
    Some(Parsed { kind: ParsedKind::Latency, metrics, partial: false })
}

fn throughput(text: &str, marks: &Marks) -> Option<Parsed> {
    let cap = last_captures(&THROUGHPUT, text, marks.lines(Mark::Throughput))?;
    let mut metrics = Metrics::new();
    metrics.insert("request_throughput".into(), num(&cap[1])?);
    let tokens = num(&cap[2])?;
    match (cap.get(3), cap.get(4).and_then(|m| num(m.as_str()))) {
        (Some(_), output) => {
            metrics.insert("total_throughput".into(), tokens);
            if let Some(out) = output {
                metrics.insert("output_throughput".into(), out);
            }
        }
        // The old single figure is total tokens/s.
        (None, _) => {
            metrics.insert("throughput".into(), tokens);
        }
    }
    Some(Parsed { kind: ParsedKind::Throughput, metrics, partial: false })
}

fn prefix_caching(text: &str, marks: &Marks) -> Option<Parsed> {
    let (_, start) = matching(&PREFIX_START, text, marks, Mark::PrefixStart).last()?;
    let after = |mark| marks.lines(mark).filter(move |&(s, _)| s > start);
    let speed = last_captures(&PREFIX_SPEED, text, after(Mark::PrefixSpeed))?;
    let mut metrics = Metrics::new();
    metrics.insert("input_throughput".into(), num(&speed[1])?);
    metrics.insert("throughput".into(), num(&speed[2])?);
    if let Some(cost) = last_captures(&PREFIX_COST, text, after(Mark::PrefixCost)).and_then(|c| num(&c[1])) {
        metrics.insert("elapsed_time".into(), cost);
    }
    Some(Parsed { kind: ParsedKind::PrefixCaching, metrics, partial: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_lines_are_not_results() {
        let text = "INFO 01-14 15:08:18 metrics.py:455] Avg prompt throughput: 203.7 tokens/s, Avg generation throughput: 234.7 tokens/s\nAvg latency: 1.5 seconds\n";
        let p = parse(text).unwrap();
        assert_eq!(p.kind, ParsedKind::Latency);
        assert_eq!(p.metrics.get("latency_avg"), Some(&1500.0));
        assert_eq!(p.metrics.len(), 1);
    }

    #[test]
    fn a_lone_dot_is_not_a_number() {
        assert_eq!(parse("Throughput: . requests/s, . tokens/s\n"), Err(NoMetrics::NoResultBlock));
    }

    #[test]
    fn a_block_cut_at_its_start_or_end_is_salvaged_and_marked_partial() {
        let cut = "(req/s):              48.40     \nMean TTFT (ms):   545.14 \nP99 ITL (ms):  9\n==================================================\nBENCHMARK_DONE\n";
        let p = parse(cut).unwrap();
        assert!(p.partial);
        assert_eq!(p.metrics.get("ttft_mean"), Some(&545.14));
        assert_eq!(p.metrics.len(), 2);
        let open = "============ Serving Benchmark Result ============\nMean TTFT (ms): 5\n";
        assert_eq!(parse(open).unwrap().metrics.get("ttft_mean"), Some(&5.0));
    }

    #[test]
    fn reasons_for_no_metrics() {
        let open = "============ Serving Benchmark Result ============\nSuccessful requests: 3\n";
        assert_eq!(parse(open), Err(NoMetrics::IncompleteBlock));
        assert_eq!(
            parse("Traceback (most recent call last):\nValueError: x\n"),
            Err(NoMetrics::BenchmarkCrashed)
        );
        assert_eq!(parse("  Building wheel for vllm (pyproject.toml)\n"), Err(NoMetrics::BuildNeverFinished));
        assert_eq!(parse("hello\n"), Err(NoMetrics::NoResultBlock));
    }

    #[test]
    fn vllm_bench_serve_block_with_e2el_and_p90() {
        let text = "============ Serving Benchmark Result ============\nRequest throughput (req/s):              10.00\nMean E2EL (ms):                          100.5\nP90 TTFT (ms):                           7.25\nP99 ITL (ms):                            9\n==================================================\n";
        let p = parse(text).unwrap();
        assert_eq!(p.metrics.get("e2e_latency_mean"), Some(&100.5));
        assert_eq!(p.metrics.get("ttft_p90"), Some(&7.25));
        assert_eq!(p.metrics.get("itl_p99"), Some(&9.0));
        assert_eq!(p.metrics.get("request_throughput"), Some(&10.0));
    }
}
