//! A run's two live log panes, server above benchmark; the one shown first takes the log keys.

use crate::app::AppState;
use crate::runs::{Pane, RunId};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Paragraph;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, run_id: &RunId, shown: Pane, theme: &Theme) {
    let Some(run) = state.runs.list.iter().find(|r| r.run_id == *run_id) else {
        frame.render_widget(Paragraph::new("That run is gone.").style(theme.dim), area);
        return;
    };
    let [top, bottom] =
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    for (pane, area) in [(Pane::Server, top), (Pane::Benchmark, bottom)] {
        let mut props = crate::ui::log_props(state, run.pane(pane));
        props.focused &= pane == shown;
        super::log_pane::render(frame, area, &props, theme);
    }
}
