//! Picking a run's container up again (after a restart, a kill, or a lost connection): what it
//! already did is found in the container, not done again, and a container that exited meanwhile
//! is a crash classified from its own log.

use super::in_container::applied_before;
use super::steps::{Chunk, Panes, benchmarks, follow_server, released, started_steps, wait_ready};
use super::{PaneLog, RunEnv, phase};
use crate::runs::{Failure, FailureKind, RunPhase, RunPlan};
use tokio::sync::mpsc;

/// Whether the container is the one the launch record `plan` says it launched: ours, and
/// created from that plan (a record edited since, or naming another container, is refused).
pub(super) async fn claim_holds(plan: &RunPlan, env: &RunEnv, id: &str) -> Result<(), Failure> {
    let created = env.engine.created_as(id).await.map_err(|e| super::docker_failure(&e))?;
    crate::runs::check_claim(plan, &env.workspace, &created)
        .map_err(|why| Failure::new(FailureKind::LaunchMismatch, why.to_string()))
}

/// Pick a running container up again: its server output from now on, readiness, then the
/// benchmark. What it printed before is in its earlier spool; a benchmark cut off by the loss
/// runs again. A container found exited fails as the crash its log says.
pub(super) async fn resume_steps(
    plan: &RunPlan,
    env: &RunEnv,
    mut panes: Panes<'_>,
    outcome: &mut super::RunOutcome,
    id: &str,
) -> Result<(), Failure> {
    outcome.container = Some(id.to_string());
    match resumed(plan, env, &mut panes, outcome, id).await {
        Err(failure) if failure.kind == FailureKind::DockerError => {
            Err(exited(env, id, panes.server).await.unwrap_or(failure))
        }
        done => done,
    }
}

async fn resumed(
    plan: &RunPlan,
    env: &RunEnv,
    panes: &mut Panes<'_>,
    outcome: &mut super::RunOutcome,
    id: &str,
) -> Result<(), Failure> {
    if let (Some(patch), None) = (&plan.patch, &outcome.patch) {
        outcome.patch = applied_before(env, id, patch, panes.bench).await?;
    }
    if plan.server_argv.is_some() && !released(env, id).await? {
        // Left (quit with `L`, killed) before its server was let go, it still waits for its go
        // file; a server that never waited for one (no patch) gets one it does not read.
        let panes = Panes { server: panes.server, bench: panes.bench };
        return started_steps(plan, env, panes, outcome, id).await;
    }
    outcome.server_released = true;
    let (tx, mut rx) = mpsc::unbounded_channel::<Chunk>();
    if plan.server_argv.is_some() {
        let now = i64::try_from(crate::session::unix_now()).unwrap_or(0);
        follow_server(env, id, now, tx.clone());
        let after = wait_ready(plan, env, id, panes.server, &mut rx).await?;
        phase(env, RunPhase::Ready { after_s: after });
    }
    phase(env, RunPhase::Benchmarking);
    benchmarks(plan, env, id, (tx, &mut rx), panes, outcome).await
}

/// If the container has exited: its whole log on the server pane, and the failure it says
/// (the classified signature, else a crash with its exit code). `None` while it still runs.
async fn exited(env: &RunEnv, id: &str, server: &mut PaneLog) -> Option<Failure> {
    use futures_util::StreamExt;
    let (running, code) = env.engine.state(id).await.ok()?;
    if running {
        return None;
    }
    let header = "=== perftriage: the container had exited when the run was picked up; its whole log ===\n";
    server.push(env, crate::logs::Stream::Stdout, header.as_bytes());
    let logs = env.engine.follow_logs(id);
    tokio::pin!(logs);
    while let Some(Ok((stream, bytes))) = logs.next().await {
        server.push(env, stream, &bytes);
    }
    let kind = server.verdict().map_or(FailureKind::ServerCrash, |v| FailureKind::from_name(&v.category));
    let why = format!("the container exited (code {}) while the run was being picked up", code.unwrap_or(-1));
    Some(Failure::new(kind, why))
}
