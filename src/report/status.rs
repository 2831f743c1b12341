//! One `status --json` record per commit (JSON Lines; schema in fixtures/dataset/SCHEMA.md).

use super::{Comparison, compare};
use crate::dataset::results::Stamp;
use crate::dataset::{Entry, ImageTemplates, Overridden, PerfCommand, Variant};
use crate::ids::{ImageRef, Short};
use crate::metrics::{Metrics, MetricsFrom};
use crate::triage::{Mark, TriageBook};
use serde::Serialize;
use std::collections::BTreeMap;

pub const STATUS_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
pub struct VariantRecord {
    pub status: &'static str,
    pub source: Option<String>,
    /// The record's own time (`YYYY-MM-DD HH:MM:SS`), where its file gives one.
    pub at: Option<Stamp>,
    /// The agent of the run the record belongs to, where its folder names one.
    pub agent: Option<String>,
    /// Where `metrics` came from: raw output (whole or partial) or the file's recorded numbers.
    pub metrics_from: Option<MetricsFrom>,
    pub error: Option<String>,
    pub category: Option<String>,
    pub evidence: Option<String>,
    /// The validity gate an `invalid_measurement` failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// Lines a rule matched in a variant that succeeded and measured: never its category.
    pub warnings: Vec<crate::classify::Warning>,
    /// The image its run really ran in where its result says, else the one the config names.
    pub image: Option<ImageRef>,
    /// `result` or `config`: where `image` comes from.
    pub image_from: &'static str,
    pub metrics: Metrics,
    /// Fix recipes applied to the environment these numbers come from.
    pub fixes: Vec<String>,
    /// What the record measured, as far as it says: part → value (absent: unknown).
    pub workload: crate::dataset::Workload,
}

#[derive(Debug, Serialize)]
pub struct StatusRecord {
    pub schema_version: u32,
    pub short: Short,
    pub full: String,
    pub parent: Option<String>,
    pub subject: String,
    pub pr_url: Option<String>,
    pub model: Option<String>,
    pub kind: &'static str,
    pub gpu: Option<String>,
    pub status: &'static str,
    pub category: String,
    pub disposition: Option<&'static str>,
    pub evidence: Option<String>,
    pub mark: Option<Mark>,
    pub notes: Vec<String>,
    /// What result files say of the commit without deciding a variant (checks on stand-in models).
    pub result_notes: Vec<String>,
    pub perf_command: PerfCommand,
    pub variants: BTreeMap<&'static str, VariantRecord>,
    /// Older records a newer one replaced.
    pub overridden: Vec<OverriddenRecord>,
    pub comparison: Option<Comparison>,
}

#[derive(Debug, Serialize)]
pub struct OverriddenRecord {
    pub variant: &'static str,
    pub status: &'static str,
    pub at: Option<Stamp>,
    pub agent: Option<String>,
    pub source: Option<String>,
}

pub fn status_record(entry: &Entry, book: &TriageBook, images: &ImageTemplates) -> StatusRecord {
    let c = &entry.commit;
    let verdict = entry.verdict();
    StatusRecord {
        schema_version: STATUS_SCHEMA_VERSION,
        short: c.short.clone(),
        full: c.full.clone(),
        parent: c.parent.clone(),
        subject: c.subject.clone(),
        pr_url: c.pr_url.clone(),
        model: c.model.clone(),
        kind: c.kind().name(),
        gpu: c.gpu.clone(),
        status: entry.status().name(),
        category: entry.category().to_string(),
        disposition: verdict.map(|v| v.disposition.name()),
        evidence: verdict.map(|v| v.evidence.clone()),
        mark: book.mark(&c.short),
        notes: book.notes(&c.short).map(|h| h.change.describe()).collect(),
        result_notes: entry.notes.clone(),
        perf_command: c.perf_command.clone(),
        variants: Variant::ALL.into_iter().map(|v| (v.name(), variant_record(entry, v, images))).collect(),
        overridden: entry.overridden.iter().map(overridden_record).collect(),
        comparison: compare(entry),
    }
}

fn variant_record(entry: &Entry, v: Variant, images: &ImageTemplates) -> VariantRecord {
    let state = entry.variant(v);
    let outcome = &state.outcome;
    VariantRecord {
        status: outcome.status.word(),
        source: outcome.source.clone(),
        at: state.at,
        agent: state.agent.clone(),
        metrics_from: outcome.metrics_from,
        error: outcome.error.clone(),
        category: state.verdict.as_ref().map(|x| x.category.clone()),
        evidence: state.verdict.as_ref().map(|x| x.evidence.clone()),
        gate: state.verdict.as_ref().and_then(|x| x.gate()).map(str::to_string),
        warnings: state.warnings.clone(),
        image: outcome.image.clone().or_else(|| images.image_for(&entry.commit, v)),
        image_from: if outcome.image.is_some() { "result" } else { "config" },
        metrics: outcome.metrics.clone(),
        fixes: outcome.fixes.clone(),
        workload: outcome.workload.clone(),
    }
}

fn overridden_record(o: &Overridden) -> OverriddenRecord {
    OverriddenRecord {
        variant: o.variant.name(),
        status: o.status.word(),
        at: o.at,
        agent: o.agent.clone(),
        source: o.source.clone(),
    }
}
