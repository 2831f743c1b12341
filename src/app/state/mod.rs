//! The model, in parts: board, session, runs, logs, GPU; the popup in front and what has focus.
//! Owned by the runtime loop alone.

mod board;
mod builds;
mod fixmenu;
mod gpu;
mod logs;
mod logview;
mod popup;
mod runs;
mod session;

pub use crate::fixes::FixOffer;
pub use board::{BoardPrefs, BoardState, View};
pub use builds::{BuildView, BuildsState};
pub use fixmenu::{FixMenu, OfferGroup};
pub use gpu::{GpuState, Window};
pub use logs::LogsState;
pub use logview::{LogId, LogKey, LogView, MAX_MATCHES, Search};
pub use popup::{
    ActionMenu, BulkPicker, BulkTarget, Confirm, ConfirmAction, Mode, PlotView, Prompt, PromptPurpose,
};
pub use runs::{DockerStatus, Elsewhere, ListedImage, RunView, RunsState, compact_duration};
pub use session::{Level, RecipeInfo, SessionState};

use super::{KeyMap, KeyMode};
use crate::dataset::{Entry, Variant};
use crate::runs::{Repeat, RepeatPlan};
use crate::triage::TriageBook;

/// Which pane takes the keys when no popup is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Board,
    Log,
}

#[derive(Debug, Clone)]
pub struct AppState {
    pub board: BoardState,
    pub session: SessionState,
    pub runs: RunsState,
    pub builds: BuildsState,
    pub logs: LogsState,
    pub gpu: GpuState,
    pub mode: Mode,
    pub focus: Focus,
}

impl AppState {
    pub fn new(entries: Vec<Entry>, book: TriageBook, keymap: KeyMap) -> AppState {
        AppState {
            board: BoardState::new(entries, book),
            session: SessionState::new(keymap),
            runs: RunsState::new(),
            builds: BuildsState::default(),
            logs: LogsState::new(),
            gpu: GpuState::default(),
            mode: Mode::Normal,
            focus: Focus::Board,
        }
    }

    /// The key mode keys are read in now: the popup in front, else what has focus.
    pub fn key_mode(&self) -> KeyMode {
        match &self.mode {
            Mode::Prompt(_) => KeyMode::Prompt,
            Mode::Confirm(_) => KeyMode::Confirm,
            Mode::Choose(_) => KeyMode::Chooser,
            Mode::Planning(_) => KeyMode::Confirm,
            Mode::Fix(_) => KeyMode::FixMenu,
            Mode::BulkFix(_) => KeyMode::BulkPicker,
            Mode::Runs(_) => KeyMode::Runs,
            Mode::Images(_) => KeyMode::Images,
            Mode::Actions(_) => KeyMode::ActionMenu,
            Mode::Help | Mode::Messages => KeyMode::Help,
            Mode::Campaign => KeyMode::Campaign,
            Mode::Plot(_) => KeyMode::Plot,
            Mode::Normal if self.log_focused() => KeyMode::Log,
            Mode::Normal => KeyMode::Board,
        }
    }

    /// Text rows of the log pane (it takes the detail pane's place; a run's two panes share it).
    pub fn log_rows(&self) -> usize {
        let (w, h) = self.session.size;
        let h = if w >= 140 || self.logs.document_open() { h } else { h / 2 };
        let h = if self.logs.run_pane.is_some() { h / 2 } else { h };
        usize::from(h.saturating_sub(4)).max(1)
    }

    /// Rows the board can show at the current height (header, tabs, footer and borders taken off).
    pub fn page_rows(&self) -> usize {
        let (w, h) = self.session.size;
        let board = if (self.board.detail_open || self.logs.is_open()) && w < 140 { h / 2 } else { h };
        usize::from(board.saturating_sub(6)).max(1)
    }

    /// The log view keys act on: the shown run pane, else the recorded log.
    pub fn focused_log_mut(&mut self) -> Option<&mut LogView> {
        match &self.logs.run_pane {
            Some((id, pane)) => {
                let pane = *pane;
                self.runs.get_mut(id).map(|r| r.pane_mut(pane))
            }
            None => self.logs.recorded.as_mut(),
        }
    }

    /// The log pane is open and has focus.
    pub fn log_focused(&self) -> bool {
        self.logs.is_open() && self.focus == Focus::Log
    }

    pub fn notify(&mut self, level: Level, text: impl Into<String>) {
        self.session.notify(level, text);
    }

    /// Read the campaign the board shows: the one chosen in `O`, else the newest.
    pub fn read_campaign(&self) -> super::Effect {
        super::Effect::ReadCampaign(self.session.campaign_chosen.clone())
    }
}

