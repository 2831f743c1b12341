//! The report's patch column: per commit, the files the human and the agent changed and those
//! both did (a side whose patch cannot be had is `null`).

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PatchRow {
    pub commit: String,
    pub human_files: Option<usize>,
    pub agent_files: Option<usize>,
    /// Files both changed, where both patches are known.
    pub shared_files: Option<usize>,
}
