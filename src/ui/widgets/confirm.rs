//! The confirm dialog: a preview of exactly what will happen; Cancel is focused by default.

use super::centered;
use crate::app::Confirm;
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

pub fn render(frame: &mut Frame, area: Rect, confirm: &Confirm, theme: &Theme) {
    let mut lines: Vec<Line> = confirm.preview.iter().map(|l| Line::styled(l.clone(), theme.text)).collect();
    lines.push(Line::raw(""));
    let (yes, no) =
        if confirm.yes_focused { (theme.selected, theme.dim) } else { (theme.dim, theme.selected) };
    lines.push(Line::from(vec![
        Span::styled(" [y] Yes ", yes),
        Span::raw("   "),
        Span::styled(" [N] Cancel ", no),
    ]));
    let height = lines.len() as u16 + 4;
    let rect = centered(area, 72, height);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.warn)
        .title(Span::styled(format!(" {} ", confirm.title), theme.warn));
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block).wrap(Wrap { trim: false }), rect);
}
