//! Benchmark kind from a perf command (REPORT.md §3.2.2, plus `other` and `none`).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BenchKind {
    Serving,
    Throughput,
    Latency,
    PrefixCaching,
    Other,
    None,
}

impl BenchKind {
    pub const ALL: [BenchKind; 6] = [
        BenchKind::Serving,
        BenchKind::Throughput,
        BenchKind::Latency,
        BenchKind::PrefixCaching,
        BenchKind::Other,
        BenchKind::None,
    ];

    pub fn from_command(command: Option<&str>) -> BenchKind {
        let Some(cmd) = command.map(str::trim).filter(|c| !c.is_empty()) else {
            return BenchKind::None;
        };
        if cmd.contains("benchmark_latency") || cmd.contains("bench latency") {
            BenchKind::Latency
        } else if cmd.contains("benchmark_throughput") || cmd.contains("bench throughput") {
            BenchKind::Throughput
        } else if cmd.contains("benchmark_prefix_caching") {
            BenchKind::PrefixCaching
        } else if cmd.contains("benchmark_serving") || cmd.contains("bench serve") {
            BenchKind::Serving
        } else {
            BenchKind::Other
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BenchKind::Serving => "serving",
            BenchKind::Throughput => "throughput",
            BenchKind::Latency => "latency",
            BenchKind::PrefixCaching => "prefix_caching",
            BenchKind::Other => "other",
            BenchKind::None => "none",
        }
    }

    /// The name of a metric some kind may compare on, as its candidates spell it.
    pub fn known_metric(name: &str) -> Option<&'static str> {
        BenchKind::ALL.iter().flat_map(|kind| kind.primary_candidates()).find(|m| **m == name).copied()
    }

    /// Metrics tried in order when picking the commit's primary metric.
    pub fn primary_candidates(self) -> &'static [&'static str] {
        match self {
            BenchKind::Serving => {
                &["tpot_mean", "ttft_mean", "output_throughput", "itl_mean", "request_throughput"]
            }
            BenchKind::Latency => &["latency_avg", "latency_p50"],
            BenchKind::Throughput => {
                &["total_throughput", "throughput", "output_throughput", "request_throughput"]
            }
            BenchKind::PrefixCaching => &["throughput", "output_throughput", "elapsed_time"],
            BenchKind::Other | BenchKind::None => {
                &["tpot_mean", "latency_avg", "throughput", "output_throughput"]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_runner_rules() {
        let k = |c: &str| BenchKind::from_command(Some(c));
        assert_eq!(k("VLLM_USE_V1=1 python benchmarks/benchmark_latency.py --model m"), BenchKind::Latency);
        assert_eq!(k("vllm bench throughput --model m"), BenchKind::Throughput);
        assert_eq!(k("python3 benchmarks/benchmark_prefix_caching.py --model m"), BenchKind::PrefixCaching);
        assert_eq!(k("vllm bench serve --model m"), BenchKind::Serving);
        assert_eq!(k("python benchmark_guided.py --model m"), BenchKind::Other);
        assert_eq!(BenchKind::from_command(Some("  ")), BenchKind::None);
        assert_eq!(BenchKind::from_command(None), BenchKind::None);
    }
}
