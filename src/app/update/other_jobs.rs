//! `x` on a commit whose live job is a fix or a build, not a run: a confirm, then the job service
//! stops it — a fix's container is removed and nothing recorded; a build stops and keeps its log.

use crate::app::{AppState, Confirm, ConfirmAction, Effect, JobKey, Mode};
use crate::ids::Short;

/// Ask before stopping `short`'s fix or build; `None` when it has neither.
pub fn ask_cancel(state: &mut AppState, short: &Short) -> Option<Vec<Effect>> {
    let job = state.live_jobs().into_iter().find(|job| job.short() == Some(short))?;
    let (title, preview) = match &job {
        JobKey::Fix(_, variant) => (
            format!(
                "Cancel fix {} on {short} {}?",
                state.runs.fixes[&(short.clone(), *variant)],
                variant.name()
            ),
            "Its container will be stopped and removed; nothing is committed or recorded.",
        ),
        JobKey::Build(_) => (
            format!("Cancel the build of {short}?"),
            "The build stops and its container is removed; its log is kept.",
        ),
        JobKey::Run(_) | JobKey::CampaignRun(..) => return None,
    };
    state.mode = Mode::Confirm(Confirm::new(title, vec![preview.to_string()], ConfirmAction::Cancel(job)));
    Some(Vec::new())
}
