//! Triage changes from the board: each is appended to the commit's history and saved at once.

use crate::app::{Action, AppState, Effect, Level};
use crate::triage::Change;

pub fn quick_mark(state: &mut AppState, action: Action) -> Vec<Effect> {
    let Some(short) = state.selected_short().map(str::to_string) else {
        return Vec::new();
    };
    let change = if action == Action::MarkSkip { Change::Skip } else { Change::Clear };
    record_change(state, &short, change)
}

pub fn record_note(state: &mut AppState, short: &str, text: String) -> Vec<Effect> {
    record_change(state, short, Change::Note { text: text.trim().to_string() })
}

pub fn record_unfixable(state: &mut AppState, short: &str, reason: String) -> Vec<Effect> {
    record_change(state, short, Change::Unfixable { reason })
}

pub fn record_change(state: &mut AppState, short: &str, change: Change) -> Vec<Effect> {
    if state.read_only {
        state.message = Some((Level::Warn, "read-only board: another perftriage holds the workspace".into()));
        return Vec::new();
    }
    let summary = format!("{short}: {}", change.describe());
    if let Err(e) = state.book.apply(short, change, state.now.clone()) {
        state.message = Some((Level::Warn, e.to_string()));
        return Vec::new();
    }
    if let Some(index) = state.entry_index(short) {
        state.rebuild_row(index);
        state.refilter();
    }
    state.unsaved = true;
    state.message = Some((Level::Info, summary));
    vec![Effect::SaveTriage(state.book.clone())]
}
