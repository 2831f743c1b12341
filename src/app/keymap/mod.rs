//! Keys → actions, per key mode, in one place. Defaults are vim keys plus arrows; the config's
//! `[keys]` table rebinds board and log actions by name (`mark_unfixable = ["u", "U"]`) and
//! `[keys.<mode>]` any mode's (`[keys.confirm] yes = ["y", "u"]`). The log pane falls back to the
//! board's keys, so board actions work from it.

mod defaults;

use super::{Action, Key, KeyCode};
use crate::config::{KeyEntry, KeysConfig};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where keys are read: what has focus, or the popup in front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyMode {
    Board,
    Log,
    Chooser,
    FixMenu,
    BulkPicker,
    Confirm,
    Prompt,
    Help,
    Runs,
    Images,
    ActionMenu,
    Campaign,
    Plot,
}

impl KeyMode {
    pub const ALL: [KeyMode; 13] = [
        KeyMode::Board,
        KeyMode::Log,
        KeyMode::Chooser,
        KeyMode::FixMenu,
        KeyMode::BulkPicker,
        KeyMode::Confirm,
        KeyMode::Prompt,
        KeyMode::Help,
        KeyMode::Runs,
        KeyMode::Images,
        KeyMode::ActionMenu,
        KeyMode::Campaign,
        KeyMode::Plot,
    ];

    pub fn title(self) -> &'static str {
        match self {
            KeyMode::Board => "Board",
            KeyMode::Log => "Log pane (board keys work too)",
            KeyMode::Chooser => "Run chooser",
            KeyMode::FixMenu => "Fix menu",
            KeyMode::BulkPicker => "Bulk fix picker",
            KeyMode::Confirm => "Confirm",
            KeyMode::Prompt => "Text prompt (typed characters are text)",
            KeyMode::Help => "Help",
            KeyMode::Runs => "Runs view",
            KeyMode::Images => "Images view",
            KeyMode::ActionMenu => "Action menu",
            KeyMode::Campaign => "Campaign view",
            KeyMode::Plot => "Verdict plot",
        }
    }

    pub fn name(self) -> String {
        serde_json::to_value(self).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
    }

    fn from_name(name: &str) -> Option<KeyMode> {
        serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
    }

    fn defaults(self) -> Vec<(&'static str, Action)> {
        defaults::of(self)
    }

    /// The action is one of this mode's own (a log-pane action, a confirm answer, …).
    pub fn offers(self, action: Action) -> bool {
        self.defaults().iter().any(|(_, a)| *a == action)
    }
}

/// A `[keys]` entry that cannot be bound.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum KeyError {
    #[error("`{name}` is not an action (see docs/keys.md)")]
    UnknownAction { name: String },
    #[error(
        "`{name}` is not a key mode (board, log, chooser, fix_menu, bulk_picker, confirm, prompt, help, runs, images, action_menu, campaign, plot)"
    )]
    UnknownMode { name: String },
    #[error("`{action}` is not an action of the {mode} mode")]
    NotInMode { action: String, mode: String },
    #[error(
        "key `{key}` for `{action}` is not a key name (try `j`, `ctrl-d`, `enter`, `pagedown`, `shift-tab`)"
    )]
    BadKey { action: String, key: String },
}

impl KeyError {
    /// The `[keys]` entry it is about, to find its line in the file.
    pub fn entry(&self) -> &str {
        match self {
            KeyError::UnknownAction { name } | KeyError::UnknownMode { name } => name,
            KeyError::NotInMode { action, .. } | KeyError::BadKey { action, .. } => action,
        }
    }
}

type Table = Vec<(Key, Action)>;

#[derive(Debug, Clone, PartialEq)]
pub struct KeyMap {
    tables: BTreeMap<KeyMode, Table>,
    /// Conflicts the config's remaps made: an action left without a key, a key bound twice.
    pub warnings: Vec<String>,
}

impl Default for KeyMap {
    fn default() -> Self {
        let tables = KeyMode::ALL.iter().map(|m| (*m, parse_all(&m.defaults()))).collect();
        KeyMap { tables, warnings: Vec::new() }
    }
}

fn parse_all(list: &[(&str, Action)]) -> Table {
    list.iter().filter_map(|(k, a)| Some((Key::parse(k)?, *a))).collect()
}

impl KeyMap {
    /// Defaults with the config's remaps applied; conflicts they cause become `warnings`.
    pub fn from_config(keys: &KeysConfig) -> Result<KeyMap, KeyError> {
        let mut map = KeyMap::default();
        for (name, entry) in keys {
            match entry {
                KeyEntry::Keys(list) => {
                    let action = Action::from_name(name)
                        .ok_or_else(|| KeyError::UnknownAction { name: name.clone() })?;
                    map.rebind(home_mode(action), action, list)?;
                }
                KeyEntry::Mode(actions) => map.rebind_mode(name, actions)?,
            }
        }
        map.warnings = map.conflicts();
        Ok(map)
    }

