//! The board's job service: executes what `update` decided — starts a run (plan, container, logs),
//! cancels one, writes a finished run's result file, probes and applies fixes — and reports back
//! with messages. It keeps the Docker connection alive with backoff, reports running containers
//! of ours whose perftriage is gone (for `update` to pick up) and resumes them when asked. The
//! queue and the concurrency limit are the model's.

mod connection;
mod fixes;
mod images;

use super::run::{RunEnv, RunEvent, RunOutcome, Start, run, write_result};
use crate::app::{Level, Msg, RunMsg, RunRequest};
use crate::classify::Classifier;
use crate::dataset::{Commit, ImageTemplates, Outcome, RunStatus, Variant};
use crate::docker::Engine;
use crate::fixes::RecipeBook;
use crate::logs::Redactor;
use crate::runs::{Failure, FailureKind, RunConfig, RunPhase, RunPlan, plan};
use crate::telemetry::GpuSummary;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use tokio::sync::{mpsc::UnboundedSender, oneshot, watch};

pub use connection::reattach;
pub use fixes::Probe;

/// The engine, when connected; shared by the connection task and the jobs it starts.
type EngineSlot = Arc<RwLock<Option<Engine>>>;

pub struct JobService {
    engine: EngineSlot,
    setup: Arc<JobSetup>,
    commits: HashMap<String, Commit>,
    /// Cancel switch of each started run.
    cancels: HashMap<String, watch::Sender<bool>>,
    /// Each finished run waits here for the GPU summary its result file gets.
    results: HashMap<String, oneshot::Sender<Option<GpuSummary>>>,
    tx: UnboundedSender<Msg>,
    /// Fixes run one at a time.
    fix_lock: Arc<tokio::sync::Mutex<()>>,
}

/// What the service is built from.
pub struct JobSetup {
    pub workspace: PathBuf,
    pub config: RunConfig,
    pub images: ImageTemplates,
    pub classifier: Arc<Classifier>,
    pub recipes: RecipeBook,
    pub fixed_repo: String,
    /// Where `p` in the images view pushes.
    pub registry: crate::config::RegistryConfig,
    pub redactor: Redactor,
}

impl JobService {
    pub fn new(
        setup: JobSetup,
        commits: impl IntoIterator<Item = Commit>,
        tx: UnboundedSender<Msg>,
    ) -> JobService {
        JobService {
            engine: EngineSlot::default(),
            setup: Arc::new(setup),
            commits: commits.into_iter().map(|c| (c.short.clone(), c)).collect(),
            cancels: HashMap::new(),
            results: HashMap::new(),
            tx,
            fix_lock: Arc::default(),
        }
    }

    /// Keep a Docker connection for as long as the board runs (see `connection`).
    pub fn connect_forever(&self) {
        connection::spawn(self.engine.clone(), self.setup.clone(), self.tx.clone());
    }

    fn engine(&self) -> Option<Engine> {
        self.engine.read().ok().and_then(|e| e.clone())
    }

    fn plan(&self, run_id: &str, short: &str, variant: Variant) -> Result<RunPlan, String> {
        let commit = self.commits.get(short).ok_or_else(|| format!("{short} is not in the dataset"))?;
        let s = &self.setup;
        plan(commit, variant, &s.config, &s.images, &s.workspace, run_id).map_err(|e| e.to_string())
    }

    /// The plan a run will have: the same for the confirm and the executor.
    fn planned(&self, run_id: &str, request: &RunRequest) -> Result<RunPlan, String> {
        let plan = self.plan(run_id, &request.short, request.variant)?;
        Ok(match &request.image {
            Some(image) => plan.with_fixed_image(image.clone(), request.fixes.clone()),
            None => plan,
        })
    }

    /// Describe the runs a confirm asks about, from their plans.
    pub fn preview(&self, short: &str, requests: &[RunRequest]) {
        let plans =
            requests.iter().map(|r| (r.variant, self.planned("preview", r).map(|p| p.describe()))).collect();
        let _ = self.tx.send(Msg::Run(RunMsg::Planned { short: short.to_string(), plans }));
    }

