//! Carrying out one run plan against the engine: image, container, scripts, agent patch,
//! server readiness, benchmark, result file. Every exit path removes the container.

mod in_container;
mod ready;
mod result;
mod resume;
mod steps;

pub use result::{RunOutcome, own_result_path, write_result};

use super::lines::LinePath;
use crate::docker::{DockerError, Engine};
use crate::logs::Redactor;
use crate::logs::{Line, Stream};
use crate::runs::{Failure, FailureKind, Pane, RunPhase, RunPlan};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

/// What a run reports while it goes.
#[derive(Debug, Clone)]
pub enum RunEvent {
    Phase(RunPhase),
    Lines { pane: Pane, lines: Vec<Line> },
}

/// Where a run's events go: called in order, from the run's own task, and must not block (a
/// front end forwards them on a channel). Nothing queued in between, so a caller that reports
/// the run's end after it returns is never overtaken by one of its events.
pub type RunSink = Arc<dyn Fn(RunEvent) + Send + Sync>;

/// A sink that sends each event on `tx`.
pub fn sink(tx: mpsc::UnboundedSender<RunEvent>) -> RunSink {
    Arc::new(move |event| drop(tx.send(event)))
}

/// Where a run writes, and who hears about it. Owned, so a run can be its own task.
pub struct RunEnv {
    pub engine: Engine,
    pub workspace: PathBuf,
    pub vllm_repo: Option<PathBuf>,
    pub redactor: Redactor,
    pub classifier: Arc<crate::classify::Classifier>,
    pub events: RunSink,
    pub cancel: watch::Receiver<bool>,
    /// The `[[hosts]]` engine it runs on (for its launch record); `None`: this machine's.
    pub host: Option<String>,
}

/// A pane's log: one line path (redacted, spooled, classified live), its lines forwarded as
/// events, and a capped copy of its text kept for the metric parser.
pub(super) struct PaneLog {
    pane: Pane,
    lines: LinePath,
    text: String,
    pub path: PathBuf,
}

const TEXT_CAP: usize = 8 << 20;

impl PaneLog {
    fn create(env: &RunEnv, plan: &RunPlan, pane: Pane, suffix: &str) -> std::io::Result<PaneLog> {
        let dir = env.workspace.join("logs").join(&plan.short).join(plan.variant.name());
        let path = dir.join(format!("{}-{}{suffix}.log", plan.run_id, pane.name()));
        let lines = LinePath::create(&path, env.redactor.clone(), env.classifier.clone())?;
        Ok(PaneLog { pane, lines, text: String::new(), path })
    }

    fn push(&mut self, env: &RunEnv, stream: Stream, bytes: &[u8]) {
        if let Ok(lines) = self.lines.ingest(stream, bytes) {
            self.forward(env, lines);
        }
    }

    fn finish(&mut self, env: &RunEnv) {
        if let Ok(lines) = self.lines.finish() {
            self.forward(env, lines);
        }
    }

    fn forward(&mut self, env: &RunEnv, lines: Vec<Line>) {
        for line in &lines {
            if self.text.len() < TEXT_CAP {
                self.text.push_str(line.text());
                self.text.push('\n');
            }
        }
        if !lines.is_empty() {
            (env.events)(RunEvent::Lines { pane: self.pane, lines });
        }
    }

    pub(super) fn verdict(&self) -> Option<crate::classify::Verdict> {
        self.lines.verdict()
    }
}

fn phase(env: &RunEnv, phase: RunPhase) {
    (env.events)(RunEvent::Phase(phase));
}

/// Where a run begins: a new container, or one already running (found after a restart).
#[derive(Debug, Clone)]
pub enum Start {
    Fresh,
    /// A container picked up again: the plan is its launch record's, and so is the digest.
    Resume {
        container: String,
        created_unix: i64,
        image_digest: Option<String>,
    },
}

/// Run the plan to its end; the container is gone when this returns.
pub async fn execute(plan: &RunPlan, env: RunEnv) -> RunOutcome {
    run(plan, env, Start::Fresh).await
}

