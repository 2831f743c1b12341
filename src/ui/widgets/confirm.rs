//! The confirm dialog: a preview of exactly what will happen; Cancel is focused by default. The
//! dialog grows with its text (up to the screen) and keeps its buttons on its last row whatever
//! the preview's length: what does not fit is cut with a line saying how much.

use super::{centered, hints};
use crate::app::{Action, Confirm, KeyMap, KeyMode};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

/// Rows a line takes when word-wrapped at `width` columns (a word longer than a row is split).
fn rows(line: &str, width: usize) -> usize {
    let width = width.max(1);
    let (mut rows, mut used) = (1, 0);
    for word in line.split(' ') {
        let len = word.chars().count();
        let need = if used == 0 { len } else { used + 1 + len };
        if need <= width {
            used = need;
        } else {
            rows += usize::from(used > 0) + (len.saturating_sub(1)) / width;
            used = (len.saturating_sub(1)) % width + 1;
        }
    }
    rows
}

/// The preview lines that fit in `height` rows, the last one saying what was cut.
fn fitting(preview: &[String], width: usize, height: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut used = 0;
    for (i, line) in preview.iter().enumerate() {
        let need = rows(line, width);
        let rest = preview.len() - i;
        if used + need > height || (used + need == height && rest > 1) {
            out.push(format!("… {rest} more line(s): enlarge the terminal to see them"));
            break;
        }
        used += need;
        out.push(line.clone());
    }
    out
}

pub fn render(frame: &mut Frame, area: Rect, confirm: &Confirm, keymap: &KeyMap, theme: &Theme) {
    let longest = confirm.preview.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let width = u16::try_from(longest + 4).unwrap_or(u16::MAX).clamp(72, 120).min(area.width);
    let inner = usize::from(width.saturating_sub(2));
    let wanted: usize = confirm.preview.iter().map(|l| rows(l, inner)).sum();
    let height = u16::try_from(wanted + 4).unwrap_or(u16::MAX).min(area.height);
    let rect = centered(area, width, height);
    let title = Span::styled(format!(" {} ", confirm.title), theme.warn);
    let block = Block::default().borders(Borders::ALL).border_style(theme.warn).title(title);
    frame.render_widget(Clear, rect);
    let body = block.inner(rect);
    frame.render_widget(block, rect);
    let [text_area, _, button_area] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(1), Constraint::Length(1)]).areas(body);
    let shown = fitting(&confirm.preview, inner, usize::from(text_area.height));
    let lines: Vec<Line> = shown.into_iter().map(|l| Line::styled(l, theme.text)).collect();
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), text_area);
    frame.render_widget(Paragraph::new(buttons(confirm, keymap, theme)), button_area);
}

fn buttons<'a>(confirm: &Confirm, keymap: &KeyMap, theme: &Theme) -> Line<'a> {
    let (yes, no) =
        if confirm.yes_focused { (theme.selected, theme.dim) } else { (theme.dim, theme.selected) };
    let (y, n) =
        (hints::key(keymap, KeyMode::Confirm, Action::Yes), hints::key(keymap, KeyMode::Confirm, Action::No));
    Line::from(vec![
        Span::styled(format!(" [{y}] Yes "), yes),
        Span::raw("   "),
        Span::styled(format!(" [{n}] Cancel "), no),
    ])
}
