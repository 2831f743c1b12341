//! Keys → actions, in one place. Defaults are vim keys plus arrows; the config's `[keys]` table
//! replaces the bindings of the actions it names (`mark_unfixable = ["u", "U"]`).

use crate::app::{Action, Key, KeyCode};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub struct KeyMap {
    bindings: Vec<(Key, Action)>,
    /// Consulted first while the log pane has focus.
    log_bindings: Vec<(Key, Action)>,
}

const DEFAULTS: &[(&str, Action)] = &[
    ("q", Action::Quit),
    ("ctrl-c", Action::Quit),
    ("k", Action::Up),
    ("up", Action::Up),
    ("j", Action::Down),
    ("down", Action::Down),
    ("pageup", Action::PageUp),
    ("ctrl-u", Action::PageUp),
    ("pagedown", Action::PageDown),
    ("ctrl-d", Action::PageDown),
    ("g", Action::Top),
    ("home", Action::Top),
    ("G", Action::Bottom),
    ("end", Action::Bottom),
    ("enter", Action::ToggleDetail),
    ("l", Action::ToggleDetail),
    ("K", Action::DetailUp),
    ("J", Action::DetailDown),
    ("/", Action::Filter),
    ("esc", Action::ClearFilter),
    ("tab", Action::NextView),
    ("shift-tab", Action::PrevView),
    ("s", Action::SortNext),
    ("S", Action::SortReverse),
    ("u", Action::MarkUnfixable),
    ("z", Action::MarkSkip),
    ("c", Action::ClearMark),
    ("n", Action::AddNote),
    ("?", Action::Help),
    ("L", Action::OpenLog),
    ("r", Action::StartRun),
    ("x", Action::CancelRun),
    ("f", Action::FixMenu),
    ("space", Action::Pick),
    ("F", Action::BulkFix),
    ("p", Action::GpuPane),
    ("P", Action::GpuWindow),
    ("+", Action::GpuFaster),
    ("-", Action::GpuSlower),
];

const LOG_DEFAULTS: &[(&str, Action)] = &[
    ("n", Action::SearchNext),
    ("N", Action::SearchPrev),
    ("e", Action::NextError),
    ("E", Action::PrevError),
    ("f", Action::ToggleMatchesOnly),
    ("v", Action::CycleLevel),
    ("w", Action::ToggleWrap),
    ("x", Action::ExpandLines),
    ("W", Action::SaveLog),
    ("o", Action::OtherPane),
];

fn parse_all(list: &[(&str, Action)]) -> Vec<(Key, Action)> {
    list.iter().filter_map(|(k, a)| Some((Key::parse(k)?, *a))).collect()
}

#[derive(Debug, thiserror::Error, PartialEq)]
#[error("key `{key}` for `{action}` is not a key name (try `j`, `ctrl-d`, `enter`, `pagedown`, `shift-tab`)")]
pub struct BadKey {
    pub action: String,
    pub key: String,
}

impl Default for KeyMap {
    fn default() -> Self {
        KeyMap { bindings: parse_all(DEFAULTS), log_bindings: parse_all(LOG_DEFAULTS) }
    }
}

impl KeyMap {
    /// Defaults with the named actions rebound.
    pub fn with_overrides(overrides: &BTreeMap<Action, Vec<String>>) -> Result<KeyMap, BadKey> {
        let mut map = KeyMap::default();
        for (action, keys) in overrides {
            let parsed = keys
                .iter()
                .map(|k| Key::parse(k).ok_or_else(|| BadKey { action: action_name(*action), key: k.clone() }))
                .collect::<Result<Vec<_>, _>>()?;
            let list = if action.is_log_only() { &mut map.log_bindings } else { &mut map.bindings };
            list.retain(|(key, a)| a != action && !parsed.contains(key));
            list.extend(parsed.into_iter().map(|k| (k, *action)));
        }
        Ok(map)
    }

    /// The board's action for a key.
    pub fn action(&self, key: Key) -> Option<Action> {
        find(&self.bindings, key)
    }

    /// The action for a key while the log pane has focus: log keys first, then the board's.
    pub fn log_action(&self, key: Key) -> Option<Action> {
        find(&self.log_bindings, key).or_else(|| self.action(key))
    }

    pub fn keys_for(&self, action: Action) -> Vec<Key> {
        let list = if action.is_log_only() { &self.log_bindings } else { &self.bindings };
        list.iter().filter(|(_, a)| *a == action).map(|(k, _)| *k).collect()
    }
}

fn find(list: &[(Key, Action)], key: Key) -> Option<Action> {
    let plain = match key.code {
        // Terminals report Shift+letter as the upper-case char; accept both spellings.
        KeyCode::Char(c) if !key.ctrl => Key::ch(c),
        _ => key,
    };
    list.iter().find(|(k, _)| *k == plain).map(|(_, a)| *a)
}

pub fn action_name(action: Action) -> String {
    serde_json::to_value(action).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}
