//! One commit of the dataset and its recorded per-variant outcomes (schema: fixtures/dataset/SCHEMA.md).

use super::BenchKind;
use crate::ids::{ImageRef, Short};
use crate::metrics::Metrics;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    Baseline,
    Human,
    Agent,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Baseline, Variant::Human, Variant::Agent];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Baseline => "baseline",
            Variant::Human => "human",
            Variant::Agent => "agent",
        }
    }

    pub fn letter(self) -> char {
        match self {
            Variant::Baseline => 'B',
            Variant::Human => 'H',
            Variant::Agent => 'A',
        }
    }

    pub fn parse(text: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == text)
    }

    /// The variant that runs in the same image (baseline and agent both run in the parent's),
    /// whose fixed image this variant's fix commits to the same tag as.
    pub fn image_sibling(self) -> Option<Variant> {
        match self {
            Variant::Baseline => Some(Variant::Agent),
            Variant::Agent => Some(Variant::Baseline),
            Variant::Human => None,
        }
    }
}

/// Outcome of one variant's run. `Error` covers every upstream failure status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Success,
    Error,
    Timeout,
    Skipped,
    NotRun,
}

impl RunStatus {
    /// Upstream status words (per-role `status`, Modal `status`) → our status.
    pub fn from_upstream(word: &str) -> RunStatus {
        match word {
            "success" => RunStatus::Success,
            "timeout" => RunStatus::Timeout,
            "skipped" | "version_bug" | "no_perf_command" | "blocked_model" => RunStatus::Skipped,
            "" | "not_run" => RunStatus::NotRun,
            _ => RunStatus::Error,
        }
    }

    pub fn is_failure(self) -> bool {
        matches!(self, RunStatus::Error | RunStatus::Timeout)
    }

    /// Glyph and word, so the status reads without colour.
    pub fn glyph(self) -> &'static str {
        match self {
            RunStatus::Success => "✓",
            RunStatus::Error => "✗",
            RunStatus::Timeout => "◷",
            RunStatus::Skipped => "⊘",
            RunStatus::NotRun => "·",
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            RunStatus::Success => "ok",
            RunStatus::Error => "fail",
            RunStatus::Timeout => "timeout",
            RunStatus::Skipped => "skip",
            RunStatus::NotRun => "not run",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub status: RunStatus,
    /// Where this outcome was recorded (upstream run, or a result file path).
    pub source: Option<String>,
    pub error: Option<String>,
    #[serde(default)]
    pub metrics: Metrics,
    /// Fix recipes applied to the environment these numbers were measured in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<String>,
    /// The image the run really ran in, where its record says (ours: `perftriage.image`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageRef>,
    /// Where `metrics` came from, for outcomes read from result files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics_from: Option<crate::metrics::MetricsFrom>,
    /// What was measured, as far as the record says.
    #[serde(default, skip_serializing_if = "super::Workload::is_empty")]
    pub workload: super::Workload,
    /// Each repeat's value per metric, where a run repeated its benchmark (`metrics` are the means).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub samples: BTreeMap<String, Vec<f64>>,
}

impl Outcome {
    /// Whether its metrics and samples are all finite.
    pub fn finite(&self) -> bool {
        let samples = self.samples.values().flatten().copied();
        self.metrics.values().copied().chain(samples).all(f64::is_finite)
    }

    pub fn not_run() -> Outcome {
        Outcome {
            status: RunStatus::NotRun,
            source: None,
            error: None,
            metrics: Metrics::new(),
            fixes: Vec::new(),
            image: None,
            metrics_from: None,
            workload: super::Workload::default(),
            samples: BTreeMap::new(),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PerfCommand {
    /// The command in the ISO-Bench dataset (benchmark_mode_mapping / HF export).
    pub dataset: Option<String>,
    /// The command the upstream run actually executed, when it differs from `dataset`.
    pub executed: Option<String>,
}

impl PerfCommand {
    /// The command a re-run uses: what was executed, else the dataset's.
    pub fn effective(&self) -> Option<&str> {
        self.executed.as_deref().or(self.dataset.as_deref())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Images {
    /// A fixed image that replaces the human template for this commit.
    pub human_override: Option<ImageRef>,
    pub human_evidence: Option<String>,
    pub baseline_evidence: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Upstream {
    pub modal_status: Option<String>,
    pub modal_error: Option<String>,
    pub category_doc: Option<String>,
    pub metrics_source: Option<String>,
    #[serde(default)]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Commit {
    pub schema_version: u32,
    pub short: Short,
    pub full: String,
    pub parent: Option<String>,
    pub item_id: Option<String>,
    pub subject: String,
    pub pr_url: Option<String>,
    pub date: Option<String>,
    pub model: Option<String>,
    pub model_mapping: Option<String>,
    #[serde(default)]
    pub perf_command: PerfCommand,
    pub gpu: Option<String>,
    #[serde(default)]
    pub vllm_versions: BTreeMap<Variant, String>,
    #[serde(default)]
    pub images: Images,
    /// As the dataset records them; an `Entry` takes them into its variants (its commit holds none).
    #[serde(default)]
    pub outcomes: BTreeMap<Variant, Outcome>,
    #[serde(default)]
    pub upstream: Upstream,
}

impl Commit {
    /// The workload behind the dataset's own recorded outcomes: its command, as far as it says.
    pub fn recorded_workload(&self) -> super::Workload {
        let mut w = self.perf_command.effective().map(super::Workload::from_command).unwrap_or_default();
        w.set("harness", "ISO-Bench dataset record");
        w
    }

    pub fn kind(&self) -> BenchKind {
        BenchKind::from_command(self.perf_command.effective())
    }

    /// GPUs the commit needs (`H100:4` → 4); unknown configs count as 1.
    pub fn gpu_count(&self) -> u32 {
        self.gpu.as_deref().and_then(|g| g.rsplit(':').next()).and_then(|n| n.parse().ok()).unwrap_or(1)
    }
}
