//! What the operator can ask for, and in which key mode. The serde names are the config's key-map
//! vocabulary; the help overlay and footer are generated from the live key map and this table.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    // Board.
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
    NextAgent,
    RunsView,
    ImagesView,
    DeleteImage,
    PushImage,
    ToggleMouse,
    CopyHash,
    CopyEvidence,
    ShowBaseline,
    ShowHuman,
    ShowAgent,
    Messages,
    CommandLine,
    ActionMenu,
    MarkUnfixable,
    MarkSkip,
    ClearMark,
    AddNote,
    Help,
    OpenLog,
    CycleFocus,
    StartRun,
    BuildBaseline,
    BuildWithKnobs,
    CancelRun,
    FixMenu,
    Pick,
    BulkFix,
    StartCampaign,
    CampaignView,
    CampaignPause,
    CampaignResume,
    CampaignCancel,
    CampaignNext,
    CampaignPrevious,
    GpuPane,
    GpuWindow,
    GpuHost,
    GpuFaster,
    GpuSlower,
    DebugPane,
    DebugLevel,
    PatchView,
    AgentRunView,
    VerdictPlot,
    NextPair,
    // Log pane.
    ScrollUp,
    ScrollDown,
    ScrollPageUp,
    ScrollPageDown,
    ScrollTop,
    Follow,
    LogSearch,
    CloseLog,
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
    NextSection,
    PrevSection,
    // Run chooser.
    RunBaseline,
    RunHuman,
    RunAgent,
    RunAll,
    // Menus (fix menu, bulk picker, help).
    MenuUp,
    MenuDown,
    ShowWhy,
    FixUnfixable,
    ApplyFix,
    ApplyFixCommit,
    Choose,
    // Confirm dialog.
    Yes,
    No,
    SwitchButton,
    Accept,
    LeaveRunning,
    NextHost,
    MoreRepeats,
    // Text prompt.
    Submit,
    DeleteChar,
    ClearLine,
    Complete,
    Recall,
    // Every popup.
    Close,
}

