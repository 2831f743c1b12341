//! Everything that can happen to the app, as data.

use super::input::Key;

#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(Key),
    ScrollUp,
    ScrollDown,
    Resize(u16, u16),
    /// Wall-clock time (RFC 3339 UTC): the only way time reaches `update`.
    Tick(String),
    /// The triage store finished a save.
    Saved(Result<(), String>),
}
