//! The help overlay (one section per key mode, scrolled with the menu keys) and the debug pane
//! with the tool's own log.

use crate::app::{Action, AppState, Effect, Mode};

pub fn open(state: &mut AppState) -> Vec<Effect> {
    state.mode = Mode::Help;
    state.session.help_scroll = 0;
    Vec::new()
}

/// `M`: every message and warning since start, newest at the bottom, scrolled like help.
pub fn messages(state: &mut AppState) -> Vec<Effect> {
    state.mode = Mode::Messages;
    let lines = u16::try_from(state.session.messages.len()).unwrap_or(u16::MAX);
    state.session.help_scroll = lines.saturating_sub(state.session.size.1.saturating_sub(6));
    Vec::new()
}

pub fn act(state: &mut AppState, action: Action) -> Vec<Effect> {
    let page = state.session.size.1.saturating_sub(6).max(1);
    let scroll = &mut state.session.help_scroll;
    match action {
        Action::MenuDown => *scroll = scroll.saturating_add(1),
        Action::MenuUp => *scroll = scroll.saturating_sub(1),
        Action::PageDown => *scroll = scroll.saturating_add(page),
        Action::PageUp => *scroll = scroll.saturating_sub(page),
        Action::Close => state.mode = Mode::Normal,
        _ => {}
    }
    Vec::new()
}

/// `D` shows or hides the tool's own log; `V` raises its minimum level, round to debug again.
pub fn debug(state: &mut AppState, action: Action) -> Vec<Effect> {
    use crate::logs::Level;
    let session = &mut state.session;
    if action == Action::DebugPane {
        session.debug_pane = !session.debug_pane;
        return Vec::new();
    }
    session.debug_level = match session.debug_level {
        Level::Debug => Level::Info,
        Level::Info => Level::Warning,
        Level::Warning => Level::Error,
        Level::Error => Level::Debug,
    };
    Vec::new()
}
