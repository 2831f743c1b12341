//! Moving around the board: selection, pages, views, sorting, the detail pane.

use crate::app::{Action, AppState, Effect, View};

pub fn navigate(state: &mut AppState, action: Action) -> Vec<Effect> {
    let page = state.page_rows() as isize;
    match action {
        Action::Up => return move_by(state, -1),
        Action::Down => return move_by(state, 1),
        Action::PageUp => return move_by(state, -page),
        Action::PageDown => return move_by(state, page),
        Action::Top => state.selected = 0,
        Action::Bottom => state.selected = state.visible.len().saturating_sub(1),
        Action::ToggleDetail => {
            state.detail_open = !state.detail_open;
            state.detail_scroll = 0;
        }
        Action::DetailUp => state.detail_scroll = state.detail_scroll.saturating_sub(3),
        Action::DetailDown => state.detail_scroll = state.detail_scroll.saturating_add(3),
        Action::ClearFilter => {
            if state.detail_open {
                state.detail_open = false;
            } else if !state.query.is_empty() {
                state.query = Default::default();
                state.refilter();
            }
        }
        Action::NextView => switch_view(state, 1),
        Action::PrevView => switch_view(state, View::ALL.len() - 1),
        Action::SortNext => {
            state.sort = state.sort.next();
            state.resort();
        }
        Action::SortReverse => {
            state.sort_reverse = !state.sort_reverse;
            state.resort();
        }
        _ => {}
    }
    Vec::new()
}

pub fn move_by(state: &mut AppState, delta: isize) -> Vec<Effect> {
    let last = state.visible.len().saturating_sub(1);
    state.selected = state.selected.saturating_add_signed(delta).min(last);
    state.detail_scroll = 0;
    Vec::new()
}

fn switch_view(state: &mut AppState, step: usize) {
    let i = View::ALL.iter().position(|v| *v == state.view).unwrap_or(0);
    state.view = View::ALL[(i + step) % View::ALL.len()];
    state.refilter();
}
