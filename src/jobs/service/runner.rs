//! The job service's runs once decided: placing one on a `[[hosts]]` engine (waiting while none
//! fits), carrying it out with its events forwarded, writing its result file, and removing a
//! container from whichever engine has it.

use super::{JobSetup, ServiceError};
use crate::app::{JobError, Msg, Reread, RunMsg};
use crate::classify::Classifier;
use crate::dataset::{Outcome, RunStatus};
use crate::docker::Engine;
use crate::jobs::run::{RunEnv, RunEvent, RunOutcome, Start, run, write_result};
use crate::runs::{FailureKind, RunId, RunPhase, RunPlan};
use crate::telemetry::GpuSummary;
use std::sync::Arc;
use tokio::sync::{mpsc::UnboundedSender, oneshot, watch};

/// Remove container `id` from whichever engine has it; an error when none had it and one failed.
pub(super) async fn remove_anywhere(engines: &[Engine], id: &str) -> Result<(), ServiceError> {
    let mut errors = Vec::new();
    for engine in engines {
        match engine.remove_found(id).await {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() { Ok(()) } else { Err(ServiceError::Removal(errors)) }
}

/// Every 10 s a new try at placing the run; `None` when it was cancelled first.
pub(super) async fn place(
    (setup, tx): (&JobSetup, &UnboundedSender<Msg>),
    plan: &RunPlan,
    chosen: Option<&str>,
    cancel: &mut watch::Receiver<bool>,
) -> Option<(String, Engine)> {
    let workspace = setup.workspace.display().to_string();
    loop {
        let placement = crate::jobs::fleet::Placement {
            hosts: &setup.hosts,
            chosen,
            need: &plan.container.gpus,
            workspace: &workspace,
            claims: &setup.claims,
            run_id: &plan.run_id,
        };
        match crate::jobs::fleet::engine_for(placement).await {
            Ok(placed) => return Some(placed),
            Err(why) => {
                let phase = RunPhase::Placing { why: why.to_string() };
                let _ = tx.send(Msg::Run(RunMsg::Phase { run_id: plan.run_id.clone(), phase }));
            }
        }
        tokio::select! {
            () = tokio::time::sleep(std::time::Duration::from_secs(10)) => {}
            _ = cancel.wait_for(|c| *c) => return None,
        }
    }
}

pub(super) fn spawn_run(
    (setup, tx): (Arc<JobSetup>, UnboundedSender<Msg>),
    (engine, host): (Engine, Option<String>),
    plan: RunPlan,
    (start, cancel): (Start, watch::Receiver<bool>),
    gpu: oneshot::Receiver<Option<GpuSummary>>,
) {
    let (events, rx) = tokio::sync::mpsc::unbounded_channel();
    let env = RunEnv {
        engine,
        workspace: setup.workspace.clone(),
        vllm_repo: setup.config.vllm_repo.clone(),
        redactor: setup.redactor.clone(),
        classifier: setup.classifier.clone(),
        events,
        cancel,
        host,
    };
    forward_events(plan.run_id.clone(), rx, tx.clone());
    tokio::spawn(async move {
        let outcome = run(&plan, env, start).await;
        // Counted from before the board hears of the end until the result is written.
        let _recording = setup.recording.begin();
        setup.claims.release(&plan.run_id);
        report(&tx, &plan.run_id, &outcome);
        // A cancelled run measured nothing: it leaves logs, not a result.
        if outcome.category != Some(FailureKind::Cancelled) {
            record(&tx, &setup, &outcome, gpu.await.ok().flatten()).await;
        }
    });
}

/// Write the result file, with the GPU use the model saw, and say where it is and how reading it
/// back classifies it: the board then shows what a restart would read.
async fn record(tx: &UnboundedSender<Msg>, setup: &JobSetup, outcome: &RunOutcome, gpu: Option<GpuSummary>) {
    let gpu = gpu.map(|g| g.json());
    let now = crate::session::now_rfc3339();
    let (workspace, redactor) = (setup.workspace.clone(), setup.redactor.clone());
    let (outcome_for_write, classifier) = (outcome.clone(), setup.classifier.clone());
    let written = tokio::task::spawn_blocking(move || {
        let path = write_result(&outcome_for_write, &workspace, &redactor, &now, gpu.as_ref())?;
        let reread = reread(&path, &classifier);
        Ok((path.display().to_string(), reread))
    })
    .await
    .unwrap_or_else(|e| Err(std::io::Error::other(e)));
    let (source, reread) = match written {
        Ok((path, reread)) => (Ok(path), reread),
        Err(e) => (Err(JobError::from(e)), None),
    };
    let run_id = outcome.plan.run_id.clone();
    let _ = tx.send(Msg::Run(RunMsg::Recorded { run_id, source, reread }));
}

/// The written result read back as a restart reads it (`None` when it cannot be: the live
/// classification then stands).
fn reread(path: &std::path::Path, classifier: &Classifier) -> Option<Reread> {
    let record = crate::dataset::results::read_file(path).ok()?.records.into_iter().next()?;
    let digested = record.digest(classifier);
    Some(Reread { verdict: digested.verdict, warnings: digested.warnings })
}

/// A run's events become messages tagged with its id.
fn forward_events(
    run_id: RunId,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<RunEvent>,
    tx: UnboundedSender<Msg>,
) {
    tokio::spawn(async move {
        while let Some(event) = rx.recv().await {
            let msg = match event {
                RunEvent::Phase(phase) => {
                    log_phase(&run_id, &phase);
                    RunMsg::Phase { run_id: run_id.clone(), phase }
                }
                RunEvent::Lines { pane, lines } => RunMsg::Lines { run_id: run_id.clone(), pane, lines },
            };
            let _ = tx.send(Msg::Run(msg));
        }
    });
}

fn log_phase(run_id: &RunId, phase: &RunPhase) {
    match phase {
        RunPhase::Pulling { .. } => log::debug!("run {run_id}: pulling"),
        RunPhase::Failed { category, message } => log::warn!("run {run_id}: failed ({category}): {message}"),
        RunPhase::ConnectionLost { message } => log::warn!("run {run_id}: {message}"),
        other => log::info!("run {run_id}: {}", other.word()),
    }
}

/// The run's final phase and outcome; the result file's path follows as `Recorded`.
fn report(tx: &UnboundedSender<Msg>, run_id: &RunId, outcome: &RunOutcome) {
    let phase = match (&outcome.status, &outcome.category) {
        (RunStatus::Success, _) => RunPhase::Done { metrics: outcome.metrics.clone() },
        (_, Some(FailureKind::Cancelled)) => RunPhase::Cancelled,
        (_, category) => RunPhase::Failed {
            category: category.clone().unwrap_or(FailureKind::ToolError),
            message: outcome.error.clone().unwrap_or_default(),
        },
    };
    let _ = tx.send(Msg::Run(RunMsg::Phase { run_id: run_id.clone(), phase }));
    let result = Outcome {
        fixes: outcome.plan.fixes.clone(),
        image: Some(outcome.plan.image.clone()),
        status: outcome.status,
        source: None,
        error: outcome.error.clone(),
        metrics: outcome.metrics.clone(),
        metrics_from: (!outcome.metrics.is_empty()).then_some(crate::metrics::MetricsFrom::RawOutput),
        workload: outcome.plan.workload.clone(),
        samples: outcome.samples.clone(),
    };
    let verdict = outcome.verdict.clone();
    let _ = tx.send(Msg::Run(RunMsg::Finished { run_id: run_id.clone(), outcome: result, verdict }));
}
