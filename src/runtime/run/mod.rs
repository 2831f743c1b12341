//! Carrying out one run plan against the engine: image, container, scripts, agent patch,
//! server readiness, benchmark, result file. Every exit path removes the container.

mod ready;
mod result;
mod steps;

pub use result::{RunOutcome, write_result};

use crate::docker::{DockerError, Engine};
use crate::logs::{Line, LogStore, Stream};
use crate::runs::{Pane, Redactor, RunPhase, RunPlan};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

/// What a run reports while it goes.
#[derive(Debug, Clone)]
pub enum RunEvent {
    Phase(RunPhase),
    Lines { pane: Pane, lines: Vec<Line> },
}

/// Where a run writes, and who hears about it. Owned, so a run can be its own task.
pub struct RunEnv {
    pub engine: Engine,
    pub workspace: PathBuf,
    pub vllm_repo: Option<PathBuf>,
    pub redactor: Redactor,
    pub classifier: Arc<crate::classify::Classifier>,
    pub events: mpsc::UnboundedSender<RunEvent>,
    pub cancel: watch::Receiver<bool>,
}

/// A pane's log: spooled, redacted, classified live, and kept as text for parsing.
pub(super) struct PaneLog<'a> {
    pane: Pane,
    store: LogStore,
    seen: usize,
    text: String,
    pub path: PathBuf,
    live: crate::classify::LiveClassifier<'a>,
}

const TEXT_CAP: usize = 8 << 20;

impl<'a> PaneLog<'a> {
    fn create(env: &'a RunEnv, plan: &RunPlan, pane: Pane) -> std::io::Result<PaneLog<'a>> {
        let name = match pane {
            Pane::Server => "server",
            Pane::Benchmark => "benchmark",
        };
        let path = env
            .workspace
            .join("logs")
            .join(&plan.short)
            .join(plan.variant.name())
            .join(format!("{}-{name}.log", plan.run_id));
        let store = LogStore::create(&path, crate::logs::DEFAULT_RING)?;
        let live = crate::classify::LiveClassifier::new(&env.classifier);
        Ok(PaneLog { pane, store, seen: 0, text: String::new(), path, live })
    }

    fn push(&mut self, env: &RunEnv, stream: Stream, bytes: &[u8]) {
        let clean = env.redactor.bytes(bytes);
        if self.store.ingest(stream, &clean).is_ok() {
            self.forward(env);
        }
    }

    fn finish(&mut self, env: &RunEnv) {
        let _ = self.store.finish();
        self.forward(env);
    }

    fn forward(&mut self, env: &RunEnv) {
        let mut lines = self.store.lines_since(&mut self.seen);
        for line in &mut lines {
            line.noise = env.classifier.is_noise(line.text());
            self.live.feed(line.text());
            if self.text.len() < TEXT_CAP {
                self.text.push_str(line.text());
                self.text.push('\n');
            }
        }
        if !lines.is_empty() {
            let _ = env.events.send(RunEvent::Lines { pane: self.pane, lines });
        }
    }
}

fn phase(env: &RunEnv, phase: RunPhase) {
    let _ = env.events.send(RunEvent::Phase(phase));
}

/// Run the plan to its end; the container is gone when this returns.
pub async fn execute(plan: &RunPlan, env: RunEnv) -> RunOutcome {
    let started = std::time::Instant::now();
    let mut outcome = RunOutcome::new(plan);
    let mut server = match PaneLog::create(&env, plan, Pane::Server) {
        Ok(p) => p,
        Err(e) => return outcome.failed("tool_error", &format!("cannot create the log spool: {e}"), started),
    };
    let mut bench = match PaneLog::create(&env, plan, Pane::Benchmark) {
        Ok(p) => p,
        Err(e) => return outcome.failed("tool_error", &format!("cannot create the log spool: {e}"), started),
    };
    outcome.logs = vec![server.path.clone(), bench.path.clone()];
    let mut cancel = env.cancel.clone();
    let deadline = std::time::Duration::from_secs(plan.run_timeout_s);
    let body = steps::run_steps(plan, &env, &mut server, &mut bench, &mut outcome);
    let result = tokio::select! {
        r = tokio::time::timeout(deadline, body) => r.unwrap_or_else(|_| Err(("timeout".into(), format!("Timeout after {}s", plan.run_timeout_s)))),
        _ = cancelled(&mut cancel) => Err(("cancelled".into(), "cancelled by the operator".into())),
    };
    // By name: a cancel can land between create and the id reaching us.
    let _ = env.engine.remove(&plan.container.name).await;
    server.finish(&env);
    bench.finish(&env);
    match result {
        Ok(()) => outcome.finish(&bench.text, &server.text, &env.classifier, started),
        Err((category, message)) => {
            let verdict = env.classifier.classify(&format!("{}\n{}", bench.text, server.text));
            outcome.verdict = verdict;
            outcome.raw_tail = result::tail(&format!("{}\n{}", server.text, bench.text), 10_000);
            outcome.failed(&category, &message, started)
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

/// A Docker error as (category, message).
fn docker_failure(e: DockerError) -> (String, String) {
    let category = match &e {
        DockerError::ImageMissing { .. } => "manifest_unknown",
        DockerError::NoGpuRuntime(_) => "gpu_runtime_missing",
        DockerError::Unreachable(_) => "docker_unreachable",
        DockerError::Api { .. } => "docker_error",
    };
    (category.to_string(), e.to_string())
}
