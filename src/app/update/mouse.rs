//! The mouse and the clipboard: the wheel and clicks by what is under the pointer, mouse capture
//! on and off, and copying a commit's hash or evidence line.

use super::{board, logs};
use crate::app::{Action, AppState, Effect, Focus, Level, Pointed};

/// `T`: take the mouse, or give it to the terminal for selecting text.
pub fn toggle(state: &mut AppState) -> Vec<Effect> {
    let on = !state.session.mouse_capture;
    state.session.mouse_capture = on;
    let text = if on {
        "mouse on: wheel and clicks go to the board"
    } else {
        "mouse off: select text with it; T turns it on"
    };
    state.notify(Level::Info, text);
    vec![Effect::MouseCapture(on)]
}

/// `y` / `Y`: the selected commit's hash, or its failure's evidence line, to the clipboard.
pub fn copy(state: &mut AppState, action: Action) -> Vec<Effect> {
    let Some(index) = state.board.selected_entry() else { return Vec::new() };
    let entry = &state.board.entries[index];
    let text = match action {
        Action::CopyHash => Some(entry.commit.full.clone()),
        _ => entry.verdict().map(|v| v.evidence.clone()),
    };
    let Some(text) = text else {
        state.notify(Level::Info, "no failure evidence to copy");
        return Vec::new();
    };
    let shown: String = text.chars().take(60).collect();
    state.notify(Level::Info, format!("copied to the clipboard (OSC 52): {shown}"));
    vec![Effect::Copy(text)]
}

/// The wheel scrolls what is under the pointer; a click selects a row or focuses a pane.
pub fn pointer(state: &mut AppState, over: Pointed, wheel: i8) -> Vec<Effect> {
    let down = wheel > 0;
    match (over, wheel) {
        (Pointed::Pane, 0) if state.logs.is_open() => state.focus = Focus::Log,
        (Pointed::Pane, _) if state.logs.is_open() => {
            let action = if down { Action::ScrollDown } else { Action::ScrollUp };
            for _ in 0..3 {
                logs::act(state, action);
            }
        }
        (Pointed::Pane, 0) => {}
        (Pointed::Pane, _) => {
            let scroll = &mut state.board.detail_scroll;
            let limit = state.board.detail_limit;
            *scroll = if down { scroll.saturating_add(3).min(limit) } else { scroll.saturating_sub(3) };
        }
        (Pointed::BoardRow(pos), 0) => {
            state.focus = Focus::Board;
            state.board.select(pos);
            state.board.detail_scroll = 0;
        }
        (_, 0) => state.focus = Focus::Board,
        (_, _) => return board::move_by(state, if down { 3 } else { -3 }),
    }
    Vec::new()
}
