//! Moving around the board: selection, pages, views, sorting, the detail pane, picking commits.

use crate::app::{Action, AppState, Effect, View};

pub fn navigate(state: &mut AppState, action: Action) -> Vec<Effect> {
    let page = state.page_rows() as isize;
    let board = &mut state.board;
    match action {
        Action::Up => return move_by(state, -1),
        Action::Down => return move_by(state, 1),
        Action::PageUp => return move_by(state, -page),
        Action::PageDown => return move_by(state, page),
        Action::Top => board.select(0),
        Action::Bottom => board.select(usize::MAX),
        Action::ToggleDetail => {
            board.detail_open = !board.detail_open;
            board.detail_scroll = 0;
        }
        Action::DetailUp => board.detail_scroll = board.detail_scroll.saturating_sub(3),
        Action::DetailDown => {
            board.detail_scroll = board.detail_scroll.saturating_add(3).min(board.detail_limit)
        }
        Action::ClearFilter => clear(state),
        Action::NextView => switch_view(state, 1),
        Action::PrevView => switch_view(state, View::ALL.len() - 1),
        Action::SortNext | Action::SortReverse => sort(state, action),
        Action::NextAgent => board.next_agent(),
        _ => {}
    }
    Vec::new()
}

/// Esc: close the detail pane, else clear the filter.
fn clear(state: &mut AppState) {
    let board = &mut state.board;
    if board.detail_open {
        board.detail_open = false;
    } else if !board.query.is_empty() {
        board.query = Default::default();
        board.refilter();
    }
}

fn sort(state: &mut AppState, action: Action) {
    let board = &mut state.board;
    if action == Action::SortNext {
        board.sort = board.sort.next();
    } else {
        board.sort_reverse = !board.sort_reverse;
    }
    board.resort();
}

pub fn move_by(state: &mut AppState, delta: isize) -> Vec<Effect> {
    let board = &mut state.board;
    board.select(board.selected.saturating_add_signed(delta));
    board.detail_scroll = 0;
    Vec::new()
}

fn switch_view(state: &mut AppState, step: usize) {
    let board = &mut state.board;
    let i = View::ALL.iter().position(|v| *v == board.view).unwrap_or(0);
    board.view = View::ALL[(i + step) % View::ALL.len()];
    board.refilter();
}

/// Space: pick the selected commit for a bulk fix, then move on.
pub fn pick(state: &mut AppState) -> Vec<Effect> {
    let board = &mut state.board;
    if let Some(short) = board.selected_short().cloned()
        && !board.picked.remove(&short)
    {
        board.picked.insert(short);
    }
    move_by(state, 1)
}
