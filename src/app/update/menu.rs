//! The `:` command line and the per-row action menu (`m`). Both only choose an action; `update`
//! carries it out as if its key had been pressed.

use crate::app::{Action, ActionMenu, AppState, Effect, Mode, Prompt, PromptPurpose, commands};

pub fn open_command(state: &mut AppState) -> Vec<Effect> {
    state.mode = Mode::Prompt(Prompt::new(PromptPurpose::Command, "", String::new()));
    Vec::new()
}

/// Tab on the command line.
pub fn complete(text: &mut String) {
    *text = commands::complete(text);
}

/// What can be done to the selected commit now, in the order people reach for it.
pub fn open_actions(state: &mut AppState) -> Vec<Effect> {
    let Some(index) = state.board.selected_entry() else { return Vec::new() };
    let entry = &state.board.entries[index];
    let short = entry.commit.short.clone();
    let failing = entry.newest_failing().is_some();
    let live = state.runs.live_of(&short).is_some();
    let marked = state.board.book.mark(&short).is_some();
    let mut items = vec![Action::StartRun];
    items.extend(live.then_some(Action::CancelRun));
    items.extend(failing.then_some(Action::FixMenu));
    items.extend([Action::OpenLog, Action::ToggleDetail]);
    items.extend(if marked {
        vec![Action::ClearMark]
    } else {
        vec![Action::MarkUnfixable, Action::MarkSkip]
    });
    items.extend([Action::AddNote, Action::Pick, Action::StartCampaign]);
    items.extend(state.session.campaign.is_some().then_some(Action::CampaignView));
    items.push(Action::CopyHash);
    items.extend(failing.then_some(Action::CopyEvidence));
    state.mode = Mode::Actions(ActionMenu { short, items, selected: 0 });
    Vec::new()
}

/// A key in the action menu: the chosen action, if one was.
pub fn act(state: &mut AppState, action: Action) -> Option<Action> {
    let Mode::Actions(menu) = &mut state.mode else { return None };
    match action {
        Action::MenuDown => menu.selected = (menu.selected + 1).min(menu.items.len().saturating_sub(1)),
        Action::MenuUp => menu.selected = menu.selected.saturating_sub(1),
        Action::Choose => {
            let chosen = menu.items.get(menu.selected).copied();
            state.mode = Mode::Normal;
            return chosen;
        }
        Action::Close => state.mode = Mode::Normal,
        _ => {}
    }
    None
}
