//! A run's two live log panes, server above benchmark; `o` moves the focus between them.

use crate::app::AppState;
use crate::runs::Pane;
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Paragraph;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, run_id: &str, focused: Pane, theme: &Theme) {
    let Some(run) = state.runs.iter().find(|r| r.run_id == run_id) else {
        frame.render_widget(Paragraph::new("That run is gone.").style(theme.dim), area);
        return;
    };
    let [top, bottom] =
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    let rows = state.log_rows();
    super::log_pane::render(frame, top, &run.server, rows, focused == Pane::Server, theme);
    super::log_pane::render(frame, bottom, &run.bench, rows, focused == Pane::Benchmark, theme);
}
