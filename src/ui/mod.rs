//! VIEW: `view(frame, &AppState, &Theme)`. A read-only function of state: no I/O, no regex,
//! no classification; one widget per file under `widgets/`.

mod layout;
pub mod theme;
mod widgets;

pub use layout::MIN_SIZE;
pub use theme::Theme;

use crate::app::{AppState, Mode};
use ratatui::Frame;

pub fn view(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        widgets::too_small::render(frame, area, theme);
        return;
    }
    let gpu_rows = if state.gpu.visible { widgets::gpu_pane::height(state) } else { 0 };
    let areas = layout::split(area, state.detail_open || state.log_focused(), gpu_rows);
    if let Some(gpu) = areas.gpu {
        widgets::gpu_pane::render(frame, gpu, state, theme);
    }
    widgets::header::render(frame, areas.header, state, theme);
    widgets::board::render(frame, areas.board, state, theme);
    if let Some(pane) = areas.detail {
        match (&state.focus_run, &state.log) {
            (Some((id, focused)), _) => widgets::run_panes::render(frame, pane, state, id, *focused, theme),
            (None, Some(view)) => widgets::log_pane::render(frame, pane, view, state.log_rows(), true, theme),
            (None, None) => widgets::detail::render(frame, pane, state, theme),
        }
    }
    widgets::footer::render(frame, areas.footer, state, theme);
    match &state.mode {
        Mode::Help => widgets::help::render(frame, area, state, theme),
        Mode::Confirm(confirm) => widgets::confirm::render(frame, area, confirm, theme),
        Mode::Choose(short) => widgets::chooser::render(frame, area, short, theme),
        Mode::Fix(menu) => widgets::fix_menu::render(frame, area, menu, theme),
        Mode::BulkFix { shorts, recipes, selected } => {
            widgets::fix_menu::render_bulk(frame, area, shorts, recipes, *selected, theme)
        }
        Mode::Normal | Mode::Prompt(_) => {}
    }
}
