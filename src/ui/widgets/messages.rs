//! The `M` overlay: every message and warning since start (load warnings included), newest at
//! the bottom, with the time it was posted.

use super::popup;
use crate::app::{Action, AppState, KeyMode, Level};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let lines: Vec<Line> = if state.session.messages.is_empty() {
        vec![Line::styled("No messages yet.", theme.dim)]
    } else {
        state.session.messages.iter().map(|(at, level, text)| line(at, *level, text, theme)).collect()
    };
    let height = area.height.saturating_sub(2);
    let last_top = super::cells(lines.len()).saturating_sub(height.saturating_sub(2));
    let scroll = state.session.help_scroll.min(last_top);
    let key = |action| super::hints::key(&state.session.keymap, KeyMode::Help, action);
    let (down, up, close) = (key(Action::MenuDown), key(Action::MenuUp), key(Action::Close));
    let count = state.session.messages.len();
    let title =
        Span::styled(format!(" Messages ({count}) — {down}/{up} scroll, {close} closes "), theme.header);
    let body = Paragraph::new(lines).wrap(Wrap { trim: false }).scroll((scroll, 0));
    popup(frame, area, (120, height), title, theme.border, body);
}

fn line<'a>(at: &str, level: Level, text: &str, theme: &Theme) -> Line<'a> {
    let (word, style) = match level {
        Level::Info => ("info ", theme.text),
        Level::Warn => ("warn ", theme.warn),
        Level::Error => ("error", theme.error),
    };
    let time = at.get(11..19).unwrap_or(at).to_string();
    Line::from(vec![
        Span::styled(format!("{time} "), theme.dim),
        Span::styled(word, style),
        Span::raw(" "),
        Span::styled(text.to_string(), theme.text),
    ])
}
