//! The report's patch column: per commit, the files the human and the agent changed and those
//! both did (a side whose patch cannot be had is `null`, and its reason kept).

use crate::agents::{AgentRuns, DiffStats};
use crate::dataset::{Entry, Variant};
use crate::runs::RunConfig;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PatchRow {
    pub commit: String,
    pub human_files: Option<usize>,
    pub agent_files: Option<usize>,
    /// Files both changed, where both patches are known.
    pub shared_files: Option<usize>,
}

/// A row per commit with at least one patch known.
pub fn patch_rows(entries: &[Entry], runs: &AgentRuns, config: &RunConfig) -> Vec<PatchRow> {
    let stats = |entry: &Entry, v: Variant| {
        crate::agents::patch(&entry.commit, v, runs, config).ok().map(|p| p.stats)
    };
    let mut rows = Vec::new();
    for entry in entries {
        let (human, agent) = (stats(entry, Variant::Human), stats(entry, Variant::Agent));
        if human.is_none() && agent.is_none() {
            continue;
        }
        let shared = human
            .as_ref()
            .zip(agent.as_ref())
            .map(|(h, a): (&DiffStats, &DiffStats)| h.shared_paths(a).len());
        rows.push(PatchRow {
            commit: entry.commit.short.clone(),
            human_files: human.map(|h| h.files.len()),
            agent_files: agent.map(|a| a.files.len()),
            shared_files: shared,
        });
    }
    rows
}
