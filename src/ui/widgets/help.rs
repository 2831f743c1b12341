//! The `?` overlay: one section per key mode, generated from the live key map so it cannot
//! disagree with it; it scrolls when it does not fit.

use super::popup;
use crate::app::{Action, AppState, KeyMap, KeyMode};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// What a campaign's header counts.
const CAMPAIGN_HEADER: [&str; 3] = [
    "campaign 37/288: its cells ended of all; ✓ measured  ✗ left failed",
    "↻ runs beyond each cell's first (retries, re-runs after a fix)",
    "a cell still to fix or retry is not ended; ~time left, n at once",
];

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let keymap = &state.session.keymap;
    let mut lines = Vec::new();
    for mode in KeyMode::ALL {
        lines.push(Line::styled(mode.title(), theme.header));
        lines.extend(section(keymap, mode, theme));
        lines.push(Line::raw(""));
    }
    lines.push(Line::styled("✓ ok  ✗ fail  ◷ timeout  ⊘ skip  · not run", theme.dim));
    lines.extend(CAMPAIGN_HEADER.map(|line| Line::styled(line, theme.dim)));
    let height = area.height.saturating_sub(2);
    let last_top = super::cells(lines.len()).saturating_sub(height.saturating_sub(2));
    let scroll = state.session.help_scroll.min(last_top);
    let key = |action| super::hints::key(keymap, KeyMode::Help, action);
    let (down, up, close) = (key(Action::MenuDown), key(Action::MenuUp), key(Action::Close));
    let title = format!(" Keys — {down}/{up} scroll, {close} closes ({}/{}) ", scroll + 1, lines.len());
    let title = Span::styled(title, theme.header);
    popup(frame, area, (100, height), title, theme.border, Paragraph::new(lines).scroll((scroll, 0)));
}

/// One line per action of the mode: its keys and what it does.
fn section(keymap: &KeyMap, mode: KeyMode, theme: &Theme) -> Vec<Line<'static>> {
    let mut actions: Vec<Action> = Vec::new();
    for (_, action) in keymap.bindings(mode) {
        if !actions.contains(action) {
            actions.push(*action);
        }
    }
    actions
        .into_iter()
        .map(|action| {
            let keys: Vec<String> = keymap.keys_for(mode, action).iter().map(ToString::to_string).collect();
            Line::from(vec![
                Span::styled(format!("{:>16}  ", keys.join(" ")), theme.accent),
                Span::styled(action.description(), theme.text),
            ])
        })
        .collect()
}