impl AppState {
    /// Append a triage change to a commit's history and ask for a save; refused on a read-only board.
    pub fn record(&mut self, short: &str, change: crate::triage::Change) -> Vec<super::Effect> {
        self.record_at(short, change, self.session.now.clone())
    }

    /// `record`, dated `at` (RFC 3339): a change made elsewhere, recorded here after it.
    pub fn record_at(
        &mut self,
        short: &str,
        change: crate::triage::Change,
        at: String,
    ) -> Vec<super::Effect> {
        if self.session.read_only {
            self.notify(Level::Warn, READ_ONLY);
            return Vec::new();
        }
        let summary = format!("{short}: {}", change.describe());
        if let Err(e) = self.board.book.apply(short, change, at) {
            self.notify(Level::Warn, e.to_string());
            return Vec::new();
        }
        if let Some(index) = self.board.entry_index(short) {
            self.board.rebuild_row(index);
            self.board.refilter();
        }
        self.session.unsaved = true;
        self.notify(Level::Info, summary);
        vec![super::Effect::SaveTriage(self.board.book.clone())]
    }

    /// Queue a run under a new id; `update` starts it when a slot is free.
    pub fn queue_run(&mut self, request: crate::runs::RunRequest) -> crate::runs::RunId {
        self.runs.counter += 1;
        let run_id: crate::runs::RunId =
            format!("{}{}{}", self.session.now_compact(), self.session.id, self.runs.counter).into();
        let (short, variant) = (request.short.clone(), request.variant);
        self.runs.enqueue(run_id.clone(), request, self.session.ticks, self.logs.ring);
        self.follow_newest_run(&short, variant, &run_id);
        run_id
    }

    /// An open pane of an older run of `short`'s `variant` goes on with its newest run (a re-run
    /// after a fix, a repeat), on the same pane.
    fn follow_newest_run(&mut self, short: &str, variant: Variant, newest: &crate::runs::RunId) {
        let Some((shown, pane)) = &self.logs.run_pane else { return };
        let same = self.runs.get(shown).is_some_and(|r| r.short() == short && r.variant() == variant);
        if same {
            self.logs.run_pane = Some((newest.clone(), *pane));
        }
    }

    /// `repeat` decided for a run of `short`'s `variant` (`auto` against the recorded samples).
    pub fn repeat_plan(&self, short: &str, variant: Variant, repeat: Repeat) -> RepeatPlan {
        match self.board.entry_index(short) {
            Some(i) => repeat.plan_for(&self.board.entries[i], variant),
            None => RepeatPlan::Times(1), // not in the dataset: its plan fails first
        }
    }
}

impl AppState {
    /// Live runs show their phase, elapsed time and GPU memory in their board cells.
    pub fn refresh_live_cells(&mut self) {
        let ticks = self.session.ticks;
        for run in self.runs.live() {
            let Some(index) = self.board.entry_index(run.short()) else { continue };
            let row = &mut self.board.rows[index];
            let cell = &mut row.cells[run.variant() as usize];
            cell.text = run.cell_text(ticks);
            cell.live = true;
            let gpu_mib = self.gpu.run_memory_mib(&run.run_id);
            if gpu_mib > 0 {
                row.gpus = format!("{:.1}G", gpu_mib as f64 / 1024.0);
            }
        }
        for run in self.runs.list.iter().filter(|r| r.host.is_some()) {
            if let Some(index) = self.board.entry_index(run.short()) {
                self.board.rows[index].host = run.host.clone().unwrap_or_default();
            }
        }
        let spin = RunView::spinner(ticks);
        for (short, build) in self.builds.live() {
            let Some(index) = self.board.entry_index(short) else { continue };
            let cell = &mut self.board.rows[index].cells[crate::dataset::Variant::Baseline as usize];
            cell.text = build.cell_text(spin);
            cell.live = true;
        }
    }
}

pub const READ_ONLY: &str = "read-only board: another perftriage holds the workspace";

impl AppState {
    /// Every live job the board started, one lifecycle for all kinds: runs, fixes, builds.
    pub fn live_jobs(&self) -> Vec<crate::app::JobKey> {
        use crate::app::JobKey;
        let runs = self.runs.live().map(|r| JobKey::Run(r.run_id.clone()));
        let fixes = self.runs.fixes.keys().map(|(short, variant)| JobKey::Fix(short.clone(), *variant));
        let builds = self.builds.live().map(|(short, _)| JobKey::Build(short.clone()));
        runs.chain(fixes).chain(builds).collect()
    }
}
