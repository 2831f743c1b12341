//! Key hints generated from the live key map for a key mode, so they cannot disagree with it.

use crate::app::{Action, KeyMap, KeyMode};
use crate::ui::Theme;
use ratatui::text::{Line, Span};

/// `? help  q quit  …`: each labelled action of the mode with its first key, help first. The log
/// pane also lists the board actions it does not shadow.
pub fn line(keymap: &KeyMap, mode: KeyMode, theme: &Theme) -> Line<'static> {
    fitted(keymap, mode, &[], usize::MAX, theme)
}

/// The line for a width: help, then `first` in its order, then the mode's other actions; as many
/// as fit whole, the rest dropped from the end (never a cut word).
pub fn fitted(
    keymap: &KeyMap,
    mode: KeyMode,
    first: &[Action],
    width: usize,
    theme: &Theme,
) -> Line<'static> {
    let mut actions = labelled(keymap, mode);
    let rank = |a: &Action| match first.iter().position(|f| f == a) {
        _ if *a == Action::Help => 0,
        Some(i) => i + 1,
        None => usize::MAX,
    };
    actions.sort_by_key(|(_, a)| rank(a));
    let mut spans = Vec::new();
    let mut used: usize = 0;
    for (key, action) in actions {
        let label = format!(" {}", action.footer_label().unwrap_or_default());
        let needed = key.chars().count() + label.chars().count();
        // The two spaces after the last one shown may fall off the edge.
        if used.saturating_add(needed) > width {
            break;
        }
        used += needed + 2;
        spans.push(Span::styled(key, theme.accent));
        spans.push(Span::styled(format!("{label}  "), theme.dim));
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
