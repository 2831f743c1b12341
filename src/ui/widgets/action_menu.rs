//! The `m` action menu (what can be done to one commit, with each action's key) and the `:`
//! command line's completions, drawn above the footer as the name is typed.

use super::{hints, popup};
use crate::app::{Action, ActionMenu, AppState, KeyMap, KeyMode, commands};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

/// Completions shown at most.
const SHOWN: usize = 8;

pub fn render(frame: &mut Frame, area: Rect, menu: &ActionMenu, keymap: &KeyMap, theme: &Theme) {
    let mut lines = Vec::new();
    for (i, action) in menu.items.iter().enumerate() {
        let style = if i == menu.selected { theme.selected } else { theme.text };
        lines.push(entry(keymap, *action, style, theme));
    }
    lines.push(hints::line(keymap, KeyMode::ActionMenu, theme));
    let title = Span::styled(format!(" {} ", menu.short), theme.header);
    popup(frame, area, (110, super::cells(lines.len()) + 2), title, theme.accent, Paragraph::new(lines));
}

/// One action: its board key, its config name, what it does.
fn entry(keymap: &KeyMap, action: Action, style: ratatui::style::Style, theme: &Theme) -> Line<'static> {
    let key = hints::key(keymap, KeyMode::Board, action);
    Line::from(vec![
        Span::styled(format!(" {key:>6}  {:<16}", action.name()), style),
        Span::styled(action.description().to_string(), theme.dim),
    ])
}

/// The commands the typed `:` line could mean, in the rows above the footer.
pub fn render_completions(frame: &mut Frame, footer: Rect, state: &AppState, typed: &str, theme: &Theme) {
    let found = commands::matches(typed);
    let rows = found.len().min(SHOWN);
    let height = u16::try_from(rows).unwrap_or(0).min(footer.y);
    let rect = Rect::new(footer.x, footer.y - height, footer.width, height);
    let lines: Vec<Line> =
        found.iter().take(rows).map(|a| entry(&state.session.keymap, *a, theme.accent, theme)).collect();
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).style(theme.text), rect);
}
