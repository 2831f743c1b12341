//! Triage changes from the board: each is appended to the commit's history and saved at once.

use crate::app::{
    Action, AppState, Confirm, ConfirmAction, Effect, Level, Mode, Prompt, PromptPurpose, READ_ONLY,
};
use crate::triage::Change;

pub fn quick_mark(state: &mut AppState, action: Action) -> Vec<Effect> {
    let Some(short) = state.board.selected_short().cloned() else { return Vec::new() };
    let change = if action == Action::MarkSkip { Change::Skip } else { Change::Clear };
    state.record(&short, change)
}

pub fn record_note(state: &mut AppState, short: &str, text: &str) -> Vec<Effect> {
    state.record(short, Change::Note { text: text.trim().to_string() })
}

pub fn record_unfixable(state: &mut AppState, short: &str, reason: String) -> Vec<Effect> {
    state.record(short, Change::Unfixable { reason })
}

/// `u` / `n`: the reason (prefilled from the classifier) or note prompt for the selected commit.
pub fn open_prompt(state: &mut AppState, action: Action) -> Vec<Effect> {
    let Some(short) = state.board.selected_short().cloned() else { return Vec::new() };
    if state.session.read_only {
        state.notify(Level::Warn, READ_ONLY);
        return Vec::new();
    }
    let prompt = match action {
        Action::AddNote => Prompt::new(PromptPurpose::Note, &short, String::new()),
        _ => Prompt::new(PromptPurpose::UnfixableReason, &short, state.board.unfixable_reason(&short)),
    };
    state.mode = Mode::Prompt(prompt);
    Vec::new()
}

/// A submitted reason: empty is refused (the prompt stays), else the confirm, Cancel focused.
pub fn confirm_unfixable(state: &mut AppState, prompt: Prompt) -> Vec<Effect> {
    let reason = prompt.text.trim().to_string();
    if reason.is_empty() {
        state.notify(Level::Warn, "a reason is required to mark a commit unfixable");
        state.mode = Mode::Prompt(prompt);
        return Vec::new();
    }
    let preview = vec![
        format!("Commit {} will be marked UNFIXABLE.", prompt.short),
        format!("Reason: {reason}"),
        "The change is appended to its triage history and saved now.".into(),
    ];
    let title = format!("Mark {} unfixable?", prompt.short);
    let action = ConfirmAction::MarkUnfixable { short: prompt.short, reason };
    state.mode = Mode::Confirm(Confirm::new(title, preview, action));
    Vec::new()
}

/// The other instance let go of the workspace: take in what it wrote, and save from now on.
pub fn took_over(state: &mut AppState, book: &crate::triage::TriageBook, messages: &[String]) -> Vec<Effect> {
    state.board.book.merge(book);
    for index in 0..state.board.entries.len() {
        state.board.rebuild_row(index);
    }
    state.board.refilter();
    state.session.read_only = false;
    let text = messages
        .first()
        .cloned()
        .unwrap_or_else(|| "the other perftriage quit: this board now holds the workspace".into());
    state.notify(if messages.is_empty() { Level::Info } else { Level::Warn }, text);
    Vec::new()
}