/// Description and footer label (`None`: help only) of every action.
const SPECS: &[(Action, &str, Option<&str>)] = &[
    (Action::Quit, "quit", Some("quit")),
    (Action::Up, "previous commit", None),
    (Action::Down, "next commit", None),
    (Action::PageUp, "page up", None),
    (Action::PageDown, "page down", None),
    (Action::Top, "first commit", None),
    (Action::Bottom, "last commit", None),
    (Action::ToggleDetail, "show/hide detail", Some("detail")),
    (Action::DetailUp, "scroll detail up", None),
    (Action::DetailDown, "scroll detail down", None),
    (
        Action::Filter,
        "filter (text, cat: status: model: kind: gpu: mark: disp: agent:, ! negates)",
        Some("filter"),
    ),
    (Action::ClearFilter, "clear filter / close detail", None),
    (Action::NextView, "next view tab", Some("view")),
    (Action::PrevView, "previous view tab", None),
    (Action::SortNext, "sort by next column", Some("sort")),
    (Action::SortReverse, "reverse sort", None),
    (
        Action::CommandLine,
        "command line: any board action by name (Tab completes; words after it fill its prompt)",
        None,
    ),
    (Action::ActionMenu, "action menu: what can be done to the selected commit", Some("menu")),
    (Action::Messages, "message log: every message and warning since start", None),
    (Action::ShowBaseline, "the baseline's instead (fix menu, recorded log)", None),
    (Action::ShowHuman, "the human's instead (fix menu, recorded log)", None),
    (Action::ShowAgent, "the agent's instead (fix menu, recorded log)", None),
    (Action::ToggleMouse, "mouse on/off (off: the terminal selects text)", None),
    (Action::CopyHash, "copy the commit's full hash (OSC 52 clipboard)", None),
    (Action::CopyEvidence, "copy the failure's evidence line (OSC 52 clipboard)", None),
    (
        Action::ImagesView,
        "images view: perftriage's fixed images, what they fix; delete from there",
        Some("images"),
    ),
    (Action::DeleteImage, "delete the image (after a confirm)", Some("delete")),
    (Action::PushImage, "push the image to the [registry]; its digest is recorded", Some("push")),
    (
        Action::RunsView,
        "runs view: queued, running and finished runs; cancel or open logs there",
        Some("runs"),
    ),
    (Action::NextAgent, "agent in the A column: the newest of any, then each agent by name", None),
    (Action::MarkUnfixable, "mark unfixable (reason, confirm)", Some("unfixable")),
    (Action::MarkSkip, "mark skip", Some("skip")),
    (Action::ClearMark, "clear mark", Some("clear mark")),
    (Action::AddNote, "add a note", Some("note")),
    (Action::Help, "help", Some("help")),
    (
        Action::OpenLog,
        "open/close the log: the commit's run panes, else its failing variant's output",
        Some("log"),
    ),
    (Action::CycleFocus, "move focus: board → log pane(s) → board", Some("focus")),
    (Action::StartRun, "run baseline / human / agent / all three (choose, then confirm)", Some("run")),
    (
        Action::BuildBaseline,
        "build the baseline image from source at the parent (confirm shows steps, image, time, disk)",
        Some("build"),
    ),
    (
        Action::BuildWithKnobs,
        "build the baseline with knobs: max_jobs=N nvcc_threads=N timeout_s=S cuda_arch=X (then the confirm)",
        Some("build-with"),
    ),
    (
        Action::CancelRun,
        "cancel the commit's live run, fix or build (confirm); its container is removed",
        Some("cancel"),
    ),
    (Action::FixMenu, "fix menu for the failing variant (suggested fixes first)", Some("fix")),
    (Action::Pick, "pick / unpick the commit for a bulk fix", Some("pick")),
    (Action::BulkFix, "bulk fix: picked commits, else every commit the filter shows", Some("bulk fix")),
    (
        Action::StartCampaign,
        "campaign over the picked (else shown) commits: all variants, fixes, retries",
        Some("campaign"),
    ),
    (
        Action::CampaignView,
        "the campaign's progress by commit and variant; pause, resume or cancel it there",
        None,
    ),
    (
        Action::CampaignPause,
        "pause the campaign (confirm): its driver stops before its next step",
        Some("pause"),
    ),
    (Action::CampaignResume, "resume the campaign (confirm) in a process of its own", Some("resume")),
    (Action::CampaignCancel, "cancel the campaign (confirm): nothing more is started", Some("cancel")),
    (
        Action::VerdictPlot,
        "verdict plot: each shown commit's difference with its 95% interval against the ±2/±5% bands",
        Some("plot"),
    ),
    (
        Action::NextPair,
        "verdict plot: the next pair (H vs B, A vs B, A vs H), sorted by its estimate",
        Some("pair"),
    ),
    (Action::CampaignNext, "the next older campaign of the workspace", Some("campaign-next")),
    (
        Action::CampaignPrevious,
        "the next newer campaign (the newest: follow new ones)",
        Some("campaign-previous"),
    ),
    (Action::GpuPane, "show/hide the GPU pane", Some("gpu")),
    (Action::GpuHost, "GPU pane: next host (this machine, then each [[hosts]] host)", Some("gpu-host")),
    (Action::GpuWindow, "GPU history window: 60 s, 10 min, the run's lifetime", None),
    (Action::GpuFaster, "sample GPUs more often (floor 250 ms)", None),
    (Action::GpuSlower, "sample GPUs less often", None),
    (Action::DebugPane, "show/hide the tool's own log (also in <workspace>/perftriage.log)", Some("debug")),
    (Action::DebugLevel, "debug pane: minimum level (debug, info, warning, error)", None),
    (
        Action::PatchView,
        "3-way diff: the human's and the agent's patches file by file (side by side from 140 columns)",
        Some("diff"),
    ),
    (Action::AgentRunView, "agent run: its summary and steps (--trajectories)", Some("agent-run")),
    (Action::ScrollUp, "scroll up (a log stops following)", None),
    (Action::ScrollDown, "scroll down", None),
    (Action::ScrollPageUp, "page up", None),
    (Action::ScrollPageDown, "page down", None),
    (Action::ScrollTop, "first line", None),
    (Action::Follow, "last line, follow new lines", Some("follow")),
    (Action::LogSearch, "search (regex, case-insensitive)", Some("search")),
    (Action::CloseLog, "clear the search, else close the log", Some("close")),
    (Action::OtherPane, "a run's other pane, or the next open fix or build log", Some("pane")),
    (Action::SearchNext, "next match", Some("next")),
    (Action::SearchPrev, "previous match", None),
    (Action::NextError, "next error", Some("error")),
    (Action::PrevError, "previous error", None),
    (Action::ToggleMatchesOnly, "show only matching lines", None),
    (Action::CycleLevel, "minimum level (all, info, warning, error)", Some("level")),
    (Action::ToggleWrap, "wrap long lines", None),
    (Action::ExpandLines, "expand capped long lines on screen (read in full from the spool)", None),
    (Action::SaveLog, "save the full log to a file", None),
    (Action::NextSection, "next file of the 3-way diff (next section)", None),
    (Action::PrevSection, "previous file of the 3-way diff", None),
    (Action::RunBaseline, "baseline (the parent commit)", Some("baseline")),
    (Action::RunHuman, "human (the PR commit)", Some("human")),
    (Action::RunAgent, "agent (the agent's patch on the parent)", Some("agent")),
    (Action::RunAll, "all three", Some("all")),
    (Action::MenuUp, "up", None),
    (Action::MenuDown, "down", None),
    (Action::ShowWhy, "show / hide the recipes that do not apply, with why", Some("why")),
    (Action::FixUnfixable, "mark the commit unfixable instead (reason prefilled)", Some("unfixable")),
    (Action::ApplyFix, "apply the fix, commit the variant's fixed image and re-run in it", Some("apply")),
    (
        Action::ApplyFixCommit,
        "apply the fix and commit the fixed image, without a re-run yet",
        Some("commit"),
    ),
    (Action::Choose, "choose", Some("choose")),
    (Action::Yes, "yes: do it", Some("yes")),
    (Action::No, "no: cancel", Some("cancel")),
    (Action::SwitchButton, "move between the buttons", None),
    (Action::Accept, "press the focused button (Cancel unless moved)", None),
    (
        Action::LeaveRunning,
        "quitting with live runs: leave them running (re-attached at the next start)",
        None,
    ),
    (
        Action::NextHost,
        "starting runs with [[hosts]]: choose the host (next one; then placement again)",
        None,
    ),
    (
        Action::MoreRepeats,
        "starting runs: benchmark runs against one server start (1, 3, 5, 10; a 95% interval from 3)",
        None,
    ),
    (Action::Submit, "submit", Some("submit")),
    (Action::DeleteChar, "delete the last character", None),
    (Action::ClearLine, "clear the text", None),
    (Action::Complete, "complete the command name (`:` line)", None),
    (Action::Recall, "the last search again (log search)", None),
    (Action::Close, "close", Some("close")),
];

impl Action {
    /// Every action, in the order help lists them.
    pub fn all() -> impl Iterator<Item = Action> {
        SPECS.iter().map(|(a, _, _)| *a)
    }

    fn spec(self) -> (&'static str, Option<&'static str>) {
        SPECS.iter().find(|(a, _, _)| *a == self).map_or(("", None), |(_, d, f)| (*d, *f))
    }

    pub fn description(self) -> &'static str {
        self.spec().0
    }

    /// Short label for the footer; `None` keeps the action out of the footer.
    pub fn footer_label(self) -> Option<&'static str> {
        self.spec().1
    }

    /// The config name (`mark_unfixable`).
    pub fn name(self) -> String {
        serde_json::to_value(self).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
    }

    pub fn from_name(name: &str) -> Option<Action> {
        serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
    }
}
