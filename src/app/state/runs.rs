//! Runs as the model owns them: the Docker connection, the queue, the concurrency limit, and each
//! run's phase, elapsed time and two live log panes (server, benchmark). `update` starts a queued
//! run only when a slot is free and Docker is connected; the job service only executes.

use super::logview::{LogId, LogKey, LogView};
use crate::dataset::Variant;
use crate::ids::{ImageRef, Short};
use crate::runs::{Pane, RunId, RunPhase, RunRequest};
use std::collections::VecDeque;

#[derive(Debug, Clone, PartialEq)]
pub enum DockerStatus {
    Connecting,
    Connected(String),
    Unreachable(String),
}

#[derive(Debug, Clone)]
pub struct RunView {
    pub run_id: RunId,
    pub request: RunRequest,
    pub phase: RunPhase,
    /// The image its container was created from, once it was (`RunPhase::Creating`).
    pub image: Option<ImageRef>,
    /// The `[[hosts]]` engine it was placed on (`RunPhase::Placed`).
    pub host: Option<String>,
    /// Handed to the job service (it holds a slot until it finishes).
    pub dispatched: bool,
    /// `SessionState::ticks` when the run was asked for, for the elapsed time.
    pub started_tick: u64,
    /// `SessionState::ticks` when it finished: its time stops there.
    pub ended_tick: Option<u64>,
    pub server: LogView,
    pub bench: LogView,
    /// Found running after a restart: its benchmark output before the restart is not ours to show.
    pub reattached: bool,
}

impl RunView {
    pub fn new(run_id: &RunId, request: RunRequest, started_tick: u64, ring: usize) -> RunView {
        let (short, variant) = (request.short.clone(), request.variant);
        let key =
            |pane| LogKey { short: short.clone(), variant, log: LogId::Run { run_id: run_id.clone(), pane } };
        let title = |pane: Pane| format!("{} · {short} {} · run {run_id}", pane.name(), variant.name());
        RunView {
            run_id: run_id.clone(),
            phase: RunPhase::Queued,
            image: None,
            host: None,
            dispatched: false,
            started_tick,
            ended_tick: None,
            server: LogView::new(key(Pane::Server), title(Pane::Server), ring),
            bench: LogView::new(key(Pane::Benchmark), title(Pane::Benchmark), ring),
            reattached: false,
            request,
        }
    }

    pub fn short(&self) -> &Short {
        &self.request.short
    }

    pub fn variant(&self) -> Variant {
        self.request.variant
    }

    pub fn pane(&self, pane: Pane) -> &LogView {
        match pane {
            Pane::Server => &self.server,
            Pane::Benchmark => &self.bench,
        }
    }

    pub fn pane_mut(&mut self, pane: Pane) -> &mut LogView {
        match pane {
            Pane::Server => &mut self.server,
            Pane::Benchmark => &mut self.bench,
        }
    }

    /// How long it ran (or has run so far), in ticks.
    pub fn elapsed(&self, ticks: u64) -> u64 {
        self.ended_tick.unwrap_or(ticks).saturating_sub(self.started_tick)
    }

    /// Holds a slot: handed to the job service and not finished.
    pub fn is_active(&self) -> bool {
        self.dispatched && !self.phase.is_finished()
    }

    /// The spinner's frame at this tick.
    pub fn spinner(ticks: u64) -> char {
        const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
        SPINNER[usize::try_from(ticks % 10).unwrap_or(0)]
    }

    /// The board cell while the run is live, moving every tick and never wider than a cell
    /// (13 columns): `⠹ start 12s`, `⠸ bench 9m05`, `⠼ pull 40%`.
    pub fn cell_text(&self, ticks: u64) -> String {
        let spin = RunView::spinner(ticks);
        let elapsed = self.elapsed(ticks);
        match &self.phase {
            RunPhase::Pulling { bytes, total, .. } if *total > 0 => {
                format!("{spin} pull {}%", bytes * 100 / total)
            }
            RunPhase::Pulling { layers, done, .. } if *layers > 0 => format!("{spin} pull {done}/{layers}"),
            phase => format!("{spin} {} {}", phase.short_word(), compact_duration(elapsed)),
        }
    }
}

/// A fixed image as `I` lists it: the engine's row and, when another workspace made it, which.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedImage {
    pub image: crate::docker::TaggedImage,
    pub elsewhere: Option<Elsewhere>,
}

