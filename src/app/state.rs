//! The model: everything the screen shows and the update needs. Owned by the runtime loop alone.

use super::filter::Query;
use super::rows::{Column, Row, build_row};
use crate::config::KeyMap;
use crate::dataset::{CommitStatus, Entry, ImageTemplates};
use crate::triage::{Mark, TriageBook};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    All,
    Failed,
    Fixable,
    Unfixable,
    Done,
}

impl View {
    pub const ALL: [View; 5] = [View::All, View::Failed, View::Fixable, View::Unfixable, View::Done];

    pub fn title(self) -> &'static str {
        match self {
            View::All => "All",
            View::Failed => "Failed",
            View::Fixable => "Fixable",
            View::Unfixable => "Unfixable",
            View::Done => "Done",
        }
    }

    pub fn admits(self, entry: &Entry, row: &Row) -> bool {
        let status = entry.status();
        match self {
            View::All => true,
            View::Failed => status == CommitStatus::Failed,
            View::Fixable => {
                status == CommitStatus::Failed
                    && row.mark.is_none()
                    && entry.verdict().is_some_and(|v| v.disposition.is_fixable())
            }
            View::Unfixable => matches!(row.mark, Some(Mark::Unfixable { .. })),
            View::Done => status == CommitStatus::Done,
        }
    }
}

/// What a text prompt is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptPurpose {
    Filter,
    LogSearch,
    UnfixableReason,
    Note,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub purpose: PromptPurpose,
    pub short: String,
    pub text: String,
}

/// What a confirm dialog will do when the operator says yes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfirmAction {
    MarkUnfixable { short: String, reason: String },
    StartRuns { short: String, variants: Vec<crate::dataset::Variant> },
    CancelRun { run_id: String },
    ApplyFix { short: String, variant: crate::dataset::Variant, recipe: String, commit_image: bool },
    BulkFix { shorts: Vec<String>, recipe: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    pub title: String,
    /// Exactly what will happen, line by line.
    pub preview: Vec<String>,
    pub action: ConfirmAction,
    /// The focused button; Cancel is the default.
    pub yes_focused: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Normal,
    Prompt(Prompt),
    Confirm(Confirm),
    /// Choosing which variants of this commit to run.
    Choose(String),
    Fix(super::FixMenu),
    /// Choosing the recipe to apply to several commits.
    BulkFix {
        shorts: Vec<String>,
        recipes: Vec<(String, String)>,
        selected: usize,
    },
    Help,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warn,
    Error,
}

#[derive(Debug, Clone)]
pub struct AppState {
    pub entries: Vec<Entry>,
    pub rows: Vec<Row>,
    pub book: TriageBook,
    /// Entry indices in sort order; `visible` is this filtered by view and query.
    pub order: Vec<usize>,
    pub visible: Vec<usize>,
    pub view_counts: [usize; 5],
    pub selected: usize,
    pub view: View,
    pub query: Query,
    pub sort: Column,
    pub sort_reverse: bool,
    pub mode: Mode,
    pub detail_open: bool,
    /// The open log pane, which has focus while open.
    pub log: Option<super::LogView>,
    pub log_ring: usize,
    pub last_log_query: String,
    pub detail_scroll: u16,
    pub keymap: KeyMap,
    pub images: ImageTemplates,
    pub message: Option<(Level, String)>,
    pub read_only: bool,
    pub unsaved: bool,
    pub warnings: Vec<String>,
    pub size: (u16, u16),
    pub now: String,
    pub quitting: bool,
    pub docker: super::runs::DockerStatus,
    /// Runs asked for in this session (and containers found still running), oldest first.
    pub runs: Vec<super::runs::RunView>,
    pub run_counter: u64,
    /// Seconds since start, one per `Msg::Tick`.
    pub ticks: u64,
    /// The run whose panes are open, and which of its two panes has focus.
    pub focus_run: Option<(String, crate::runs::Pane)>,
    /// Set by the runtime (the process id), so run ids never clash across boards.
    pub session: String,
    /// Commits picked with Space for a bulk fix.
    pub picked: std::collections::BTreeSet<String>,
    /// The recipe book as data: (id, title, the categories it answers); set by the runtime.
    pub recipes: Vec<(String, String, Vec<String>)>,
    pub gpu: super::gpu::GpuState,
}

