//! Text prompts (filter, unfixable reason, note) and the confirm dialog. The filter applies live.

use crate::app::{
    Action, AppState, Confirm, ConfirmAction, Effect, Key, KeyCode, Level, Mode, Prompt, PromptPurpose,
};

pub fn open_filter(state: &mut AppState) -> Vec<Effect> {
    let text = state.query.text.clone();
    state.mode = Mode::Prompt(Prompt { purpose: PromptPurpose::Filter, short: String::new(), text });
    Vec::new()
}

/// The unfixable prompt for a commit, the reason prefilled from its failure's explanation.
pub fn open_unfixable(state: &mut AppState, short: &str, category: &str) -> Vec<Effect> {
    if state.read_only {
        state.message = Some((Level::Warn, "read-only board: another perftriage holds the workspace".into()));
        return Vec::new();
    }
    let explain = state
        .entry_index(short)
        .and_then(|i| state.entries[i].verdict().map(|v| v.explain.clone()))
        .filter(|e| !e.is_empty());
    let text = match explain {
        Some(e) => format!("{category}: {e}"),
        None => category.to_string(),
    };
    state.mode =
        Mode::Prompt(Prompt { purpose: PromptPurpose::UnfixableReason, short: short.to_string(), text });
    Vec::new()
}

pub fn open_for_selected(state: &mut AppState, action: Action) -> Vec<Effect> {
    let Some(short) = state.selected_short().map(str::to_string) else {
        return Vec::new();
    };
    if state.read_only {
        state.message = Some((Level::Warn, "read-only board: another perftriage holds the workspace".into()));
        return Vec::new();
    }
    let purpose =
        if action == Action::AddNote { PromptPurpose::Note } else { PromptPurpose::UnfixableReason };
    let text =
        if purpose == PromptPurpose::UnfixableReason { suggested_reason(state) } else { String::new() };
    state.mode = Mode::Prompt(Prompt { purpose, short, text });
    Vec::new()
}

/// Prefill the reason from the classifier's explanation of the failure.
fn suggested_reason(state: &AppState) -> String {
    let Some(i) = state.selected_entry() else {
        return String::new();
    };
    state.entries[i].verdict().map(|v| format!("{}: {}", v.category, v.evidence)).unwrap_or_default()
}

pub fn key(state: &mut AppState, key: Key) -> Vec<Effect> {
    let Mode::Prompt(prompt) = &mut state.mode else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Esc => {
            match prompt.purpose {
                PromptPurpose::Filter => {
                    state.query = Default::default();
                    state.refilter();
                }
                PromptPurpose::LogSearch => super::logs::search(state, ""),
                _ => {}
            }
            state.mode = Mode::Normal;
        }
        KeyCode::Enter => return submit(state),
        KeyCode::Backspace => {
            prompt.text.pop();
            live_filter(state);
        }
        KeyCode::Char('u') if key.ctrl => {
            prompt.text.clear();
            live_filter(state);
        }
        KeyCode::Char(c) if !key.ctrl => {
            prompt.text.push(c);
            live_filter(state);
        }
        _ => {}
    }
    Vec::new()
}

fn live_filter(state: &mut AppState) {
    match &state.mode {
        Mode::Prompt(Prompt { purpose: PromptPurpose::Filter, text, .. }) => {
            state.query = crate::app::filter::Query::parse(text);
            state.refilter();
        }
        Mode::Prompt(Prompt { purpose: PromptPurpose::LogSearch, text, .. }) => {
            let text = text.clone();
            super::logs::search(state, &text);
        }
        _ => {}
    }
}

fn submit(state: &mut AppState) -> Vec<Effect> {
    let Mode::Prompt(prompt) = std::mem::replace(&mut state.mode, Mode::Normal) else {
        return Vec::new();
    };
    match prompt.purpose {
        PromptPurpose::Filter => Vec::new(),
        PromptPurpose::LogSearch => super::logs::submit_search(state, &prompt.text),
        PromptPurpose::Note => super::triage::record_note(state, &prompt.short, prompt.text),
        PromptPurpose::UnfixableReason => {
            let reason = prompt.text.trim().to_string();
            if reason.is_empty() {
                state.message = Some((Level::Warn, "a reason is required to mark a commit unfixable".into()));
                state.mode = Mode::Prompt(prompt);
                return Vec::new();
            }
            let preview = vec![
                format!("Commit {} will be marked UNFIXABLE.", prompt.short),
                format!("Reason: {reason}"),
                "The change is appended to its triage history and saved now.".into(),
            ];
            let title = format!("Mark {} unfixable?", prompt.short);
            state.mode = Mode::Confirm(Confirm {
                title,
                preview,
                action: ConfirmAction::MarkUnfixable { short: prompt.short, reason },
                yes_focused: false,
            });
            Vec::new()
        }
    }
}

pub fn confirm_key(state: &mut AppState, key: Key) -> Vec<Effect> {
    let Mode::Confirm(confirm) = &mut state.mode else {
        return Vec::new();
    };
    let accept = match key.code {
        KeyCode::Char('y') | KeyCode::Char('Y') => true,
        KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc | KeyCode::Char('q') => false,
        KeyCode::Left
        | KeyCode::Right
        | KeyCode::Tab
        | KeyCode::BackTab
        | KeyCode::Char('h')
        | KeyCode::Char('l') => {
            confirm.yes_focused = !confirm.yes_focused;
            return Vec::new();
        }
        KeyCode::Enter => confirm.yes_focused,
        _ => return Vec::new(),
    };
    let Mode::Confirm(confirm) = std::mem::replace(&mut state.mode, Mode::Normal) else {
        return Vec::new();
    };
    if !accept {
        state.message = Some((Level::Info, "cancelled".into()));
        return Vec::new();
    }
    match confirm.action {
        ConfirmAction::MarkUnfixable { short, reason } => {
            super::triage::record_unfixable(state, &short, reason)
        }
        ConfirmAction::StartRuns { short, variants } => super::runs::start(state, &short, &variants),
        ConfirmAction::ApplyFix { short, variant, recipe, commit_image } => {
            super::fixes::apply(state, &short, variant, &recipe, commit_image)
        }
        ConfirmAction::BulkFix { shorts, recipe } => super::fixes::apply_bulk(state, &shorts, &recipe),
        ConfirmAction::CancelRun { run_id } => {
            state.message = Some((Level::Info, format!("cancelling run {run_id}…")));
            vec![Effect::CancelRun { run_id }]
        }
    }
}
