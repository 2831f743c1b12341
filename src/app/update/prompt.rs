//! Text prompts (filter, log search, unfixable reason, note): editing, live filtering, submit and
//! cancel. What a prompt means to another area goes back to `update` as an `Edit`.

use crate::app::filter::Query;
use crate::app::{Action, AppState, Effect, Mode, Prompt, PromptPurpose};

/// What an edit did, for `update` to route.
pub enum Edit {
    None,
    FilterChanged,
    /// The log search text changed (empty: cancelled).
    SearchChanged(String),
    Submitted(Prompt),
}

pub fn open_filter(state: &mut AppState) -> Vec<Effect> {
    let text = state.board.query.text.clone();
    state.mode = Mode::Prompt(Prompt::new(PromptPurpose::Filter, "", text));
    Vec::new()
}

pub fn act(state: &mut AppState, action: Action) -> Edit {
    match action {
        Action::Submit => submit(state),
        Action::Close => cancel(state),
        Action::DeleteChar => edit(state, |text| {
            text.pop();
        }),
        Action::ClearLine => edit(state, String::clear),
        Action::Complete => complete(state),
        Action::Recall => recall(state),
        _ => Edit::None,
    }
}

pub fn push(state: &mut AppState, c: char) -> Edit {
    edit(state, |text| text.push(c))
}

fn edit(state: &mut AppState, change: impl FnOnce(&mut String)) -> Edit {
    let Mode::Prompt(prompt) = &mut state.mode else { return Edit::None };
    change(&mut prompt.text);
    match prompt.purpose {
        PromptPurpose::Filter => {
            state.board.query = Query::parse(&prompt.text);
            state.board.refilter();
            Edit::FilterChanged
        }
        PromptPurpose::LogSearch => Edit::SearchChanged(prompt.text.clone()),
        _ => Edit::None,
    }
}

/// ↑ in the log search: the last query searched, to run again or edit (the prompt opens empty).
fn recall(state: &mut AppState) -> Edit {
    let last = state.logs.last_query.clone();
    match &state.mode {
        Mode::Prompt(prompt) if prompt.purpose == PromptPurpose::LogSearch => {
            edit(state, |text| *text = last)
        }
        _ => Edit::None,
    }
}

/// Tab completes on the command line and means nothing in the other prompts.
fn complete(state: &mut AppState) -> Edit {
    match &mut state.mode {
        Mode::Prompt(prompt) if prompt.purpose == PromptPurpose::Command => {
            super::menu::complete(&mut prompt.text);
            Edit::None
        }
        _ => Edit::None,
    }
}

fn cancel(state: &mut AppState) -> Edit {
    let Mode::Prompt(prompt) = std::mem::replace(&mut state.mode, Mode::Normal) else { return Edit::None };
    match prompt.purpose {
        PromptPurpose::Filter => {
            state.board.query = Query::default();
            state.board.refilter();
            Edit::FilterChanged
        }
        PromptPurpose::LogSearch => Edit::SearchChanged(String::new()),
        _ => Edit::None,
    }
}

fn submit(state: &mut AppState) -> Edit {
    match std::mem::replace(&mut state.mode, Mode::Normal) {
        Mode::Prompt(prompt) => Edit::Submitted(prompt),
        other => {
            state.mode = other;
            Edit::None
        }
    }
}
