//! One `status --json` record per commit (JSON Lines; schema in fixtures/dataset/SCHEMA.md).

use super::{Comparison, compare};
use crate::dataset::results::Stamp;
use crate::dataset::{Entry, ImageTemplates, Overridden, PerfCommand, Variant};
use crate::ids::{ImageRef, Short};
use crate::metrics::{Metrics, MetricsFrom};
use crate::triage::{Mark, TriageBook};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::BTreeMap;

pub const STATUS_SCHEMA_VERSION: u32 = 1;

/// A variant of a `status --json` record: borrowed from its entry, so a line costs its writing
/// and no copy.
#[derive(Debug, Serialize)]
pub struct VariantRecord<'a> {
    pub status: &'static str,
    pub source: Option<&'a str>,
    /// The record's own time (`YYYY-MM-DD HH:MM:SS`), where its file gives one.
    pub at: Option<Stamp>,
    /// The agent of the run the record belongs to, where its folder names one.
    pub agent: Option<&'a str>,
    /// Where `metrics` came from: raw output (whole or partial) or the file's recorded numbers.
    pub metrics_from: Option<MetricsFrom>,
    pub error: Option<&'a str>,
    pub category: Option<&'a str>,
    pub evidence: Option<&'a str>,
    /// The validity gate an `invalid_measurement` failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<&'a str>,
    /// Lines a rule matched in a variant that succeeded and measured: never its category.
    pub warnings: &'a [crate::classify::Warning],
    /// The image its run really ran in where its result says, else the one the config names.
    pub image: Option<Cow<'a, ImageRef>>,
    /// `result` or `config`: where `image` comes from.
    pub image_from: &'static str,
    pub metrics: &'a Metrics,
    /// Fix recipes applied to the environment these numbers come from.
    pub fixes: &'a [String],
    /// What the record measured, as far as it says: part → value (absent: unknown).
    pub workload: &'a crate::dataset::Workload,
}

#[derive(Debug, Serialize)]
pub struct StatusRecord<'a> {
    pub schema_version: u32,
    pub short: &'a Short,
    pub full: &'a str,
    pub parent: Option<&'a str>,
    pub subject: &'a str,
    pub pr_url: Option<&'a str>,
    pub model: Option<&'a str>,
    pub kind: &'static str,
    pub gpu: Option<&'a str>,
    pub status: &'static str,
    pub category: &'a str,
    pub disposition: Option<&'static str>,
    pub evidence: Option<&'a str>,
    pub mark: Option<Mark>,
    pub notes: Vec<String>,
    /// What result files say of the commit without deciding a variant (checks on stand-in models).
    pub result_notes: &'a [String],
    pub perf_command: &'a PerfCommand,
    pub variants: BTreeMap<&'static str, VariantRecord<'a>>,
    /// Older records a newer one replaced.
    pub overridden: Vec<OverriddenRecord<'a>>,
    pub comparison: Option<Comparison>,
}

#[derive(Debug, Serialize)]
pub struct OverriddenRecord<'a> {
    pub variant: &'static str,
    pub status: &'static str,
    pub at: Option<Stamp>,
    pub agent: Option<&'a str>,
    pub source: Option<&'a str>,
}

pub fn status_record<'a>(entry: &'a Entry, book: &TriageBook, images: &ImageTemplates) -> StatusRecord<'a> {
    let c = &entry.commit;
    let verdict = entry.verdict();
    StatusRecord {
        schema_version: STATUS_SCHEMA_VERSION,
        short: &c.short,
        full: &c.full,
        parent: c.parent.as_deref(),
        subject: &c.subject,
        pr_url: c.pr_url.as_deref(),
        model: c.model.as_deref(),
        kind: c.kind().name(),
        gpu: c.gpu.as_deref(),
        status: entry.status().name(),
        category: entry.category(),
        disposition: verdict.map(|v| v.disposition.name()),
        evidence: verdict.map(|v| v.evidence.as_str()),
        mark: book.mark(&c.short),
        notes: book.notes(&c.short).map(|h| h.change.describe()).collect(),
        result_notes: &entry.notes,
        perf_command: &c.perf_command,
        variants: Variant::ALL.into_iter().map(|v| (v.name(), variant_record(entry, v, images))).collect(),
        overridden: entry.overridden.iter().map(overridden_record).collect(),
        comparison: compare(entry),
    }
}

fn variant_record<'a>(entry: &'a Entry, v: Variant, images: &ImageTemplates) -> VariantRecord<'a> {
    let state = entry.variant(v);
    let outcome = &state.outcome;
    VariantRecord {
        status: outcome.status.word(),
        source: outcome.source.as_deref(),
        at: state.at,
        agent: state.agent.as_deref(),
        metrics_from: outcome.metrics_from,
        error: outcome.error.as_deref(),
        category: state.verdict.as_ref().map(|x| x.category.as_str()),
        evidence: state.verdict.as_ref().map(|x| x.evidence.as_str()),
        gate: state.verdict.as_ref().and_then(|x| x.gate()),
        warnings: &state.warnings,
        image: outcome
            .image
            .as_ref()
            .map(Cow::Borrowed)
            .or_else(|| images.image_for(&entry.commit, v).map(Cow::Owned)),
        image_from: if outcome.image.is_some() { "result" } else { "config" },
        metrics: &outcome.metrics,
        fixes: &outcome.fixes,
        workload: &outcome.workload,
    }
}

fn overridden_record(o: &Overridden) -> OverriddenRecord<'_> {
    OverriddenRecord {
        variant: o.variant.name(),
        status: o.status.word(),
        at: o.at,
        agent: o.agent.as_deref(),
        source: o.source.as_deref(),
    }
}
