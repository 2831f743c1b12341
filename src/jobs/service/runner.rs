//! The board's runs once decided: handed to the executor (`jobs::executor`), what it reports
//! turned into the board's messages, the result recorded with the GPU use the model saw; and a
//! container removed from whichever engine has it.

use super::{JobSetup, ServiceError};
use crate::app::{JobError, JobMsg, Level, Msg, Reread};
use crate::classify::Classifier;
use crate::dataset::{Outcome, RunStatus};
use crate::docker::Engine;
use crate::jobs::executor::{Ask, Events, JobEvent, Recorded, Unplaced, records_a_result};
use crate::jobs::fleet::PlaceError;
use crate::jobs::run::{RunEvent, RunOutcome};
use crate::runs::{Failure, FailureKind, RunId, RunPhase};
use crate::telemetry::GpuSummary;
use std::sync::Arc;
use tokio::sync::{mpsc::UnboundedSender, oneshot};

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

/// Hand `ask` to the executor and report what it says: its events, its end, and its result file
/// (by the executor's rule) once the model has sent the GPU use it saw.
pub(super) fn spawn_run(
    (setup, tx): (Arc<JobSetup>, UnboundedSender<Msg>),
    ask: Ask,
    gpu: oneshot::Receiver<Option<GpuSummary>>,
) {
    let resuming = matches!(ask.start, crate::jobs::run::Start::Resume { .. });
    let events = to_the_board(tx.clone());
    tokio::spawn(async move {
        let run_id = ask.plan.run_id.clone();
        match setup.exec.execute(ask, &events).await {
            Ok(outcome) => ended(&setup, &tx, &outcome, gpu).await,
            Err(Unplaced::Cancelled) => phase_of(&tx, &run_id, RunPhase::Cancelled),
            // The container may still run on a host that does not answer: held, not ended.
            Err(Unplaced::Failed(why @ PlaceError::HostDown { .. })) if resuming => {
                phase_of(&tx, &run_id, RunPhase::ConnectionLost { message: why.to_string() });
            }
            Err(Unplaced::Failed(why)) => {
                failed(&tx, &run_id, Failure::new(FailureKind::DockerUnreachable, why.to_string()));
            }
        }
    });
}

/// A run carried out: the board hears how it ended, then its result is recorded.
async fn ended(
    setup: &JobSetup,
    tx: &UnboundedSender<Msg>,
    outcome: &RunOutcome,
    gpu: oneshot::Receiver<Option<GpuSummary>>,
) {
    // Counted from before the board hears of the end until the result is written.
    let _recording = setup.recording.begin();
    report(tx, &outcome.plan.run_id, outcome);
    if records_a_result(outcome.category.as_ref()) {
        record(tx, setup, outcome, gpu.await.ok().flatten()).await;
    }
}

fn phase_of(tx: &UnboundedSender<Msg>, run_id: &RunId, phase: RunPhase) {
    let _ = tx.send(Msg::Job(JobMsg::phase(run_id, phase)));
}

/// A run that could not start: it fails at once, so its slot is freed.
pub(super) fn failed(tx: &UnboundedSender<Msg>, run_id: &RunId, failure: Failure) {
    let why = failure.message.clone();
    phase_of(tx, run_id, RunPhase::Failed { category: failure.kind, message: failure.message });
    let outcome = Outcome { status: RunStatus::Error, error: Some(why.clone()), ..Outcome::not_run() };
    let _ = tx.send(Msg::Job(JobMsg::run_ended(run_id, outcome, None)));
    let _ = tx.send(Msg::Notice(Level::Error, format!("run {run_id}: {why}")));
}

/// Write the result file, with the GPU use the model saw, and say where it is and how reading it
/// back classifies it: the board then shows what a restart would read.
async fn record(tx: &UnboundedSender<Msg>, setup: &JobSetup, outcome: &RunOutcome, gpu: Option<GpuSummary>) {
    let gpu = gpu.map(|g| g.json());
    let (workspace, redactor) = (setup.exec.workspace.clone(), setup.exec.redactor.clone());
    let (outcome_for_write, classifier) = (outcome.clone(), setup.exec.classifier.clone());
    let written = tokio::task::spawn_blocking(move || {
        let recorded =
            crate::jobs::executor::record(&outcome_for_write, (&workspace, &redactor), gpu.as_ref());
        match recorded.map_err(std::io::Error::other)? {
            Recorded::Written(path) => Ok((path.display().to_string(), reread(&path, &classifier))),
            Recorded::NotWritten(kind) => {
                Err(std::io::Error::other(format!("{kind}: no result by the rule")))
            }
        }
    })
    .await
    .unwrap_or_else(|e| Err(std::io::Error::other(e)));
    let (source, reread) = match written {
        Ok((path, reread)) => (Ok(path), reread),
        Err(e) => (Err(JobError::from(e)), None),
    };
    let run_id = outcome.plan.run_id.clone();
    let _ = tx.send(Msg::Job(JobMsg::Recorded { run_id, source, reread }));
}

/// The written result read back as a restart reads it (`None` when it cannot be: the live
/// classification then stands).
fn reread(path: &std::path::Path, classifier: &Classifier) -> Option<Reread> {
    let record = crate::dataset::results::read_file(path).ok()?.records.into_iter().next()?;
    let digested = record.digest(classifier);
    Some(Reread { verdict: digested.verdict, warnings: digested.warnings })
}

/// The executor's events become the board's messages, tagged with their run's id, sent as they
/// come (so a run's end, sent after, never overtakes one).
pub(super) fn to_the_board(tx: UnboundedSender<Msg>) -> Events {
    Events::new(move |JobEvent { run_id, event }| {
        let msg = match event {
            RunEvent::Phase(phase) => {
                log_phase(&run_id, &phase);
                JobMsg::phase(&run_id, phase)
            }
            RunEvent::Lines { pane, lines } => JobMsg::lines(&run_id, pane, lines),
        };
        let _ = tx.send(Msg::Job(msg));
    })
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
    phase_of(tx, run_id, phase);
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
    let _ = tx.send(Msg::Job(JobMsg::run_ended(run_id, result, verdict)));
}
