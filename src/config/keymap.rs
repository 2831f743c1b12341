//! Keys → actions, in one place. Defaults are vim keys plus arrows; the config's `[keys]` table
//! replaces the bindings of the actions it names (`mark_unfixable = ["u", "U"]`).

use crate::app::{Action, Key, KeyCode};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub struct KeyMap {
    bindings: Vec<(Key, Action)>,
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
];

#[derive(Debug, thiserror::Error, PartialEq)]
#[error("key `{key}` for `{action}` is not a key name (try `j`, `ctrl-d`, `enter`, `pagedown`, `shift-tab`)")]
pub struct BadKey {
    pub action: String,
    pub key: String,
}

impl Default for KeyMap {
    fn default() -> Self {
        let bindings = DEFAULTS.iter().filter_map(|(k, a)| Some((Key::parse(k)?, *a))).collect();
        KeyMap { bindings }
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
            map.bindings.retain(|(key, a)| a != action && !parsed.contains(key));
            map.bindings.extend(parsed.into_iter().map(|k| (k, *action)));
        }
        Ok(map)
    }

    pub fn action(&self, key: Key) -> Option<Action> {
        let shifted = match key.code {
            // Terminals report Shift+letter as the upper-case char; accept both spellings.
            KeyCode::Char(c) if !key.ctrl => Key::ch(c),
            _ => key,
        };
        self.bindings.iter().find(|(k, _)| *k == shifted).map(|(_, a)| *a)
    }

    pub fn keys_for(&self, action: Action) -> Vec<Key> {
        self.bindings.iter().filter(|(_, a)| *a == action).map(|(k, _)| *k).collect()
    }
}

pub fn action_name(action: Action) -> String {
    serde_json::to_value(action).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}
