//! The open log: a variant's recorded output, or one of a run's two panes (the run's views live
//! with the run); the ring size and the last search.

use super::logview::LogView;
use crate::runs::Pane;

/// The `run` of a document's log key: the 3-way diff view and the agent run pane.
pub const PATCHES: &str = "patches";
pub const AGENT_RUN: &str = "agent-run";

#[derive(Debug, Clone)]
pub struct LogsState {
    /// A recorded log (or a fix's output) open in the pane.
    pub recorded: Option<LogView>,
    /// The run whose panes are open, and which of its two panes is shown on top.
    pub run_pane: Option<(crate::runs::RunId, Pane)>,
    /// Decoded lines kept in memory per log.
    pub ring: usize,
    pub last_query: String,
    /// The document open in `recorded`, as it was laid out.
    pub document: Option<crate::app::Document>,
}

impl LogsState {
    pub fn new() -> LogsState {
        LogsState {
            recorded: None,
            run_pane: None,
            ring: crate::logs::DEFAULT_RING,
            last_query: String::new(),
            document: None,
        }
    }

    pub fn is_open(&self) -> bool {
        self.recorded.is_some() || self.run_pane.is_some()
    }

    /// A document is open: it takes the board's place too.
    pub fn document_open(&self) -> bool {
        self.recorded.as_ref().is_some_and(|v| [PATCHES, AGENT_RUN].contains(&v.key.run.as_str()))
    }

    pub fn close(&mut self) {
        self.recorded = None;
        self.run_pane = None;
        self.document = None;
    }
}

impl Default for LogsState {
    fn default() -> Self {
        LogsState::new()
    }
}