/// Run the plan from `start` to its end; the container is gone when this returns.
pub async fn run(plan: &RunPlan, mut env: RunEnv, start: Start) -> RunOutcome {
    let started = std::time::Instant::now();
    let mut outcome = RunOutcome::new(plan);
    if let Start::Resume { image_digest, container, .. } = &start {
        outcome.image_digest.clone_from(image_digest);
        // Nothing is stopped, read or removed on a record's word alone.
        if let Err(refused) = resume::claim_holds(plan, &env, container).await {
            return outcome.failed(refused, started);
        }
    }
    let suffix = match &start {
        Start::Fresh => String::new(),
        Start::Resume { .. } => format!("-resumed-{}", crate::session::now_compact()),
    };
    let (mut server, mut bench) = match (
        PaneLog::create(&env, plan, Pane::Server, &suffix),
        PaneLog::create(&env, plan, Pane::Benchmark, &suffix),
    ) {
        (Ok(server), Ok(bench)) => (server, bench),
        (Err(e), _) | (_, Err(e)) => return outcome.failed(spool_failure(&e), started),
    };
    outcome.logs = vec![server.path.clone(), bench.path.clone()];
    let budget = time_left(plan, &start);
    let panes = steps::Panes { server: &mut server, bench: &mut bench };
    let mut result = match &start {
        Start::Fresh => guarded(plan, &env, budget, steps::run_steps(plan, &env, panes, &mut outcome)).await,
        Start::Resume { container, .. } => {
            guarded(plan, &env, budget, resume::resume_steps(plan, &env, panes, &mut outcome, container))
                .await
        }
    };
    // A lost connection: wait for Docker, and carry on from the container if it still runs.
    if let (Err(f), Some(id)) = (&result, outcome.container.clone())
        && f.kind == FailureKind::DockerUnreachable
        && let Some(engine) = reconnect(&env, &id).await
    {
        env.engine = engine;
        let panes = steps::Panes { server: &mut server, bench: &mut bench };
        let budget = budget.saturating_sub(started.elapsed());
        result = if outcome.server_released || plan.server_argv.is_none() {
            guarded(plan, &env, budget, resume::resume_steps(plan, &env, panes, &mut outcome, &id)).await
        } else {
            // Lost before the server was let go: it still waits for its go file.
            guarded(plan, &env, budget, steps::started_steps(plan, &env, panes, &mut outcome, &id)).await
        };
    }
    phase(&env, RunPhase::Collecting);
    let removed = remove_container(&env, &plan.container.name).await;
    let interrupted =
        matches!(&result, Err(f) if matches!(f.kind, FailureKind::Cancelled | FailureKind::Timeout));
    if interrupted && outcome.create_sent && !removed {
        // Cancelled while the daemon was creating it: the container can appear after the remove.
        settle_and_remove(&env, &plan.container.name).await;
    }
    server.finish(&env);
    bench.finish(&env);
    conclude(outcome, result, &server, &bench, &env, started)
}

/// The run's time left: all of it, or what is left since its container was created.
fn time_left(plan: &RunPlan, start: &Start) -> std::time::Duration {
    let whole = std::time::Duration::from_secs(plan.run_timeout_s);
    match start {
        Start::Fresh => whole,
        Start::Resume { created_unix, .. } => {
            let age = crate::session::unix_now().saturating_sub(u64::try_from(*created_unix).unwrap_or(0));
            whole.saturating_sub(std::time::Duration::from_secs(age))
        }
    }
}

/// A run's steps under its time limit and the operator's cancel.
async fn guarded(
    plan: &RunPlan,
    env: &RunEnv,
    budget: std::time::Duration,
    body: impl std::future::Future<Output = Result<(), Failure>>,
) -> Result<(), Failure> {
    let mut cancel = env.cancel.clone();
    let timeout = || Failure::new(FailureKind::Timeout, format!("Timeout after {}s", plan.run_timeout_s));
    tokio::select! {
        r = tokio::time::timeout(budget, body) => r.unwrap_or_else(|_| Err(timeout())),
        _ = cancelled(&mut cancel) => Err(Failure::new(FailureKind::Cancelled, "cancelled by the operator")),
    }
}

