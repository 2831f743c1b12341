//! What `update` asks the runtime to do.

use super::logview::LogKey;
use crate::triage::TriageBook;

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    SaveTriage(TriageBook),
    /// Spool and stream a recorded log: the result file it came from, else the recorded text.
    OpenLog {
        key: LogKey,
        source: Option<String>,
        text: String,
    },
    /// Read lines `first..first + count` back from the log's spool.
    ReadLog {
        key: LogKey,
        first: usize,
        count: usize,
    },
    /// Search the spooled lines older than the ring (`0..upto`) in the background.
    SearchLog {
        key: LogKey,
        query: String,
        upto: usize,
    },
    /// Read these lines back in full (they were capped for display).
    ExpandLines {
        key: LogKey,
        lines: Vec<usize>,
    },
    /// Copy the whole raw log out of the workspace.
    SaveLog {
        key: LogKey,
    },
    /// `image`/`fixes`: run in a fixed image, with the recipes that made it.
    StartRun {
        run_id: String,
        short: String,
        variant: crate::dataset::Variant,
        image: Option<String>,
        fixes: Vec<String>,
    },
    /// Probe the variant's image (its fixed image, if any) for applicable fixes.
    ProbeFixes {
        short: String,
        variant: crate::dataset::Variant,
        image: Option<String>,
        category: String,
        evidence: Option<String>,
    },
    /// Apply a recipe; then re-run the variant in the fixed environment, or commit it as the variant's image.
    /// Its output streams to the log pane `log`; `evidence` feeds recipes that take `{args}`.
    ApplyFix {
        short: String,
        variant: crate::dataset::Variant,
        recipe: String,
        commit_image: bool,
        image: Option<String>,
        evidence: Option<String>,
        log: LogKey,
    },
    CancelRun {
        run_id: String,
    },
    /// Sample GPUs every this many milliseconds (the floor is 250).
    GpuInterval(u64),
    Quit,
}
