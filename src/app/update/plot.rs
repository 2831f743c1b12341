//! The verdict plot (`v`): one pair's forest plot over the commits the filter shows; Tab takes the
//! next pair, Enter jumps to the selected commit with its detail open.

use crate::app::{Action, AppState, Effect, Mode, PlotView};
use crate::report::forest;

/// `v`: the plot of the human-vs-baseline pair.
pub fn open(state: &mut AppState) -> Vec<Effect> {
    state.mode = Mode::Plot(view(state, 0));
    Vec::new()
}

fn view(state: &AppState, pair: usize) -> PlotView {
    let board = &state.board;
    let rows = forest(board.visible.iter().map(|&i| &board.entries[i]), pair);
    PlotView { pair, rows, selected: 0 }
}

/// Keys in the plot: move, page, next pair, jump, close.
pub fn act(state: &mut AppState, action: Action) -> Vec<Effect> {
    let Mode::Plot(plot) = &mut state.mode else { return Vec::new() };
    let last = plot.rows.len().saturating_sub(1);
    let page = usize::from(state.session.size.1.saturating_sub(8)).max(1);
    match action {
        Action::MenuDown => plot.selected = (plot.selected + 1).min(last),
        Action::MenuUp => plot.selected = plot.selected.saturating_sub(1),
        Action::PageDown => plot.selected = (plot.selected + page).min(last),
        Action::PageUp => plot.selected = plot.selected.saturating_sub(page),
        Action::NextPair => {
            let next = plot.pair + 1;
            state.mode = Mode::Plot(view(state, next % crate::report::PAIRS.len()));
        }
        Action::Choose => jump(state),
        Action::Close => state.mode = Mode::Normal,
        _ => {}
    }
    Vec::new()
}

/// The selected row's commit, selected on the board with its detail open.
fn jump(state: &mut AppState) {
    let Mode::Plot(plot) = &state.mode else { return };
    let Some(short) = plot.rows.get(plot.selected).map(|r| r.short.clone()) else { return };
    let board = &mut state.board;
    if let Some(pos) = board.position_of(&short) {
        board.select(pos);
        board.detail_open = true;
        board.detail_scroll = 0;
    }
    state.mode = Mode::Normal;
}
