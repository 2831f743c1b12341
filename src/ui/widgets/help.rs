//! The `?` overlay, generated from the live key map so it cannot disagree with it.

use super::centered;
use crate::app::{Action, AppState};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let mut lines = Vec::new();
    for action in Action::ALL {
        let keys = state.keymap.keys_for(action);
        if keys.is_empty() {
            continue;
        }
        let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
        lines.push(Line::from(vec![
            Span::styled(format!("{:>16}  ", keys.join(" ")), theme.accent),
            Span::styled(action.description(), theme.text),
        ]));
    }
    lines.push(Line::raw(""));
    lines
        .push(Line::styled("Glyphs: ✓ ok  ✗ fail  ◷ timeout  ⊘ skip  · not run   any key closes", theme.dim));
    let rect = centered(area, 92, lines.len() as u16 + 2);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border)
        .title(Span::styled(" Keys ", theme.header));
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}
