//! Key hints generated from the live key map for a key mode, so they cannot disagree with it.

use crate::app::{Action, KeyMap, KeyMode};
use crate::ui::Theme;
use ratatui::text::{Line, Span};

/// `? help  q quit  …`: each labelled action of the mode with its first key, help first. The log
/// pane also lists the board actions it does not shadow.
pub fn line(keymap: &KeyMap, mode: KeyMode, theme: &Theme) -> Line<'static> {
    let mut spans = Vec::new();
    for (key, action) in labelled(keymap, mode) {
        spans.push(Span::styled(key, theme.accent));
        spans.push(Span::styled(format!(" {}  ", action.footer_label().unwrap_or_default()), theme.dim));
    }
    Line::from(spans)
}

/// (first key, action) of the labelled actions a mode offers, help first.
pub fn labelled(keymap: &KeyMap, mode: KeyMode) -> Vec<(String, Action)> {
    let mut modes = vec![mode];
    if mode == KeyMode::Log {
        modes.push(KeyMode::Board);
    }
    let mut out: Vec<(String, Action)> = Vec::new();
    for m in modes {
        for (key, action) in keymap.bindings(m) {
            let taken = out.iter().any(|(_, a)| a == action) || keymap.action(mode, *key) != Some(*action);
            if action.footer_label().is_some() && !taken {
                out.push((key.to_string(), *action));
            }
        }
    }
    out.sort_by_key(|(_, a)| *a != Action::Help);
    out
}

/// The first key of an action in a mode, for a popup's own labels (`[y] Yes`).
pub fn key(keymap: &KeyMap, mode: KeyMode, action: Action) -> String {
    keymap.key_name(mode, action)
}