impl ListedImage {
    /// Why it must not be deleted from this workspace, if it must not.
    pub fn refusal(&self) -> Option<String> {
        let elsewhere = self.elsewhere.as_ref()?;
        Some(format!("{} is {}: remove it from that workspace", self.image.tag, elsewhere.describe()))
    }
}

/// Another workspace's fixed image: its path and the commits whose fixed image it is there.
#[derive(Debug, Clone, PartialEq)]
pub struct Elsewhere {
    pub workspace: String,
    pub naming: Vec<String>,
}

impl Elsewhere {
    /// `workspace /srv/b's (its results name it: 22dd9c27 baseline)`, for the list and a refusal.
    pub fn describe(&self) -> String {
        match self.naming.as_slice() {
            [] => format!("workspace {}'s", self.workspace),
            naming => format!("workspace {}'s (its results name it: {})", self.workspace, naming.join(", ")),
        }
    }
}

#[derive(Debug, Clone)]
pub struct RunsState {
    pub docker: DockerStatus,
    /// Our fixed images, as last listed (`I`).
    pub images: Vec<ListedImage>,
    /// Every run asked for in this session (and containers found still running), oldest first.
    pub list: Vec<RunView>,
    /// Run ids waiting for a slot, first out first.
    pub queue: VecDeque<RunId>,
    /// Runs at a time (`[runs] concurrency`).
    pub concurrency: usize,
    /// `[runs] repeat`: what a run confirm offers first.
    pub repeat: crate::runs::Repeat,
    /// The `[[hosts]]` as last seen (empty without them).
    pub hosts: Vec<crate::runs::HostSlot>,
    /// Where the runs go as Slurm jobs (`[slurm] board`), said in the confirm; `None`: Docker.
    pub slurm: Option<String>,
    pub counter: u64,
    /// The fixes applied now, each variant's recipe (one at a time on a variant).
    pub fixes: std::collections::BTreeMap<(Short, Variant), String>,
    /// Fixes and builds confirmed while Docker was not connected (their effects): they start
    /// when it connects, as queued runs do.
    pub waiting_for_docker: Vec<crate::app::Effect>,
}

impl RunsState {
    pub fn new() -> RunsState {
        RunsState {
            docker: DockerStatus::Connecting,
            images: Vec::new(),
            list: Vec::new(),
            queue: VecDeque::new(),
            concurrency: 1,
            repeat: crate::runs::Repeat::Times(1),
            hosts: Vec::new(),
            slurm: None,
            counter: 0,
            fixes: Default::default(),
            waiting_for_docker: Vec::new(),
        }
    }

    pub fn get(&self, run_id: &RunId) -> Option<&RunView> {
        self.list.iter().find(|r| r.run_id == *run_id)
    }

    pub fn get_mut(&mut self, run_id: &RunId) -> Option<&mut RunView> {
        self.list.iter_mut().find(|r| r.run_id == *run_id)
    }

    pub fn active(&self) -> usize {
        self.list.iter().filter(|r| r.is_active()).count()
    }

    /// The runs that have not ended (queued ones too), oldest first.
    pub fn live(&self) -> impl Iterator<Item = &RunView> {
        self.list.iter().filter(|r| !r.phase.is_finished())
    }

    pub fn is_live(&self) -> bool {
        self.live().next().is_some()
    }

    /// The newest unfinished run of a commit.
    pub fn live_of(&self, short: &str) -> Option<&RunView> {
        self.live().filter(|r| r.short() == short).last()
    }

    /// Queue a run; it starts when `update` finds a free slot.
    pub fn enqueue(&mut self, run_id: RunId, request: RunRequest, tick: u64, ring: usize) {
        self.list.push(RunView::new(&run_id, request, tick, ring));
        self.queue.push_back(run_id);
    }
}

impl Default for RunsState {
    fn default() -> Self {
        RunsState::new()
    }
}

/// Seconds in at most four characters (under 1,000 hours): `45s`, `9m05`, `45m`, `2h05`, `23h`.
pub fn compact_duration(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs}s"),
        60..600 => format!("{}m{:02}", secs / 60, secs % 60),
        600..3600 => format!("{}m", secs / 60),
        3600..36_000 => format!("{}h{:02}", secs / 3600, secs % 3600 / 60),
        _ => format!("{}h", secs / 3600),
    }
}
