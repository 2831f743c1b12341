//! `r`: which variants to run. One key each; anything else cancels.

use super::centered;
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

pub fn render(frame: &mut Frame, area: Rect, short: &str, theme: &Theme) {
    let choice = |key: &'static str, what: &'static str| {
        Line::from(vec![Span::styled(format!("  [{key}] "), theme.accent), Span::styled(what, theme.text)])
    };
    let lines = vec![
        choice("b", "baseline — the parent commit"),
        choice("h", "human — the PR commit"),
        choice("a", "agent — the agent's patch on the parent"),
        choice("3", "all three, in that order"),
        Line::raw(""),
        Line::styled("  any other key cancels; a preview and a confirm follow", theme.dim),
    ];
    let rect = centered(area, 60, lines.len() as u16 + 2);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.accent)
        .title(Span::styled(format!(" Run {short} "), theme.header));
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}