    /// Start a run now: `update` found it a slot.
    pub fn start(
        &mut self,
        run_id: &str,
        short: &str,
        variant: Variant,
        image: Option<String>,
        fixes: Vec<String>,
    ) {
        let request = RunRequest { short: short.to_string(), variant, image, fixes };
        let planned = self.planned(run_id, &request);
        let (plan, engine) = match (planned, self.engine()) {
            (Ok(plan), Some(engine)) => (plan, engine),
            (Err(why), _) => return self.fail(run_id, Failure::new(FailureKind::PlanError, why)),
            (_, None) => {
                return self
                    .fail(run_id, Failure::new(FailureKind::DockerUnreachable, "Docker is not connected"));
            }
        };
        log::info!("run {run_id}: {short} {} in {}", variant.name(), plan.image);
        self.launch(engine, plan, Start::Fresh);
    }

    /// Pick up a running container of ours (found after a restart) under its own run id.
    pub fn resume(&mut self, run_id: &str, short: &str, variant: Variant, start: Start) {
        match (self.plan(run_id, short, variant), self.engine()) {
            (Ok(plan), Some(engine)) => self.launch(engine, plan, start),
            (Err(why), _) => self.fail(run_id, Failure::new(FailureKind::PlanError, why)),
            (_, None) => {
                self.fail(run_id, Failure::new(FailureKind::DockerUnreachable, "Docker is not connected"))
            }
        }
    }

    fn launch(&mut self, engine: Engine, plan: RunPlan, start: Start) {
        let (switch, cancel) = watch::channel(false);
        self.cancels.insert(plan.run_id.clone(), switch);
        let (gpu_tx, gpu_rx) = oneshot::channel();
        self.results.insert(plan.run_id.clone(), gpu_tx);
        self.spawn(engine, plan, (start, cancel), gpu_rx);
    }

    /// A run that could not start: it fails at once, so its slot is freed.
    fn fail(&self, run_id: &str, failure: Failure) {
        let why = failure.message.clone();
        let phase = RunPhase::Failed { category: failure.kind, message: failure.message };
        let _ = self.tx.send(Msg::Run(RunMsg::Phase { run_id: run_id.into(), phase }));
        let outcome = Outcome { status: RunStatus::Error, error: Some(why.clone()), ..Outcome::not_run() };
        let _ = self.tx.send(Msg::Run(RunMsg::Finished { run_id: run_id.into(), outcome, verdict: None }));
        let _ = self.tx.send(Msg::Notice(Level::Error, format!("run {run_id}: {why}")));
    }

    pub fn cancel(&mut self, run_id: &str) {
        log::info!("run {run_id}: cancel asked");
        // A run this board did not start (a re-attached one), or whose task has ended, is removed
        // by its label.
        if self.cancels.get(run_id).is_none_or(|switch| switch.send(true).is_err()) {
            connection::remove_by_run(self.engine(), &self.setup, run_id, self.tx.clone());
        }
    }

    /// Stop and remove containers by id, saying how it went.
    pub fn remove_containers(&self, ids: Vec<String>) {
        let (Some(engine), tx) = (self.engine(), self.tx.clone()) else { return };
        tokio::spawn(async move {
            let mut failed = Vec::new();
            for id in &ids {
                if let Err(e) = engine.remove(id).await {
                    failed.push(format!("{}: {e}", &id[..12.min(id.len())]));
                }
            }
            log::info!(
                "removed {} left-behind container(s); {} failed",
                ids.len() - failed.len(),
                failed.len()
            );
            let (level, text) = match failed.is_empty() {
                true => (Level::Info, format!("removed {} left-behind container(s)", ids.len())),
                false => (Level::Error, format!("could not remove: {}", failed.join("; "))),
            };
            let _ = tx.send(Msg::Notice(level, text));
        });
    }

