//! The confirm dialog: a preview of exactly what will happen; Cancel is focused by default.

use super::{hints, popup};
use crate::app::{Action, Confirm, KeyMap, KeyMode};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

pub fn render(frame: &mut Frame, area: Rect, confirm: &Confirm, keymap: &KeyMap, theme: &Theme) {
    let mut lines: Vec<Line> = confirm.preview.iter().map(|l| Line::styled(l.clone(), theme.text)).collect();
    lines.push(Line::raw(""));
    let (yes, no) =
        if confirm.yes_focused { (theme.selected, theme.dim) } else { (theme.dim, theme.selected) };
    let (y, n) =
        (hints::key(keymap, KeyMode::Confirm, Action::Yes), hints::key(keymap, KeyMode::Confirm, Action::No));
    lines.push(Line::from(vec![
        Span::styled(format!(" [{y}] Yes "), yes),
        Span::raw("   "),
        Span::styled(format!(" [{n}] Cancel "), no),
    ]));
    let height = super::cells(lines.len()) + 4;
    let title = Span::styled(format!(" {} ", confirm.title), theme.warn);
    popup(frame, area, (72, height), title, theme.warn, Paragraph::new(lines).wrap(Wrap { trim: false }));
}
