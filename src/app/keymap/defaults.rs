//! The default keys of every mode: vim keys plus arrows.

use super::KeyMode;
use crate::app::Action;

pub(super) fn of(mode: KeyMode) -> Vec<(&'static str, Action)> {
    let (own, menu): (&[(&str, Action)], bool) = match mode {
        KeyMode::Board => (BOARD, false),
        KeyMode::Log => (LOG, false),
        KeyMode::Chooser => (CHOOSER, false),
        KeyMode::FixMenu => (FIX_MENU, true),
        KeyMode::BulkPicker => (BULK_PICKER, true),
        KeyMode::Confirm => (CONFIRM, false),
        KeyMode::Prompt => (PROMPT, false),
        KeyMode::Help => (HELP, true),
        KeyMode::Runs => (RUNS, true),
        KeyMode::Images => (IMAGES, true),
        KeyMode::ActionMenu => (BULK_PICKER, true),
        KeyMode::Campaign => (CAMPAIGN, true),
        KeyMode::Plot => (PLOT, true),
    };
    let shared = if menu { MENU } else { &[] };
    // Help is all menu: its own keys (pages, `?`) come after the shared ones.
    let (first, then) = if mode == KeyMode::Help { (shared, own) } else { (own, shared) };
    first.iter().chain(then).copied().collect()
}

/// Moving in a menu list and closing it, the same in every menu.
const MENU: &[(&str, Action)] = &[
    ("k", Action::MenuUp),
    ("up", Action::MenuUp),
    ("j", Action::MenuDown),
    ("down", Action::MenuDown),
    ("esc", Action::Close),
    ("q", Action::Close),
];

const BOARD: &[(&str, Action)] = &[
    ("?", Action::Help),
    ("q", Action::Quit),
    ("ctrl-c", Action::Quit),
    ("k", Action::Up),
    ("up", Action::Up),
    ("j", Action::Down),
    ("down", Action::Down),
    ("pageup", Action::PageUp),
    ("ctrl-u", Action::PageUp),
    ("pagedown", Action::PageDown),
    ("ctrl-d", Action::PageDown),
    ("g", Action::Top),
    ("home", Action::Top),
    ("G", Action::Bottom),
    ("end", Action::Bottom),
    ("enter", Action::ToggleDetail),
    ("l", Action::ToggleDetail),
    ("K", Action::DetailUp),
    ("J", Action::DetailDown),
    ("/", Action::Filter),
    ("esc", Action::ClearFilter),
    ("tab", Action::NextView),
    ("shift-tab", Action::PrevView),
    ("s", Action::SortNext),
    ("S", Action::SortReverse),
    ("A", Action::NextAgent),
    ("R", Action::RunsView),
    ("I", Action::ImagesView),
    ("T", Action::ToggleMouse),
    ("y", Action::CopyHash),
    ("Y", Action::CopyEvidence),
    ("M", Action::Messages),
    (":", Action::CommandLine),
    ("m", Action::ActionMenu),
    ("u", Action::MarkUnfixable),
    ("z", Action::MarkSkip),
    ("c", Action::ClearMark),
    ("n", Action::AddNote),
    ("L", Action::OpenLog),
    ("ctrl-w", Action::CycleFocus),
    ("r", Action::StartRun),
    ("b", Action::BuildBaseline),
    ("B", Action::BuildWithKnobs),
    ("x", Action::CancelRun),
    ("f", Action::FixMenu),
    ("space", Action::Pick),
    ("F", Action::BulkFix),
    ("C", Action::StartCampaign),
    ("O", Action::CampaignView),
    ("p", Action::GpuPane),
    ("P", Action::GpuWindow),
    ("H", Action::GpuHost),
    ("+", Action::GpuFaster),
    ("-", Action::GpuSlower),
    ("D", Action::DebugPane),
    ("V", Action::DebugLevel),
    ("d", Action::PatchView),
    ("t", Action::AgentRunView),
    ("v", Action::VerdictPlot),
];

