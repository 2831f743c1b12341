//! The `?` overlay, generated from the live key map so it cannot disagree with it. It switches to
//! two columns when one does not fit the terminal's height.

use super::centered;
use crate::app::{Action, AppState};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let mut entries = Vec::new();
    for action in Action::ALL {
        let keys = state.keymap.keys_for(action);
        if keys.is_empty() {
            continue;
        }
        let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
        entries.push(Line::from(vec![
            Span::styled(format!("{:>12}  ", keys.join(" ")), theme.accent),
            Span::styled(action.description(), theme.text),
        ]));
    }
    let footer = Line::styled("✓ ok  ✗ fail  ◷ timeout  ⊘ skip  · not run   any key closes", theme.dim);
    let two_columns = entries.len() + 4 > usize::from(area.height);
    let per_column = if two_columns { entries.len().div_ceil(2) } else { entries.len() };
    let width = if two_columns { area.width } else { 96 };
    let rect = centered(area, width, per_column as u16 + 4);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border)
        .title(Span::styled(" Keys ", theme.header));
    frame.render_widget(Clear, rect);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let [body, bottom] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    let columns = Layout::horizontal([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).split(body);
    let mut chunks = entries.chunks(per_column.max(1));
    let first = chunks.next().unwrap_or_default().to_vec();
    if two_columns {
        frame.render_widget(Paragraph::new(first), columns[0]);
        frame.render_widget(Paragraph::new(chunks.next().unwrap_or_default().to_vec()), columns[1]);
    } else {
        frame.render_widget(Paragraph::new(first), body);
    }
    frame.render_widget(Paragraph::new(footer), bottom);
}
