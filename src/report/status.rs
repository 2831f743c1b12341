//! One `status --json` record per commit (JSON Lines; schema in fixtures/dataset/SCHEMA.md).

use super::{Comparison, compare};
use crate::dataset::{Entry, ImageTemplates, PerfCommand, Variant};
use crate::metrics::Metrics;
use crate::triage::{Mark, TriageBook};
use serde::Serialize;
use std::collections::BTreeMap;

pub const STATUS_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
pub struct VariantRecord {
    pub status: &'static str,
    pub source: Option<String>,
    pub error: Option<String>,
    pub category: Option<String>,
    pub evidence: Option<String>,
    pub image: Option<String>,
    pub metrics: Metrics,
    /// Fix recipes applied to the environment these numbers come from.
    pub fixes: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct StatusRecord {
    pub schema_version: u32,
    pub short: String,
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
    pub perf_command: PerfCommand,
    pub variants: BTreeMap<&'static str, VariantRecord>,
    pub comparison: Option<Comparison>,
}

pub fn status_record(entry: &Entry, book: &TriageBook, images: &ImageTemplates) -> StatusRecord {
    let c = &entry.commit;
    let verdict = entry.verdict();
    let variants = Variant::ALL
        .into_iter()
        .map(|v| {
            let state = entry.variant(v);
            let record = VariantRecord {
                status: state.outcome.status.word(),
                source: state.outcome.source.clone(),
                error: state.outcome.error.clone(),
                category: state.verdict.as_ref().map(|x| x.category.clone()),
                evidence: state.verdict.as_ref().map(|x| x.evidence.clone()),
                image: images.image_for(c, v),
                metrics: state.outcome.metrics.clone(),
                fixes: state.outcome.fixes.clone(),
            };
            (v.name(), record)
        })
        .collect();
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
        perf_command: c.perf_command.clone(),
        variants,
        comparison: compare(entry),
    }
}
