//! The canonical metric table and the alias rules that map upstream spellings onto it
//! (`ttft_mean_ms`, `mean_ttft_ms`, `ttft_mean` → `ttft_mean`; REPORT.md §2.1–2.5).

use super::Direction::{self, HigherIsBetter, LowerIsBetter};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricDef {
    pub name: &'static str,
    pub unit: &'static str,
    pub direction: Direction,
    pub label: &'static str,
}

const fn def(name: &'static str, unit: &'static str, direction: Direction, label: &'static str) -> MetricDef {
    MetricDef { name, unit, direction, label }
}

const TABLE: &[MetricDef] = &[
    def("request_throughput", "req/s", HigherIsBetter, "request throughput"),
    def("output_throughput", "tok/s", HigherIsBetter, "output token throughput"),
    def("total_throughput", "tok/s", HigherIsBetter, "total token throughput"),
    def("input_throughput", "tok/s", HigherIsBetter, "input token throughput"),
    def("throughput", "tok/s", HigherIsBetter, "throughput (tokens/s)"),
    def("ttft_mean", "ms", LowerIsBetter, "TTFT mean"),
    def("ttft_median", "ms", LowerIsBetter, "TTFT median"),
    def("ttft_p90", "ms", LowerIsBetter, "TTFT p90"),
    def("ttft_p99", "ms", LowerIsBetter, "TTFT p99"),
    def("tpot_mean", "ms", LowerIsBetter, "TPOT mean"),
    def("tpot_median", "ms", LowerIsBetter, "TPOT median"),
    def("tpot_p90", "ms", LowerIsBetter, "TPOT p90"),
    def("tpot_p99", "ms", LowerIsBetter, "TPOT p99"),
    def("itl_mean", "ms", LowerIsBetter, "ITL mean"),
    def("itl_median", "ms", LowerIsBetter, "ITL median"),
    def("itl_p90", "ms", LowerIsBetter, "ITL p90"),
    def("itl_p99", "ms", LowerIsBetter, "ITL p99"),
    def("e2e_latency_mean", "ms", LowerIsBetter, "E2E latency mean"),
    def("e2e_latency_median", "ms", LowerIsBetter, "E2E latency median"),
    def("e2e_latency_p90", "ms", LowerIsBetter, "E2E latency p90"),
    def("e2e_latency_p99", "ms", LowerIsBetter, "E2E latency p99"),
    def("latency_avg", "ms", LowerIsBetter, "latency avg"),
    def("latency_p10", "ms", LowerIsBetter, "latency p10"),
    def("latency_p25", "ms", LowerIsBetter, "latency p25"),
    def("latency_p50", "ms", LowerIsBetter, "latency p50"),
    def("latency_p75", "ms", LowerIsBetter, "latency p75"),
    def("latency_p90", "ms", LowerIsBetter, "latency p90"),
    def("latency_p99", "ms", LowerIsBetter, "latency p99"),
    def("elapsed_time", "s", LowerIsBetter, "elapsed time"),
];

/// Whole-name aliases that the suffix/prefix rules below cannot derive.
const ALIASES: &[(&str, &str)] = &[
    ("request_throughput_req_s", "request_throughput"),
    ("throughput_req_s", "request_throughput"),
    ("output_token_throughput_tok_s", "output_throughput"),
    ("output_token_throughput", "output_throughput"),
    ("total_token_throughput_tok_s", "total_throughput"),
    ("total_token_throughput", "total_throughput"),
    ("input_throughput_tok_s", "input_throughput"),
    ("throughput_tok_s", "throughput"),
    ("token_throughput", "throughput"),
    ("latency_ms", "latency_avg"),
    ("avg_latency", "latency_avg"),
    ("elapsed_time_s", "elapsed_time"),
];

pub fn definition(name: &str) -> Option<&'static MetricDef> {
    TABLE.iter().find(|d| d.name == name)
}

/// Canonical name for an upstream spelling, or `None` when it is not a known metric.
pub fn canonical_name(raw: &str) -> Option<&'static str> {
    let lower = raw.to_ascii_lowercase();
    if let Some(found) = lookup(&lower) {
        return Some(found);
    }
    let stripped = ["_ms", "_s"].iter().find_map(|s| lower.strip_suffix(s)).unwrap_or(&lower);
    if let Some(found) = lookup(stripped) {
        return Some(found);
    }
    // `mean_ttft_ms` / `p99_itl_ms` / `median_tpot_ms`: statistic first.
    let (stat, rest) = stripped.split_once('_')?;
    lookup(&format!("{rest}_{stat}"))
}

fn lookup(name: &str) -> Option<&'static str> {
    if let Some(d) = definition(name) {
        return Some(d.name);
    }
    ALIASES.iter().find(|(alias, _)| *alias == name).map(|(_, canonical)| *canonical)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_spellings_map_to_one_name() {
        for raw in ["ttft_mean", "ttft_mean_ms", "mean_ttft_ms", "TTFT_MEAN_MS"] {
            assert_eq!(canonical_name(raw), Some("ttft_mean"), "{raw}");
        }
        assert_eq!(canonical_name("p99_itl_ms"), Some("itl_p99"));
        assert_eq!(canonical_name("output_token_throughput_tok_s"), Some("output_throughput"));
        assert_eq!(canonical_name("output_throughput"), Some("output_throughput"));
        assert_eq!(canonical_name("request_throughput_req_s"), Some("request_throughput"));
        assert_eq!(canonical_name("throughput_tok_s"), Some("throughput"));
        assert_eq!(canonical_name("latency_avg_ms"), Some("latency_avg"));
        assert_eq!(canonical_name("elapsed_time_s"), Some("elapsed_time"));
        assert_eq!(canonical_name("successful_requests"), None);
    }
}