    /// The run's result file is written with the GPU use the model saw.
    pub fn write_result(&mut self, run_id: &str, gpu: Option<GpuSummary>) {
        self.cancels.remove(run_id);
        if let Some(waiting) = self.results.remove(run_id) {
            let _ = waiting.send(gpu);
        }
    }

    fn spawn(
        &self,
        engine: Engine,
        plan: RunPlan,
        (start, cancel): (Start, watch::Receiver<bool>),
        gpu: oneshot::Receiver<Option<GpuSummary>>,
    ) {
        let (events, rx) = tokio::sync::mpsc::unbounded_channel();
        let s = &self.setup;
        let env = RunEnv {
            engine,
            workspace: s.workspace.clone(),
            vllm_repo: s.config.vllm_repo.clone(),
            redactor: s.redactor.clone(),
            classifier: s.classifier.clone(),
            events,
            cancel,
        };
        forward_events(plan.run_id.clone(), rx, self.tx.clone());
        let (tx, setup) = (self.tx.clone(), self.setup.clone());
        tokio::spawn(async move {
            let outcome = run(&plan, env, start).await;
            report(&tx, &plan.run_id, &outcome);
            // A cancelled run measured nothing: it leaves logs, not a result.
            if outcome.category != Some(FailureKind::Cancelled) {
                record(&tx, &setup, &outcome, gpu.await.ok().flatten()).await;
            }
        });
    }
}

/// Write the result file, with the GPU use the model saw, and say where it is.
async fn record(tx: &UnboundedSender<Msg>, setup: &JobSetup, outcome: &RunOutcome, gpu: Option<GpuSummary>) {
    let gpu = gpu.map(|g| g.json());
    let now = crate::session::now_rfc3339();
    let (workspace, redactor) = (setup.workspace.clone(), setup.redactor.clone());
    let outcome_for_write = outcome.clone();
    let written = tokio::task::spawn_blocking(move || {
        write_result(&outcome_for_write, &workspace, &redactor, &now, gpu.as_ref())
    })
    .await
    .unwrap_or_else(|e| Err(std::io::Error::other(e)));
    let source = written.map(|p| p.display().to_string()).map_err(|e| e.to_string());
    let _ = tx.send(Msg::Run(RunMsg::Recorded { run_id: outcome.plan.run_id.clone(), source }));
}

/// A run's events become messages tagged with its id.
fn forward_events(
    run_id: String,
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

fn log_phase(run_id: &str, phase: &RunPhase) {
    match phase {
        RunPhase::Pulling { .. } => log::debug!("run {run_id}: pulling"),
        RunPhase::Failed { category, message } => log::warn!("run {run_id}: failed ({category}): {message}"),
        RunPhase::ConnectionLost { message } => log::warn!("run {run_id}: {message}"),
        other => log::info!("run {run_id}: {}", other.word()),
    }
}

/// The run's final phase and outcome; the result file's path follows as `Recorded`.
fn report(tx: &UnboundedSender<Msg>, run_id: &str, outcome: &RunOutcome) {
    let phase = match (&outcome.status, &outcome.category) {
        (RunStatus::Success, _) => RunPhase::Done { metrics: outcome.metrics.clone() },
        (_, Some(FailureKind::Cancelled)) => RunPhase::Cancelled,
        (_, category) => RunPhase::Failed {
            category: category.clone().unwrap_or(FailureKind::ToolError),
            message: outcome.error.clone().unwrap_or_default(),
        },
    };
    let _ = tx.send(Msg::Run(RunMsg::Phase { run_id: run_id.into(), phase }));
    let result = Outcome {
        fixes: outcome.plan.fixes.clone(),
        status: outcome.status,
        source: None,
        error: outcome.error.clone(),
        metrics: outcome.metrics.clone(),
        metrics_from: (!outcome.metrics.is_empty()).then_some(crate::metrics::MetricsFrom::RawOutput),
    };
    let verdict = outcome.verdict.clone();
    let _ = tx.send(Msg::Run(RunMsg::Finished { run_id: run_id.into(), outcome: result, verdict }));
}
