//! VIEW: `view(frame, &AppState, &Theme)`. A read-only function of state: no I/O, no regex,
//! no classification; one widget per file under `widgets/`.

pub mod contrast;
mod layout;
pub mod theme;
mod widgets;

pub use layout::MIN_SIZE;
pub use theme::Theme;
pub use widgets::hints::line as hint_line;

use crate::app::{Action, AppState, Focus, KeyMode, Mode, Pointed, PromptPurpose};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};

/// The screen's regions for this state, and the rows of the GPU and debug panes.
fn areas(area: Rect, state: &AppState) -> (layout::Areas, u16, u16) {
    let gpu_rows = if state.gpu.visible { widgets::gpu_pane::height(state) } else { 0 };
    let debug_rows = if state.session.debug_pane { widgets::debug_pane::HEIGHT } else { 0 };
    let pane = if state.logs.document_open() {
        layout::Pane::Whole
    } else if state.board.detail_open || state.logs.is_open() {
        layout::Pane::Beside
    } else {
        layout::Pane::None
    };
    let split = layout::split(area, pane, gpu_rows + debug_rows);
    (split, gpu_rows, debug_rows)
}

/// What a terminal cell shows, by the layout `view` draws; `None` under an overlay or off the
/// board and its pane.
pub fn pointed(state: &AppState, column: u16, row: u16) -> Option<Pointed> {
    let (w, h) = state.session.size;
    if w < MIN_SIZE.0 || h < MIN_SIZE.1 || !matches!(state.mode, Mode::Normal) {
        return None;
    }
    let (areas, _, _) = areas(Rect::new(0, 0, w, h), state);
    let at = Position { x: column, y: row };
    if areas.detail.is_some_and(|d| d.contains(at)) {
        return Some(Pointed::Pane);
    }
    areas
        .board
        .contains(at)
        .then(|| widgets::board::row_at(areas.board, state, row).map_or(Pointed::Board, Pointed::BoardRow))
}

/// How far the detail pane can scroll as the screen is laid out now; `None` when it is not shown.
pub fn detail_scroll_limit(state: &AppState, theme: &Theme) -> Option<u16> {
    let (w, h) = state.session.size;
    let (areas, _, _) = areas(Rect::new(0, 0, w, h), state);
    let pane = areas.detail.filter(|_| !state.logs.is_open())?;
    Some(widgets::detail::scroll_limit(pane, state, theme))
}

/// How far the confirm dialog can scroll at the terminal's size, when one is open.
pub fn confirm_scroll_limit(state: &AppState) -> Option<usize> {
    let Mode::Confirm(confirm) = &state.mode else { return None };
    let (w, h) = state.session.size;
    Some(widgets::confirm::scroll_limit(confirm, Rect::new(0, 0, w, h)))
}

pub fn view(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        widgets::too_small::render(frame, area, theme);
        return;
    }
    let (areas, gpu_rows, debug_rows) = areas(area, state);
    if let Some(bottom) = areas.gpu {
        let [debug, gpu] =
            Layout::vertical([Constraint::Length(debug_rows), Constraint::Min(0)]).areas(bottom);
        if debug_rows > 0 {
            widgets::debug_pane::render(frame, debug, state, theme);
        }
        if gpu_rows > 0 {
            widgets::gpu_pane::render(frame, gpu, state, theme);
        }
    }
    widgets::header::render(frame, areas.header, state, theme);
    if !areas.board.is_empty() {
        widgets::board::render(frame, areas.board, state, theme);
    }
    if let Some(pane) = areas.detail {
        match (&state.logs.run_pane, &state.logs.recorded) {
            (Some((id, shown)), _) => widgets::run_panes::render(frame, pane, state, id, *shown, theme),
            (None, Some(view)) if view.key.log == crate::app::LogId::Build => {
                widgets::build_pane::render(frame, pane, state, view, theme);
            }
            (None, Some(view)) => widgets::log_pane::render(frame, pane, &log_props(state, view), theme),
            (None, None) => widgets::detail::render(frame, pane, state, theme),
        }
    }
    widgets::footer::render(frame, areas.footer, state, theme);
    let keymap = &state.session.keymap;
    match &state.mode {
        Mode::Help => widgets::help::render(frame, area, state, theme),
        Mode::Messages => widgets::messages::render(frame, area, state, theme),
        Mode::Campaign => widgets::campaign_view::render(frame, area, state, theme),
        Mode::Runs(selected) => widgets::runs_view::render(frame, area, state, *selected, theme),
        Mode::Images(selected) => widgets::images_view::render(frame, area, state, *selected, theme),
        Mode::Actions(menu) => widgets::action_menu::render(frame, area, menu, keymap, theme),
        Mode::Plot(plot) => widgets::verdict_plot::render(frame, area, state, plot, theme),
        Mode::Prompt(p) if p.purpose == PromptPurpose::Command => {
            widgets::action_menu::render_completions(frame, areas.footer, state, &p.text, theme);
        }
        Mode::Confirm(confirm) => widgets::confirm::render(frame, area, confirm, keymap, theme),
        Mode::Choose(short) => widgets::chooser::render(frame, area, short, keymap, theme),
        Mode::Fix(menu) => widgets::fix_menu::render(frame, area, menu, keymap, theme),
        Mode::BulkFix(picker) => widgets::fix_menu::render_bulk(frame, area, picker, keymap, theme),
        Mode::Normal | Mode::Prompt(_) | Mode::Planning(_) => {}
    }
}

/// What the log pane widget needs to draw a log view.
pub(crate) fn log_props<'a>(
    state: &AppState,
    view: &'a crate::app::LogView,
) -> widgets::log_pane::LogPaneProps<'a> {
    widgets::log_pane::LogPaneProps {
        view,
        page_rows: state.log_rows(),
        focused: state.focus == Focus::Log,
        expand_key: state.session.keymap.key_name(KeyMode::Log, Action::ExpandLines),
        behind: (state.logs.behind.len(), state.session.keymap.key_name(KeyMode::Log, Action::OtherPane)),
    }
}
