//! A baseline build's pane: a gauge from ninja's `[N/M]`, the status line (phase, ETA, warnings,
//! memory with its peak, CPU, a stall marker), the outcome once finished, and its log below.

use crate::app::{AppState, BuildView, LogView};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Gauge, Paragraph, Wrap};

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, view: &LogView, theme: &Theme) {
    let build = state.builds.by_commit.get(&view.key.short).cloned().unwrap_or_default();
    let outcome_rows = super::cells(build.outcome.len()).min(4);
    let [gauge, status, outcome, log] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(outcome_rows),
        Constraint::Min(3),
    ])
    .areas(area);
    frame.render_widget(gauge_of(&build, theme), gauge);
    let stalled = build.status.contains("STALLED");
    let style = if stalled { theme.warn } else { theme.text };
    frame.render_widget(Paragraph::new(build.status.clone()).style(style), status);
    let failed = build.outcome.iter().any(|l| l.contains("FAILED"));
    let lines: Vec<Line> = build.outcome.iter().map(|l| Line::raw(l.clone())).collect();
    let style = if failed { theme.fail } else { theme.ok };
    frame.render_widget(Paragraph::new(lines).style(style).wrap(Wrap { trim: false }), outcome);
    super::log_pane::render(frame, log, &crate::ui::log_props(state, view), theme);
}

fn gauge_of<'a>(build: &BuildView, theme: &Theme) -> Gauge<'a> {
    let ratio = build.fraction.unwrap_or(0.0).clamp(0.0, 1.0);
    let label = match (build.live, build.fraction) {
        (true, Some(f)) => format!("{} {:.0}%", build.phase, f * 100.0),
        (true, None) => build.phase.clone(),
        (false, _) if build.outcome.is_empty() => "not started".into(),
        (false, _) => "finished".into(),
    };
    Gauge::default().ratio(ratio).label(label).gauge_style(theme.accent)
}