    fn rebind_mode(&mut self, mode: &str, actions: &BTreeMap<String, Vec<String>>) -> Result<(), KeyError> {
        let mode = KeyMode::from_name(mode).ok_or_else(|| KeyError::UnknownMode { name: mode.into() })?;
        for (name, list) in actions {
            let action =
                Action::from_name(name).ok_or_else(|| KeyError::UnknownAction { name: name.clone() })?;
            if !mode.offers(action) {
                return Err(KeyError::NotInMode { action: name.clone(), mode: mode.name() });
            }
            self.rebind(mode, action, list)?;
        }
        Ok(())
    }

    /// `action`'s keys in `mode` become `keys`; those keys leave the actions that had them.
    fn rebind(&mut self, mode: KeyMode, action: Action, keys: &[String]) -> Result<(), KeyError> {
        let parsed = keys
            .iter()
            .map(|k| Key::parse(k).ok_or_else(|| KeyError::BadKey { action: action.name(), key: k.clone() }))
            .collect::<Result<Vec<_>, _>>()?;
        let before: Vec<Action> = self.actions(mode);
        self.warn_taken(mode, action, &parsed);
        let table = self.tables.entry(mode).or_default();
        table.retain(|(key, a)| *a != action && !parsed.contains(key));
        table.extend(parsed.into_iter().map(|k| (k, action)));
        let after = self.actions(mode);
        for lost in before.into_iter().filter(|a| !after.contains(a)) {
            let (name, lost, mode) = (action.name(), lost.name(), mode.name());
            self.warnings.push(format!("[keys] {name}: `{lost}` has no key left in the {mode} mode"));
        }
        Ok(())
    }

    /// A warning for each key `action` takes from another action of the mode.
    fn warn_taken(&mut self, mode: KeyMode, action: Action, keys: &[Key]) {
        for key in keys {
            if let Some(old) = find(self.bindings(mode), *key).filter(|a| *a != action) {
                let (name, mode, old) = (action.name(), mode.name(), old.name());
                self.warnings.push(format!(
                    "[keys] key `{key}` now means `{name}` in the {mode} mode, no longer `{old}`"
                ));
            }
        }
    }

    fn actions(&self, mode: KeyMode) -> Vec<Action> {
        self.bindings(mode).iter().map(|(_, a)| *a).collect()
    }

    /// Keys the log pane takes from the board that the defaults did not: a key bound twice.
    fn conflicts(&self) -> Vec<String> {
        let defaults = KeyMap::default();
        let mut out = self.warnings.clone();
        for (key, log_action) in self.bindings(KeyMode::Log) {
            let Some(board_action) = find(self.bindings(KeyMode::Board), *key) else { continue };
            let was = find(defaults.bindings(KeyMode::Log), *key) == Some(*log_action)
                && find(defaults.bindings(KeyMode::Board), *key) == Some(board_action);
            if !was {
                out.push(format!(
                    "[keys] key `{key}` is bound twice with the log pane focused: `{}` (log) hides `{}` (board)",
                    log_action.name(),
                    board_action.name()
                ));
            }
        }
        out
    }

    /// The action for a key in a mode; the log pane falls back to the board's keys.
    pub fn action(&self, mode: KeyMode, key: Key) -> Option<Action> {
        let own = find(self.bindings(mode), key);
        match mode {
            KeyMode::Log => own.or_else(|| find(self.bindings(KeyMode::Board), key)),
            _ => own,
        }
    }

    pub fn bindings(&self, mode: KeyMode) -> &[(Key, Action)] {
        self.tables.get(&mode).map_or(&[], Vec::as_slice)
    }

    pub fn keys_for(&self, mode: KeyMode, action: Action) -> Vec<Key> {
        self.bindings(mode).iter().filter(|(_, a)| *a == action).map(|(k, _)| *k).collect()
    }

    /// The first key of an action in a mode, as hints and dialogs name it (`—` when it has none).
    pub fn key_name(&self, mode: KeyMode, action: Action) -> String {
        self.keys_for(mode, action).first().map_or_else(|| "—".to_string(), ToString::to_string)
    }
}

/// Where a flat `[keys] name = [...]` entry applies: the board, the log pane, else the first
/// mode that has the action.
fn home_mode(action: Action) -> KeyMode {
    KeyMode::ALL.into_iter().find(|m| m.offers(action)).unwrap_or(KeyMode::Board)
}

fn find(list: &[(Key, Action)], key: Key) -> Option<Action> {
    let plain = match key.code {
        // Terminals report Shift+letter as the upper-case char; accept both spellings.
        KeyCode::Char(c) if !key.ctrl => Key::ch(c),
        _ => key,
    };
    list.iter().find(|(k, _)| *k == plain).map(|(_, a)| *a)
}
