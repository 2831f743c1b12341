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
    StartRun {
        run_id: String,
        short: String,
        variant: crate::dataset::Variant,
    },
    CancelRun {
        run_id: String,
    },
    Quit,
}
