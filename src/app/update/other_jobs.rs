//! `x` on a commit whose live job is a fix or a build, not a run: a confirm, then the job service
//! stops it — a fix's container is removed and nothing recorded; a build stops and keeps its log.

use crate::app::{AppState, Confirm, ConfirmAction, Effect, Mode};
use crate::ids::Short;

/// Ask before stopping `short`'s fix or build; `None` when it has neither.
pub fn ask_cancel(state: &mut AppState, short: &Short) -> Option<Vec<Effect>> {
    let fix = state.runs.fixes.iter().find(|((s, _), _)| s == short).map(|((_, v), r)| (*v, r.clone()));
    let (title, preview, action) = match fix {
        Some((variant, recipe)) => (
            format!("Cancel fix {recipe} on {short} {}?", variant.name()),
            "Its container will be stopped and removed; nothing is committed or recorded.",
            ConfirmAction::CancelFix { short: short.clone(), variant },
        ),
        None if state.builds.is_live(short) => (
            format!("Cancel the build of {short}?"),
            "The build stops and its container is removed; its log is kept.",
            ConfirmAction::CancelBuild { short: short.clone() },
        ),
        None => return None,
    };
    state.mode = Mode::Confirm(Confirm::new(title, vec![preview.to_string()], action));
    Some(Vec::new())
}
