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
