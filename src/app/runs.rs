//! Runs as the board sees them: the Docker connection, and each run's phase, elapsed time and
//! its two live log panes (server, benchmark).

use super::logview::{LogKey, LogView};
use crate::dataset::Variant;
use crate::runs::{Pane, RunPhase};

#[derive(Debug, Clone, PartialEq)]
pub enum DockerStatus {
    Connecting,
    Connected(String),
    Unreachable(String),
}

#[derive(Debug, Clone)]
pub struct RunView {
    pub run_id: String,
    pub short: String,
    pub variant: Variant,
    pub phase: RunPhase,
    /// `AppState::ticks` when the run was asked for, for the elapsed time.
    pub started_tick: u64,
    pub server: LogView,
    pub bench: LogView,
    /// Found running after a restart: its benchmark output before the restart is not ours to show.
    pub reattached: bool,
}

impl RunView {
    pub fn new(run_id: &str, short: &str, variant: Variant, started_tick: u64, ring: usize) -> RunView {
        let key = |pane: &str| LogKey { short: short.to_string(), variant, run: format!("{run_id}-{pane}") };
        let title = |pane: &str| format!("{pane} · {short} {} · run {run_id}", variant.name());
        RunView {
            run_id: run_id.to_string(),
            short: short.to_string(),
            variant,
            phase: RunPhase::Queued,
            started_tick,
            server: LogView::new(key("server"), title("server"), ring),
            bench: LogView::new(key("benchmark"), title("benchmark"), ring),
            reattached: false,
        }
    }

    pub fn pane_mut(&mut self, pane: Pane) -> &mut LogView {
        match pane {
            Pane::Server => &mut self.server,
            Pane::Benchmark => &mut self.bench,
        }
    }

    /// The board cell while the run is live: `▶ starting 12s`.
    pub fn cell_text(&self, ticks: u64) -> String {
        let elapsed = ticks.saturating_sub(self.started_tick);
        match &self.phase {
            RunPhase::Pulling { bytes, total, .. } if *total > 0 => {
                format!("▶ pull {}%", bytes * 100 / total)
            }
            RunPhase::Pulling { layers, done, .. } if *layers > 0 => format!("▶ pull {done}/{layers}"),
            phase => format!("▶ {} {elapsed}s", phase.word()),
        }
    }
}
