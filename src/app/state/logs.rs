//! The open log: a variant's recorded output, or one of a run's two panes (the run's views live
//! with the run); the ring size and the last search.

use super::logview::LogView;
use crate::runs::Pane;

#[derive(Debug, Clone)]
pub struct LogsState {
    /// A recorded log (or a fix's output) open in the pane.
    pub recorded: Option<LogView>,
    /// The run whose panes are open, and which of its two panes is shown on top.
    pub run_pane: Option<(String, Pane)>,
    /// Decoded lines kept in memory per log.
    pub ring: usize,
    pub last_query: String,
}

impl LogsState {
    pub fn new() -> LogsState {
        LogsState {
            recorded: None,
            run_pane: None,
            ring: crate::logs::DEFAULT_RING,
            last_query: String::new(),
        }
    }

    pub fn is_open(&self) -> bool {
        self.recorded.is_some() || self.run_pane.is_some()
    }

    pub fn close(&mut self) {
        self.recorded = None;
        self.run_pane = None;
    }
}

impl Default for LogsState {
    fn default() -> Self {
        LogsState::new()
    }
}
