//! Fixes and builds confirmed while the board is not connected to Docker: kept, said in a toast,
//! and started when it connects — as queued runs are — instead of refused with their output pane
//! open and empty. `x` on one that waits drops it here; the job service never heard of it.

use crate::app::{AppState, DockerStatus, Effect, JobKey, Level};

/// `effect` (a fix or a build to start) now when Docker is connected; else kept until it is.
pub fn when_connected(state: &mut AppState, effect: Effect, started: String) -> Vec<Effect> {
    if matches!(state.runs.docker, DockerStatus::Connected(_)) {
        state.notify(Level::Info, started);
        return vec![effect];
    }
    state.notify(Level::Warn, "waiting for Docker (see the header); it starts when Docker connects");
    state.runs.waiting_for_docker.push(effect);
    Vec::new()
}

/// Docker connected: what waited for it starts now, in the order it was confirmed.
pub fn start_all(state: &mut AppState) -> Vec<Effect> {
    std::mem::take(&mut state.runs.waiting_for_docker)
}

/// Drop `job` if it is still waiting; whether it was.
pub fn dropped(state: &mut AppState, job: &JobKey) -> bool {
    let before = state.runs.waiting_for_docker.len();
    state.runs.waiting_for_docker.retain(|effect| job_of(effect).as_ref() != Some(job));
    state.runs.waiting_for_docker.len() < before
}

fn job_of(effect: &Effect) -> Option<JobKey> {
    match effect {
        Effect::ApplyFix(request) => Some(JobKey::Fix(request.short.clone(), request.variant)),
        Effect::StartBuild { short, .. } => Some(JobKey::Build(short.clone())),
        _ => None,
    }
}
