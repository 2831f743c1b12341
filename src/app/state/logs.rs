//! The open log: a variant's recorded output, or one of a run's two panes (the run's views live
//! with the run); the ring size and the last search.

use super::logview::LogView;
use crate::runs::Pane;

#[derive(Debug, Clone)]
pub struct LogsState {
    /// A recorded log (or a fix's output) open in the pane.
    pub recorded: Option<LogView>,
    /// Fix and build logs opened before the shown one, still filling: `o` shows the next.
    pub behind: Vec<LogView>,
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
            behind: Vec::new(),
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
        self.recorded.as_ref().is_some_and(|v| v.key.log.is_document())
    }

    /// Show `view`; the fix or build log it replaces stays open behind it.
    pub fn show(&mut self, view: LogView) {
        self.behind.retain(|v| v.key != view.key);
        if let Some(shown) = self.recorded.take().filter(|v| v.key.log.is_job() && v.key != view.key) {
            self.behind.push(shown);
        }
        self.recorded = Some(view);
        self.run_pane = None;
        self.document = None;
    }

    /// A re-run after a fix whose output is shown: its server pane takes the fix's place (the
    /// fix's output stays open behind it).
    pub fn follow_rerun(&mut self, fix: &super::LogKey, run: crate::runs::RunId) {
        if let Some(shown) = self.recorded.take_if(|v| &v.key == fix) {
            self.behind.push(shown);
            self.run_pane = Some((run, Pane::Server));
        }
    }

    /// `o` over a fix or build log: the next one open behind it, the shown one going to the back.
    pub fn next_behind(&mut self) -> bool {
        if self.behind.is_empty() || self.run_pane.is_some() {
            return false;
        }
        let next = self.behind.remove(0);
        if let Some(shown) = self.recorded.replace(next).filter(|v| v.key.log.is_job()) {
            self.behind.push(shown);
        }
        true
    }

    /// The open view of `key`, shown or behind.
    pub fn view_mut(&mut self, key: &super::LogKey) -> Option<&mut LogView> {
        let shown = self.recorded.as_mut().filter(|v| &v.key == key);
        shown.or_else(|| self.behind.iter_mut().find(|v| &v.key == key))
    }

    pub fn close(&mut self) {
        self.recorded = None;
        self.behind.clear();
        self.run_pane = None;
        self.document = None;
    }
}

impl Default for LogsState {
    fn default() -> Self {
        LogsState::new()
    }
}