impl AppState {
    pub fn new(entries: Vec<Entry>, book: TriageBook, keymap: KeyMap) -> AppState {
        let rows = entries.iter().map(|e| build_row(e, &book)).collect();
        let mut state = AppState {
            entries,
            rows,
            book,
            order: Vec::new(),
            visible: Vec::new(),
            view_counts: [0; 5],
            selected: 0,
            view: View::All,
            query: Query::default(),
            sort: Column::Commit,
            sort_reverse: false,
            mode: Mode::Normal,
            detail_open: false,
            log: None,
            log_ring: crate::logs::DEFAULT_RING,
            last_log_query: String::new(),
            detail_scroll: 0,
            keymap,
            images: ImageTemplates::default(),
            message: None,
            read_only: false,
            unsaved: false,
            warnings: Vec::new(),
            size: (80, 24),
            now: String::new(),
            quitting: false,
            docker: super::runs::DockerStatus::Connecting,
            runs: Vec::new(),
            run_counter: 0,
            ticks: 0,
            focus_run: None,
            session: String::new(),
            picked: Default::default(),
            recipes: Vec::new(),
            gpu: Default::default(),
        };
        state.resort();
        state
    }

    /// Index into `entries` of the selected commit.
    pub fn selected_entry(&self) -> Option<usize> {
        self.visible.get(self.selected).copied()
    }

    pub fn selected_short(&self) -> Option<&str> {
        self.selected_entry().map(|i| self.entries[i].commit.short.as_str())
    }

    /// Text rows of the focused log pane (it takes the detail pane's place; a run's two panes share it).
    pub fn log_rows(&self) -> usize {
        let h = if self.size.0 >= 140 { self.size.1 } else { self.size.1 / 2 };
        let h = if self.focus_run.is_some() { h / 2 } else { h };
        usize::from(h.saturating_sub(4)).max(1)
    }

    /// Rows the board can show at the current height (header, tabs, footer and borders taken off).
    pub fn page_rows(&self) -> usize {
        let board = if (self.detail_open || self.log_focused()) && self.size.0 < 140 {
            self.size.1 / 2
        } else {
            self.size.1
        };
        usize::from(board.saturating_sub(6)).max(1)
    }

    pub fn resort(&mut self) {
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        let rows = &self.rows;
        order.sort_by(|&a, &b| super::sort::compare(&rows[a], &rows[b], self.sort));
        if self.sort_reverse {
            order.reverse();
        }
        self.order = order;
        self.refilter();
    }

    /// Recompute the visible rows, keeping the selected commit selected where it still shows.
    pub fn refilter(&mut self) {
        let keep = self.selected_entry();
        let entries = &self.entries;
        let rows = &self.rows;
        let query = &self.query;
        for (slot, view) in View::ALL.iter().enumerate() {
            self.view_counts[slot] =
                self.order.iter().filter(|&&i| view.admits(&entries[i], &rows[i])).count();
        }
        let view = self.view;
        self.visible = self
            .order
            .iter()
            .copied()
            .filter(|&i| view.admits(&entries[i], &rows[i]) && query.matches(&rows[i]))
            .collect();
        self.selected = keep.and_then(|k| self.visible.iter().position(|&i| i == k)).unwrap_or(0);
        self.clamp_selection();
    }

    pub fn clamp_selection(&mut self) {
        self.selected = self.selected.min(self.visible.len().saturating_sub(1));
    }

    pub fn rebuild_row(&mut self, index: usize) {
        self.rows[index] = build_row(&self.entries[index], &self.book);
    }

    /// `20261122T010203Z` → `20261122t010203z`-free digits, for run ids.
    pub fn now_compact(&self) -> String {
        self.now.chars().filter(char::is_ascii_digit).collect()
    }

    /// The log view keys act on: the focused run pane, else the recorded log.
    pub fn focused_log_mut(&mut self) -> Option<&mut super::LogView> {
        match &self.focus_run {
            Some((id, pane)) => {
                let pane = *pane;
                self.runs.iter_mut().find(|r| &r.run_id == id).map(|r| r.pane_mut(pane))
            }
            None => self.log.as_mut(),
        }
    }

    pub fn log_focused(&self) -> bool {
        self.log.is_some() || self.focus_run.is_some()
    }

    pub fn entry_index(&self, short: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.commit.short == short)
    }
}