fn conclude(
    outcome: RunOutcome,
    result: Result<(), Failure>,
    server: &PaneLog,
    bench: &PaneLog,
    env: &RunEnv,
    started: std::time::Instant,
) -> RunOutcome {
    match result {
        Ok(()) => outcome.finish(&bench.text, &server.text, &env.classifier, started),
        Err(failure) => {
            let mut outcome = outcome;
            outcome.verdict = env.classifier.classify(&format!("{}\n{}", bench.text, server.text));
            outcome.raw_tail = result::tail(&format!("{}\n{}", server.text, bench.text), 10_000);
            outcome.failed(failure, started)
        }
    }
}

/// How long a run waits for a lost Docker connection (to go on, or to remove its container).
const REMOVE_PATIENCE: std::time::Duration = std::time::Duration::from_secs(600);

/// Waiting for a lost Docker: each try says so on the run, backs off (1 s doubling to 10 s) and
/// connects again; `None` once the patience is spent.
struct DockerWait {
    deadline: std::time::Instant,
    wait: std::time::Duration,
}

impl DockerWait {
    fn new() -> DockerWait {
        DockerWait {
            deadline: std::time::Instant::now() + REMOVE_PATIENCE,
            wait: std::time::Duration::from_secs(1),
        }
    }

    fn patient(&self) -> bool {
        std::time::Instant::now() < self.deadline
    }

    /// Report `message`, wait, and try to connect to the run's engine again (its own host).
    async fn retry(&mut self, env: &RunEnv, message: String) -> Option<Engine> {
        phase(env, RunPhase::ConnectionLost { message });
        tokio::time::sleep(self.wait).await;
        self.wait = (self.wait * 2).min(std::time::Duration::from_secs(10));
        env.engine.reconnect().await.ok()
    }
}

/// Wait for Docker to answer again; its engine if the container still runs.
async fn reconnect(env: &RunEnv, id: &str) -> Option<Engine> {
    let mut docker = DockerWait::new();
    while docker.patient() {
        let message = "the Docker connection is lost; the run goes on when it is back".to_string();
        let Some(engine) = docker.retry(env, message).await else { continue };
        return match engine.state(id).await {
            Ok((true, _)) => Some(engine),
            _ => None,
        };
    }
    None
}

/// Remove the run's container — by name: a cancel can land between create and the id reaching
/// us. While the connection is lost the run says so and keeps trying (reconnecting each time),
/// so a dropped socket never leaves a container running for weeks. Whether there was one to remove.
async fn remove_container(env: &RunEnv, name: &str) -> bool {
    let (mut docker, mut engine) = (DockerWait::new(), env.engine.clone());
    loop {
        match engine.remove_found(name).await {
            Err(DockerError::Unreachable(why)) if docker.patient() => {
                let message = format!(
                    "the Docker connection is lost ({why}); container {name} is removed when it is back"
                );
                if let Some(fresh) = docker.retry(env, message).await {
                    engine = fresh;
                }
            }
            Ok(removed) => return removed,
            Err(_) => return false,
        }
    }
}

/// Watch for a container whose create request was dropped mid-flight, and remove it when it
/// shows up (for up to 10 s).
async fn settle_and_remove(env: &RunEnv, name: &str) {
    for _ in 0..20 {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        if env.engine.exists(name).await {
            remove_container(env, name).await;
            return;
        }
    }
}

async fn cancelled(cancel: &mut watch::Receiver<bool>) {
    while !*cancel.borrow() {
        if cancel.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// A Docker error as a run failure.
fn docker_failure(e: &DockerError) -> Failure {
    let kind = match e {
        DockerError::ImageMissing { .. } => FailureKind::ImageMissing,
        DockerError::PullFailed { .. } => FailureKind::PullFailed,
        DockerError::NoGpuRuntime(_) => FailureKind::GpuRuntimeMissing,
        DockerError::Unreachable(_) => FailureKind::DockerUnreachable,
        DockerError::Api { .. } | DockerError::NotFound { .. } => FailureKind::DockerError,
        DockerError::NoRoom { .. } => FailureKind::NoRoom,
    };
    Failure::new(kind, e.to_string())
}

fn spool_failure(e: &std::io::Error) -> Failure {
    Failure::new(FailureKind::ToolError, format!("cannot create the log spool: {e}"))
}
