//! The confirm dialog: a preview of exactly what will happen; Cancel is focused by default. The
//! dialog grows with its text (up to the screen) and keeps its buttons on its last row whatever
//! the preview's length: what does not fit scrolls, with a line above and below saying how much.

use super::{centered, hints};
use crate::app::{Action, Confirm, ConfirmAction, KeyMap, KeyMode};
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

/// The preview lines that fit in `height` rows from `start`, with a line saying what is above and
/// one saying what is below.
fn fitting(preview: &[String], start: usize, width: usize, height: usize, keys: (&str, &str)) -> Vec<String> {
    let mut out = Vec::new();
    if start > 0 {
        out.push(format!("↑ {start} line(s) above: {} scrolls up", keys.0));
    }
    let mut used = out.len();
    for (i, line) in preview.iter().enumerate().skip(start) {
        let need = rows(line, width);
        let rest = preview.len() - i;
        if used + need > height || (used + need == height && rest > 1) {
            out.push(format!("↓ {rest} more line(s): {} scrolls down", keys.1));
            break;
        }
        used += need;
        out.push(line.clone());
    }
    out
}

/// The last first line that still fills `height` rows (the rest fits below it, with the line
/// saying what is above).
fn last_start(preview: &[String], width: usize, height: usize) -> usize {
    let mut used = 0;
    for start in (0..preview.len()).rev() {
        used += rows(&preview[start], width);
        let marker = usize::from(start > 0);
        if used + marker > height {
            return (start + 1).min(preview.len().saturating_sub(1));
        }
    }
    0
}

/// The dialog's outer size and its preview's rows and columns, for an `area`.
fn geometry(confirm: &Confirm, area: Rect) -> (u16, u16, usize, usize) {
    let longest = confirm.preview.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let width = u16::try_from(longest + 4).unwrap_or(u16::MAX).clamp(72, 120).min(area.width);
    let inner = usize::from(width.saturating_sub(2));
    let wanted: usize = confirm.preview.iter().map(|l| rows(l, inner)).sum();
    let height = u16::try_from(wanted + 4).unwrap_or(u16::MAX).min(area.height);
    (width, height, inner, usize::from(height.saturating_sub(4)))
}

/// How far the preview can scroll in `area`.
pub fn scroll_limit(confirm: &Confirm, area: Rect) -> usize {
    let (_, _, columns, rows) = geometry(confirm, area);
    last_start(&confirm.preview, columns, rows)
}

pub fn render(frame: &mut Frame, area: Rect, confirm: &Confirm, keymap: &KeyMap, theme: &Theme) {
    let (width, height, inner, text_rows) = geometry(confirm, area);
    let rect = centered(area, width, height);
    let title = Span::styled(format!(" {} ", confirm.title), theme.warn);
    let block = Block::default().borders(Borders::ALL).border_style(theme.warn).title(title);
    frame.render_widget(Clear, rect);
    let body = block.inner(rect);
    frame.render_widget(block, rect);
    let [text_area, _, button_area] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(1), Constraint::Length(1)]).areas(body);
    let start = confirm.scroll.min(last_start(&confirm.preview, inner, text_rows));
    let keys = (
        hints::key(keymap, KeyMode::Confirm, Action::ScrollUp),
        hints::key(keymap, KeyMode::Confirm, Action::ScrollDown),
    );
    let shown = fitting(&confirm.preview, start, inner, usize::from(text_area.height), (&keys.0, &keys.1));
    let lines: Vec<Line> = shown.into_iter().map(|l| Line::styled(l, theme.text)).collect();
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), text_area);
    frame.render_widget(Paragraph::new(buttons(confirm, keymap, theme)), button_area);
}

/// `[y] Yes   [N] Cancel`; quitting with live runs has a third answer between them, its key
/// from the key map as the preview names it.
fn buttons<'a>(confirm: &Confirm, keymap: &KeyMap, theme: &Theme) -> Line<'a> {
    let (yes, no) =
        if confirm.yes_focused { (theme.selected, theme.dim) } else { (theme.dim, theme.selected) };
    let key = |action| hints::key(keymap, KeyMode::Confirm, action);
    let mut spans = vec![Span::styled(format!(" [{}] Yes ", key(Action::Yes)), yes), Span::raw("   ")];
    if confirm.action == ConfirmAction::QuitStoppingRuns {
        spans.push(Span::styled(format!(" [{}] Leave running ", key(Action::LeaveRunning)), theme.dim));
        spans.push(Span::raw("   "));
    }
    spans.push(Span::styled(format!(" [{}] Cancel ", key(Action::No)), no));
    Line::from(spans)
}