const LOG: &[(&str, Action)] = &[
    ("b", Action::ShowBaseline),
    ("h", Action::ShowHuman),
    ("a", Action::ShowAgent),
    ("k", Action::ScrollUp),
    ("up", Action::ScrollUp),
    ("j", Action::ScrollDown),
    ("down", Action::ScrollDown),
    ("pageup", Action::ScrollPageUp),
    ("ctrl-u", Action::ScrollPageUp),
    ("pagedown", Action::ScrollPageDown),
    ("ctrl-d", Action::ScrollPageDown),
    ("g", Action::ScrollTop),
    ("home", Action::ScrollTop),
    ("G", Action::Follow),
    ("end", Action::Follow),
    ("/", Action::LogSearch),
    ("esc", Action::CloseLog),
    ("o", Action::OtherPane),
    ("n", Action::SearchNext),
    ("N", Action::SearchPrev),
    ("e", Action::NextError),
    ("E", Action::PrevError),
    ("m", Action::ToggleMatchesOnly),
    ("v", Action::CycleLevel),
    ("w", Action::ToggleWrap),
    ("X", Action::ExpandLines),
    ("W", Action::SaveLog),
    ("tab", Action::NextSection),
    ("shift-tab", Action::PrevSection),
];

const CHOOSER: &[(&str, Action)] = &[
    ("b", Action::RunBaseline),
    ("h", Action::RunHuman),
    ("a", Action::RunAgent),
    ("3", Action::RunAll),
    ("esc", Action::Close),
    ("q", Action::Close),
];

const FIX_MENU: &[(&str, Action)] = &[
    ("enter", Action::ApplyFix),
    ("c", Action::ApplyFixCommit),
    ("w", Action::ShowWhy),
    ("u", Action::FixUnfixable),
    ("b", Action::ShowBaseline),
    ("h", Action::ShowHuman),
    ("a", Action::ShowAgent),
];

/// Choosing one entry of a list: the bulk picker's recipe, the action menu's action.
const BULK_PICKER: &[(&str, Action)] = &[("enter", Action::Choose)];

const IMAGES: &[(&str, Action)] = &[("d", Action::DeleteImage), ("p", Action::PushImage)];

const RUNS: &[(&str, Action)] =
    &[("enter", Action::OpenLog), ("L", Action::OpenLog), ("x", Action::CancelRun)];

const CONFIRM: &[(&str, Action)] = &[
    ("y", Action::Yes),
    ("Y", Action::Yes),
    ("N", Action::No),
    ("n", Action::No),
    ("esc", Action::No),
    ("q", Action::No),
    ("enter", Action::Accept),
    ("L", Action::LeaveRunning),
    ("o", Action::NextHost),
    ("+", Action::MoreRepeats),
    ("left", Action::SwitchButton),
    ("right", Action::SwitchButton),
    ("tab", Action::SwitchButton),
    ("shift-tab", Action::SwitchButton),
    ("h", Action::SwitchButton),
    ("l", Action::SwitchButton),
    ("j", Action::ScrollDown),
    ("down", Action::ScrollDown),
    ("k", Action::ScrollUp),
    ("up", Action::ScrollUp),
    ("pagedown", Action::ScrollPageDown),
    ("pageup", Action::ScrollPageUp),
];

const PROMPT: &[(&str, Action)] = &[
    ("enter", Action::Submit),
    ("esc", Action::Close),
    ("backspace", Action::DeleteChar),
    ("ctrl-u", Action::ClearLine),
    ("tab", Action::Complete),
    ("up", Action::Recall),
];

const CAMPAIGN: &[(&str, Action)] = &[
    ("pagedown", Action::PageDown),
    ("pageup", Action::PageUp),
    ("p", Action::CampaignPause),
    ("r", Action::CampaignResume),
    ("X", Action::CampaignCancel),
    ("]", Action::CampaignNext),
    ("[", Action::CampaignPrevious),
    ("enter", Action::OpenLog),
];

const HELP: &[(&str, Action)] =
    &[("pagedown", Action::PageDown), ("pageup", Action::PageUp), ("?", Action::Close)];

const PLOT: &[(&str, Action)] = &[
    ("enter", Action::Choose),
    ("tab", Action::NextPair),
    ("pagedown", Action::PageDown),
    ("pageup", Action::PageUp),
];
