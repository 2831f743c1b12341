//! The GPU pane's model: the latest sample, whether it is stale, per-GPU history for the
//! sparklines, and the sampling interval the operator chose.

use crate::runs::RunId;
use crate::telemetry::{GpuSample, GpuSummary, Owners, attribute};
use std::collections::HashMap;
use std::collections::VecDeque;

/// One hour at 1 Hz.
const HISTORY: usize = 3600;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    Minute,
    TenMinutes,
    /// Since the focused (or latest) run started.
    Run,
}

impl Window {
    pub fn next(self) -> Window {
        match self {
            Window::Minute => Window::TenMinutes,
            Window::TenMinutes => Window::Run,
            Window::Run => Window::Minute,
        }
    }
}

#[derive(Debug, Clone)]
pub struct GpuState {
    pub unavailable: Option<String>,
    pub source: String,
    pub latest: Option<GpuSample>,
    /// `AppState::ticks` of the latest sample.
    pub latest_tick: u64,
    /// Per GPU: (utilisation %, memory used MiB), oldest first, with the tick each was taken.
    pub history: Vec<VecDeque<(u64, u32, u64)>>,
    pub interval_ms: u64,
    pub window: Window,
    pub visible: bool,
    /// Our containers, from Docker's labels; samples are attributed with them.
    pub owners: Owners,
    /// Per run: GPU memory peak and utilisation while it ran, for its result file.
    pub ledger: HashMap<RunId, GpuSummary>,
    /// Each `[[hosts]]` host's GPUs (its probe every 10 s), and the one shown (`None`: this machine).
    pub hosts: Vec<(String, crate::telemetry::HostGpus)>,
    pub host: Option<String>,
}

impl Default for GpuState {
    fn default() -> Self {
        GpuState {
            unavailable: None,
            source: String::new(),
            latest: None,
            latest_tick: 0,
            history: Vec::new(),
            interval_ms: 1000,
            window: Window::Minute,
            visible: false,
            owners: Owners::new(),
            ledger: HashMap::new(),
            hosts: Vec::new(),
            host: None,
        }
    }
}

impl GpuState {
    /// Attribute a sample to our runs, account it per run, and keep it as the latest.
    pub fn record(&mut self, mut sample: GpuSample, source: String, tick: u64) {
        attribute(&mut sample, &self.owners, &mut self.ledger);
        self.unavailable = None;
        self.source = source;
        if self.history.len() < sample.gpus.len() {
            self.history.resize(sample.gpus.len(), VecDeque::new());
        }
        for (i, g) in sample.gpus.iter().enumerate() {
            let h = &mut self.history[i];
            if h.len() == HISTORY {
                h.pop_front();
            }
            h.push_back((tick, g.util_gpu.unwrap_or(0), g.mem_used_mib));
        }
        self.latest = Some(sample);
        self.latest_tick = tick;
    }

    /// No new sample for three intervals (and at least three seconds).
    pub fn is_stale(&self, now_tick: u64) -> bool {
        let allowed = (self.interval_ms * 3).div_ceil(1000).max(3);
        self.latest.is_some() && now_tick.saturating_sub(self.latest_tick) > allowed
    }

    /// GPU memory (MiB) that processes of a run hold right now.
    pub fn run_memory_mib(&self, run_id: &RunId) -> u64 {
        let Some(sample) = &self.latest else { return 0 };
        sample
            .processes
            .iter()
            .filter(|p| p.owner.as_ref().is_some_and(|o| o.run_id == *run_id))
            .map(|p| p.mem_mib)
            .sum()
    }
}
