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

/// Stop a fix or a build: one still waiting for Docker is dropped here (nothing was started, no
/// job service task holds it); a started one is the job service's to stop.
pub fn cancel(state: &mut AppState, job: JobKey) -> Vec<Effect> {
    if !super::waiting::dropped(state, &job) {
        return vec![Effect::Cancel(job)];
    }
    let said = match &job {
        JobKey::Fix(short, variant) => {
            let recipe = state.runs.fixes.remove(&(short.clone(), *variant)).unwrap_or_default();
            format!("fix {recipe} on {short} {} cancelled before it started", variant.name())
        }
        JobKey::Build(short) => {
            let view = state.builds.by_commit.entry(short.clone()).or_default();
            (view.live, view.phase) = (false, "cancelled before it started".into());
            format!("the build of {short} cancelled before it started")
        }
        // Runs wait in their own queue (`runs::cancel`); none is kept here.
        JobKey::Run(_) | JobKey::CampaignRun(..) => return Vec::new(),
    };
    state.notify(crate::app::Level::Info, said);
    Vec::new()
}
