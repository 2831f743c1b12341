//! What the operator can ask for. The serde names are the config's key-map vocabulary; the help
//! overlay and footer are generated from the live key map and these descriptions.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    ToggleDetail,
    DetailUp,
    DetailDown,
    Filter,
    ClearFilter,
    NextView,
    PrevView,
    SortNext,
    SortReverse,
    MarkUnfixable,
    MarkSkip,
    ClearMark,
    AddNote,
    Help,
    OpenLog,
    StartRun,
    CancelRun,
    FixMenu,
    Pick,
    BulkFix,
    GpuPane,
    GpuWindow,
    GpuFaster,
    GpuSlower,
    OtherPane,
    SearchNext,
    SearchPrev,
    NextError,
    PrevError,
    ToggleMatchesOnly,
    CycleLevel,
    ToggleWrap,
    ExpandLines,
    SaveLog,
}

impl Action {
    pub const ALL: [Action; 41] = [
        Action::Quit,
        Action::Up,
        Action::Down,
        Action::PageUp,
        Action::PageDown,
        Action::Top,
        Action::Bottom,
        Action::ToggleDetail,
        Action::DetailUp,
        Action::DetailDown,
        Action::Filter,
        Action::ClearFilter,
        Action::NextView,
        Action::PrevView,
        Action::SortNext,
        Action::SortReverse,
        Action::MarkUnfixable,
        Action::MarkSkip,
        Action::ClearMark,
        Action::AddNote,
        Action::Help,
        Action::OpenLog,
        Action::StartRun,
        Action::CancelRun,
        Action::FixMenu,
        Action::Pick,
        Action::BulkFix,
        Action::GpuPane,
        Action::GpuWindow,
        Action::GpuFaster,
        Action::GpuSlower,
        Action::OtherPane,
        Action::SearchNext,
        Action::SearchPrev,
        Action::NextError,
        Action::PrevError,
        Action::ToggleMatchesOnly,
        Action::CycleLevel,
        Action::ToggleWrap,
        Action::ExpandLines,
        Action::SaveLog,
    ];

    pub fn description(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Up => "previous commit",
            Action::Down => "next commit",
            Action::PageUp => "page up",
            Action::PageDown => "page down",
            Action::Top => "first commit",
            Action::Bottom => "last commit",
            Action::ToggleDetail => "show/hide detail",
            Action::DetailUp => "scroll detail up",
            Action::DetailDown => "scroll detail down",
            Action::Filter => "filter (text, cat: status: model: kind: gpu: mark: disp:, ! negates)",
            Action::ClearFilter => "clear filter / close",
            Action::NextView => "next view tab",
            Action::PrevView => "previous view tab",
            Action::SortNext => "sort by next column",
            Action::SortReverse => "reverse sort",
            Action::MarkUnfixable => "mark unfixable (reason, confirm)",
            Action::MarkSkip => "mark skip",
            Action::ClearMark => "clear mark",
            Action::AddNote => "add a note",
            Action::Help => "help",
            Action::OpenLog => {
                "open/close the log: the commit's run panes, else its failing variant's recorded output"
            }
            Action::StartRun => "run baseline / human / agent / all three (choose, then confirm)",
            Action::CancelRun => "cancel the commit's live run (confirm); its container is removed",
            Action::FixMenu => {
                "fix menu for the failing variant (suggested fixes first; w: why others are hidden)"
            }
            Action::Pick => "pick / unpick the commit for a bulk fix",
            Action::BulkFix => "bulk fix: picked commits, else every commit the filter shows",
            Action::GpuPane => "show/hide the GPU pane",
            Action::GpuWindow => "GPU history window: 60 s, 10 min, the run's lifetime",
            Action::GpuFaster => "sample GPUs more often (floor 250 ms)",
            Action::GpuSlower => "sample GPUs less often",
            Action::OtherPane => "log: switch between a run's server and benchmark panes",
            Action::SearchNext => "log: next match",
            Action::SearchPrev => "log: previous match",
            Action::NextError => "log: next error",
            Action::PrevError => "log: previous error",
            Action::ToggleMatchesOnly => "log: show only matching lines",
            Action::CycleLevel => "log: minimum level (all, info, warning, error)",
            Action::ToggleWrap => "log: wrap long lines",
            Action::ExpandLines => "log: expand capped long lines on screen (read in full from the spool)",
            Action::SaveLog => "log: save the full log to a file",
        }
    }

    /// Actions that only mean something while the log pane has focus.
    pub fn is_log_only(self) -> bool {
        matches!(
            self,
            Action::OtherPane
                | Action::SearchNext
                | Action::SearchPrev
                | Action::NextError
                | Action::PrevError
                | Action::ToggleMatchesOnly
                | Action::CycleLevel
                | Action::ToggleWrap
                | Action::ExpandLines
                | Action::SaveLog
        )
    }

    /// Short label for the footer; `None` keeps the action out of the footer.
    pub fn footer_label(self) -> Option<&'static str> {
        match self {
            Action::Quit => Some("quit"),
            Action::ToggleDetail => Some("detail"),
            Action::Filter => Some("filter"),
            Action::NextView => Some("view"),
            Action::SortNext => Some("sort"),
            Action::MarkUnfixable => Some("unfixable"),
            Action::MarkSkip => Some("skip"),
            Action::AddNote => Some("note"),
            Action::Help => Some("help"),
            Action::OpenLog => Some("log"),
            Action::StartRun => Some("run"),
            Action::FixMenu => Some("fix"),
            Action::GpuPane => Some("gpu"),
            _ => None,
        }
    }
}
