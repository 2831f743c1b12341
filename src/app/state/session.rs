//! What the session knows beside the commits: the key map, image templates, the recipe book as
//! data, the clock, the terminal size, the message line and whether state is saved.

use super::super::KeyMap;
use crate::dataset::ImageTemplates;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warn,
    Error,
}

/// A recipe as the board offers it: id, title and the failure categories it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipeInfo {
    pub id: String,
    pub title: String,
    pub answers: Vec<String>,
}

/// Messages kept for the `M` log; the oldest go first.
pub const MESSAGE_LOG_CAP: usize = 2000;

#[derive(Debug, Clone)]
pub struct SessionState {
    pub keymap: KeyMap,
    pub images: ImageTemplates,
    /// Where a fix commits its fixed image (`fixed_repo` in the config).
    pub fixed_repo: String,
    /// The workspace, as its fixed images name it (their tags' mark, their label).
    pub owner: Option<crate::fixes::Owner>,
    pub recipes: Vec<RecipeInfo>,
    pub message: Option<(Level, String)>,
    /// The tick the message was posted at: it goes after a few seconds (an error stays longer).
    pub message_tick: u64,
    /// Every message since start, with the time it was posted: the `M` log.
    pub messages: Vec<(String, Level, String)>,
    pub read_only: bool,
    pub unsaved: bool,
    /// The campaign the board shows (the one chosen in `O`, else the newest), as its journal said
    /// at the last read.
    pub campaign: Option<crate::campaigns::Snapshot>,
    /// The campaign chosen in `O` (`[` and `]`); none: the workspace's newest.
    pub campaign_chosen: Option<crate::ids::CampaignName>,
    /// Every campaign of the workspace, the newest first, as the last read listed them.
    pub campaign_names: Vec<crate::ids::CampaignName>,
    /// The cell selected in `O` (commit by commit, variants as asked).
    pub campaign_cell: usize,
    /// A campaign this board started whose journal it has not read yet, and the tick it was
    /// started at: no second `C` meanwhile.
    pub campaign_starting: Option<(crate::ids::CampaignName, u64)>,
    /// The board takes the mouse (wheel, clicks); off, the terminal selects text.
    pub mouse_capture: bool,
    pub warnings: Vec<String>,
    pub size: (u16, u16),
    /// Wall-clock time (RFC 3339 UTC) of the latest tick.
    pub now: String,
    /// Seconds since start, one per `Msg::Tick`.
    pub ticks: u64,
    pub quitting: bool,
    /// Quit as soon as no run is live any more (the operator chose to stop them first).
    pub quit_when_idle: bool,
    /// Set by the runtime (the process id), so run ids never clash across boards.
    pub id: String,
    /// First line of the help overlay on screen.
    pub help_scroll: u16,
    /// The debug pane (the tool's own log) is shown, from this level up.
    pub debug_pane: bool,
    pub debug_level: crate::logs::Level,
}

impl SessionState {
    /// The campaign's runs, newest first, as the runs view lists them below the board's own.
    pub fn campaign_runs(&self) -> impl Iterator<Item = &crate::campaigns::RunLine> {
        self.campaign.iter().flat_map(|c| c.runs.iter().rev())
    }

    pub fn new(keymap: KeyMap) -> SessionState {
        SessionState {
            keymap,
            images: ImageTemplates::default(),
            fixed_repo: crate::config::DEFAULT_FIXED_REPO.into(),
            owner: None,
            recipes: Vec::new(),
            message: None,
            message_tick: 0,
            messages: Vec::new(),
            read_only: false,
            campaign: None,
            campaign_chosen: None,
            campaign_names: Vec::new(),
            campaign_cell: 0,
            campaign_starting: None,
            unsaved: false,
            mouse_capture: true,
            warnings: Vec::new(),
            size: (80, 24),
            now: String::new(),
            ticks: 0,
            quitting: false,
            quit_when_idle: false,
            id: String::new(),
            help_scroll: 0,
            debug_pane: false,
            debug_level: crate::logs::Level::Info,
        }
    }

    /// A toast on the footer, kept in the message log.
    pub fn notify(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        self.log(level, text.clone());
        self.message = Some((level, text));
        self.message_tick = self.ticks;
    }

    /// Into the message log only (load warnings: the footer says how many there are).
    pub fn log(&mut self, level: Level, text: String) {
        if self.messages.len() >= MESSAGE_LOG_CAP {
            self.messages.remove(0);
        }
        self.messages.push((self.now.clone(), level, text));
    }

    /// Drop the toast once it has been shown long enough.
    pub fn expire_message(&mut self) {
        let shown = self.ticks.saturating_sub(self.message_tick);
        let keep = match &self.message {
            Some((Level::Error, _)) => shown < 20,
            Some(_) => shown < 8,
            None => true,
        };
        if !keep {
            self.message = None;
        }
    }

    /// `2026-11-22T01:02:03Z` → `20261122010203`, for run ids.
    pub fn now_compact(&self) -> String {
        self.now.chars().filter(char::is_ascii_digit).collect()
    }
}
