//! The confirm dialog: Cancel is focused first; yes hands the dialog's action back to `update`.

use crate::app::{Action, AppState, ConfirmAction, Level, Mode};

/// What the operator answered.
pub enum Answer {
    /// Still deciding (the focus moved, or a key that means nothing here).
    Pending,
    No,
    Yes(ConfirmAction),
    /// Quit now and leave the live runs running.
    LeaveRunning,
}

pub fn act(state: &mut AppState, action: Action) -> Answer {
    if matches!(state.mode, Mode::Planning(_)) && matches!(action, Action::No) {
        state.mode = Mode::Normal;
        return Answer::No;
    }
    let Mode::Confirm(confirm) = &mut state.mode else { return Answer::Pending };
    let accept = match action {
        Action::Yes => true,
        Action::No => false,
        Action::Accept => confirm.yes_focused,
        Action::LeaveRunning if confirm.action == ConfirmAction::QuitStoppingRuns => {
            state.mode = Mode::Normal;
            return Answer::LeaveRunning;
        }
        Action::SwitchButton => {
            confirm.yes_focused = !confirm.yes_focused;
            return Answer::Pending;
        }
        Action::NextHost => {
            super::run_confirm::next_host(confirm, &state.runs.hosts);
            return Answer::Pending;
        }
        Action::MoreRepeats => {
            super::run_confirm::next_repeat(confirm);
            return Answer::Pending;
        }
        Action::ScrollDown | Action::ScrollPageDown | Action::ScrollUp | Action::ScrollPageUp => {
            scroll(confirm, action);
            return Answer::Pending;
        }
        _ => return Answer::Pending,
    };
    let Mode::Confirm(confirm) = std::mem::replace(&mut state.mode, Mode::Normal) else {
        return Answer::Pending;
    };
    if !accept {
        state.notify(Level::Info, "cancelled");
        return Answer::No;
    }
    Answer::Yes(confirm.action)
}

/// A line or ten at a time, never past the last full page.
fn scroll(confirm: &mut crate::app::Confirm, action: Action) {
    let to = match action {
        Action::ScrollDown => confirm.scroll + 1,
        Action::ScrollPageDown => confirm.scroll + 10,
        Action::ScrollUp => confirm.scroll.saturating_sub(1),
        _ => confirm.scroll.saturating_sub(10),
    };
    confirm.scroll = to.min(confirm.scroll_limit);
}

/// How far the drawn dialog can scroll.
pub fn limit(state: &mut AppState, limit: usize) {
    if let Mode::Confirm(confirm) = &mut state.mode {
        confirm.scroll_limit = limit;
        confirm.scroll = confirm.scroll.min(limit);
    }
}
