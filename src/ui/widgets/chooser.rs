//! `r`: which variants to run, one key each (from the key map); a preview and a confirm follow.

use super::{hints, popup};
use crate::app::{Action, KeyMap, KeyMode};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(frame: &mut Frame, area: Rect, short: &str, keymap: &KeyMap, theme: &Theme) {
    let choices = [
        (Action::RunBaseline, "baseline — the parent commit"),
        (Action::RunHuman, "human — the PR commit"),
        (Action::RunAgent, "agent — the agent's patch on the parent"),
        (Action::RunAll, "all three, in that order"),
    ];
    let mut lines: Vec<Line> = choices
        .iter()
        .map(|(action, what)| {
            let key = hints::key(keymap, KeyMode::Chooser, *action);
            Line::from(vec![
                Span::styled(format!("  [{key}] "), theme.accent),
                Span::styled(*what, theme.text),
            ])
        })
        .collect();
    lines.push(Line::raw(""));
    let close = hints::key(keymap, KeyMode::Chooser, Action::Close);
    lines.push(Line::styled(format!("  {close} closes; a preview and a confirm follow"), theme.dim));
    let title = Span::styled(format!(" Run {short} "), theme.header);
    popup(frame, area, (60, super::cells(lines.len()) + 2), title, theme.accent, Paragraph::new(lines));
}
