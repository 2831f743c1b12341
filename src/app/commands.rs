//! The `:` command line (k9s-style): any board or log-pane action by its config name, completed
//! with Tab; words after the name are typed into the prompt the action opens (`:filter cat:aimv2`).

use super::{Action, KeyMode};

/// The actions `:` can run: the board's and the log pane's, by name.
pub fn commands() -> impl Iterator<Item = Action> {
    Action::all()
        .filter(|a| (KeyMode::Board.offers(*a) || KeyMode::Log.offers(*a)) && *a != Action::CommandLine)
}

/// The name as typed: `mark-unfixable` and `Mark_Unfixable` mean `mark_unfixable`.
fn normalized(word: &str) -> String {
    word.trim().to_lowercase().replace('-', "_")
}

/// Commands whose name starts with the typed word, then those that contain it.
pub fn matches(text: &str) -> Vec<Action> {
    let word = normalized(text.split_whitespace().next().unwrap_or(""));
    let (mut starts, mut contains) = (Vec::new(), Vec::new());
    for action in commands() {
        let name = action.name();
        if name.starts_with(&word) {
            starts.push(action);
        } else if name.contains(&word) {
            contains.push(action);
        }
    }
    starts.extend(contains);
    starts
}

/// Tab: the longest prefix the names starting with the typed word share, or the first match
/// when that adds nothing.
pub fn complete(text: &str) -> String {
    let typed = normalized(text);
    let names: Vec<String> = matches(text).iter().map(|a| a.name()).collect();
    let Some(first) = names.first() else { return text.to_string() };
    let starting = names.iter().filter(|n| n.starts_with(&typed));
    let shared = starting.fold(first.clone(), |prefix, name| common_prefix(&prefix, name));
    if shared.len() > typed.len() { shared } else { first.clone() }
}

fn common_prefix(a: &str, b: &str) -> String {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).map(|(x, _)| x).collect()
}

/// A `:` line that names no one action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("`:{0}` is not an action: Tab completes, ? lists the keys")]
    Unknown(String),
    #[error("`:{word}` could be {}: type more, or Tab", .names.join(", "))]
    Ambiguous { word: String, names: Vec<String> },
}

/// The action a submitted line names (exactly, or as the only match) and the words after it.
pub fn resolve(text: &str) -> Result<(Action, String), CommandError> {
    let line = text.trim();
    let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
    let exact = commands().find(|a| a.name() == normalized(word));
    let found = matches(word);
    match (exact, found.as_slice()) {
        (Some(action), _) | (None, &[action]) => Ok((action, rest.trim().to_string())),
        (None, []) => Err(CommandError::Unknown(word.to_string())),
        (None, several) => {
            let names: Vec<String> = several.iter().take(4).map(|a| a.name()).collect();
            Err(CommandError::Ambiguous { word: word.to_string(), names })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_exactly_by_unique_prefix_or_not_at_all() {
        assert_eq!(resolve("mark_unfixable").unwrap().0, Action::MarkUnfixable);
        assert_eq!(resolve("mark-unfixable  too old").unwrap(), (Action::MarkUnfixable, "too old".into()));
        assert_eq!(resolve("fix_m").unwrap().0, Action::FixMenu);
        assert!(resolve("mark").unwrap_err().to_string().contains("could be mark_unfixable, mark_skip"));
        assert_eq!(resolve("frobnicate"), Err(CommandError::Unknown("frobnicate".into())));
        assert!(resolve("command_line").is_err(), "`:` does not open itself");
        assert!(resolve("yes").is_err(), "confirm answers are not board commands");
    }

    #[test]
    fn tab_extends_to_the_shared_prefix_then_takes_the_first() {
        assert_eq!(complete("mar"), "mark_");
        assert_eq!(complete("mark_"), "mark_unfixable");
        assert_eq!(complete("runs"), "runs_view");
        assert_eq!(complete("zzz"), "zzz");
    }
}
