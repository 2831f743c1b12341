//! The board's run service: plans runs, queues them (one at a time by default), spawns each as a
//! task with its own cancel switch, keeps the Docker connection alive with backoff and re-attaches
//! to containers of ours still running after a restart.

use super::run::{RunEnv, RunEvent, RunOutcome, execute, write_result};
use crate::app::{DockerStatus, Level, Msg};
use crate::classify::Classifier;
use crate::dataset::{Commit, ImageTemplates, Outcome, Variant};
use crate::docker::Engine;
use crate::fixes::RecipeBook;
use crate::runs::{
    LABEL_COMMIT, LABEL_RUN, LABEL_VARIANT, Pane, Redactor, RunConfig, RunPhase, RunPlan, plan,
};
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::{mpsc::UnboundedSender, watch};

mod fixes;

pub struct RunService {
    engine: Arc<RwLock<Option<Engine>>>,
    workspace: PathBuf,
    config: RunConfig,
    images: ImageTemplates,
    classifier: Arc<Classifier>,
    redactor: Redactor,
    commits: HashMap<String, Commit>,
    queue: VecDeque<RunPlan>,
    active: HashMap<String, watch::Sender<bool>>,
    tx: UnboundedSender<Msg>,
    recipes: Arc<RecipeBook>,
    fixed_repo: String,
    /// Our containers' owners, refreshed while Docker is connected; GPU processes are attributed with it.
    pub owners: Arc<RwLock<super::gpu::Owners>>,
    /// Per-run GPU accounting for result files.
    pub ledger: Arc<std::sync::Mutex<HashMap<String, super::gpu::GpuSummary>>>,
    /// Fixes run one at a time.
    fix_lock: Arc<tokio::sync::Mutex<()>>,
}

/// What the service is built from.
pub struct RunSetup {
    pub workspace: PathBuf,
    pub config: RunConfig,
    pub images: ImageTemplates,
    pub classifier: Arc<Classifier>,
    pub recipes: RecipeBook,
    pub fixed_repo: String,
}

/// What the board asks a fix for.
pub struct FixRequest {
    pub short: String,
    pub variant: Variant,
    pub image: Option<String>,
    pub evidence: Option<String>,
    pub commit_image: bool,
}

impl RunService {
    pub fn new(
        setup: RunSetup,
        commits: impl IntoIterator<Item = Commit>,
        tx: UnboundedSender<Msg>,
    ) -> RunService {
        let RunSetup { workspace, config, images, classifier, recipes, fixed_repo } = setup;
        RunService {
            engine: Arc::default(),
            workspace,
            config,
            images,
            classifier,
            redactor: Redactor::from_env(),
            commits: commits.into_iter().map(|c| (c.short.clone(), c)).collect(),
            queue: VecDeque::new(),
            active: HashMap::new(),
            tx,
            recipes: Arc::new(recipes),
            fixed_repo,
            fix_lock: Arc::default(),
            owners: Arc::default(),
            ledger: Arc::default(),
        }
    }

    /// Keep a connection: connect, announce, re-attach, ping; reconnect with backoff when it drops.
    pub fn connect_forever(&self) {
        let (slot, tx, workspace) =
            (self.engine.clone(), self.tx.clone(), self.workspace.display().to_string());
        let owners = self.owners.clone();
        tokio::spawn(async move {
            let mut backoff = Duration::from_secs(1);
            loop {
                match Engine::connect().await {
                    Ok(engine) => {
                        backoff = Duration::from_secs(1);
                        // The engine is usable before anyone hears it is: queued runs start on that message.
                        if let Ok(mut s) = slot.write() {
                            *s = Some(engine.clone());
                        }
                        let _ = tx.send(Msg::Docker(DockerStatus::Connected(engine.description.clone())));
                        reattach(&engine, &workspace, &tx).await;
                        while engine.raw().ping().await.is_ok() {
                            let found = super::gpu::owners(&engine, &workspace).await;
                            if let Ok(mut o) = owners.write() {
                                *o = found;
                            }
                            tokio::time::sleep(Duration::from_secs(2)).await;
                        }
                        if let Ok(mut s) = slot.write() {
                            *s = None;
                        }
                        let _ = tx.send(Msg::Docker(DockerStatus::Unreachable(
                            "the daemon stopped answering".into(),
                        )));
                    }
                    Err(e) => {
                        let _ = tx.send(Msg::Docker(DockerStatus::Unreachable(e.to_string())));
                    }
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(30));
            }
        });
    }

    fn engine(&self) -> Option<Engine> {
        self.engine.read().ok().and_then(|e| e.clone())
    }

    pub fn start(
        &mut self,
        run_id: &str,
        short: &str,
        variant: Variant,
        image: Option<String>,
        fixes: Vec<String>,
    ) {
        let planned = self.plan(run_id, short, variant).map(|p| match image {
            Some(image) => p.with_fixed_image(image, fixes),
            None => p,
        });
        match planned {
            Ok(plan) => {
                self.queue.push_back(plan);
                self.pump();
            }
            Err(why) => self.fail(run_id, "plan_error", &why),
        }
    }

    fn plan(&self, run_id: &str, short: &str, variant: Variant) -> Result<RunPlan, String> {
        let commit = self.commits.get(short).ok_or_else(|| format!("{short} is not in the dataset"))?;
        plan(commit, variant, &self.config, &self.images, &self.workspace, run_id).map_err(|e| e.to_string())
    }

    fn fail(&self, run_id: &str, category: &str, why: &str) {
        let phase = RunPhase::Failed { category: category.into(), message: why.into() };
        let _ = self.tx.send(Msg::RunPhase { run_id: run_id.into(), phase });
        let _ = self.tx.send(Msg::Notice(Level::Error, format!("run {run_id}: {why}")));
    }

    pub fn cancel(&mut self, run_id: &str) {
        if let Some(switch) = self.active.get(run_id) {
            let _ = switch.send(true);
            return;
        }
        if let Some(at) = self.queue.iter().position(|p| p.run_id == run_id) {
            self.queue.remove(at);
            let _ = self.tx.send(Msg::RunPhase { run_id: run_id.into(), phase: RunPhase::Cancelled });
            return;
        }
        // A re-attached run: remove its container by label.
        if let Some(engine) = self.engine() {
            let (run_id, workspace, tx) =
                (run_id.to_string(), self.workspace.display().to_string(), self.tx.clone());
            tokio::spawn(async move {
                for c in engine.ours(&workspace).await.unwrap_or_default() {
                    if c.labels.get(LABEL_RUN) == Some(&run_id) {
                        let _ = engine.remove(&c.id).await;
                    }
                }
                let _ = tx.send(Msg::RunPhase { run_id, phase: RunPhase::Cancelled });
            });
        }
    }

    /// Docker (re)connected: start what was queued while it was away.
    pub fn resume(&mut self) {
        self.pump();
    }

    /// A run ended: its slot is free.
    pub fn finished(&mut self, run_id: &str) {
        self.active.remove(run_id);
        self.pump();
    }

    fn pump(&mut self) {
        let Some(engine) = self.engine() else {
            if let Some(first) = self.queue.front() {
                let why = "waiting for Docker (see the header); the run starts when it connects";
                let _ = self.tx.send(Msg::Notice(Level::Warn, format!("run {}: {why}", first.run_id)));
            }
            return;
        };
        while self.active.len() < self.config.concurrency.max(1) {
            let Some(plan) = self.queue.pop_front() else { return };
            let (switch, cancel) = watch::channel(false);
            self.active.insert(plan.run_id.clone(), switch);
            self.spawn(engine.clone(), plan, cancel);
        }
    }

    fn spawn(&self, engine: Engine, plan: RunPlan, cancel: watch::Receiver<bool>) {
        let (events, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let env = RunEnv {
            engine,
            workspace: self.workspace.clone(),
            vllm_repo: self.config.vllm_repo.clone(),
            redactor: self.redactor.clone(),
            classifier: self.classifier.clone(),
            events,
            cancel,
        };
        let (tx, run_id, workspace, redactor) =
            (self.tx.clone(), plan.run_id.clone(), self.workspace.clone(), self.redactor.clone());
        let ledger = self.ledger.clone();
        let forward = tx.clone();
        let id = run_id.clone();
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                let msg = match event {
                    RunEvent::Phase(phase) => Msg::RunPhase { run_id: id.clone(), phase },
                    RunEvent::Lines { pane, lines } => Msg::RunLines { run_id: id.clone(), pane, lines },
                };
                let _ = forward.send(msg);
            }
        });
        tokio::spawn(async move {
            let outcome = execute(&plan, env).await;
            // A cancelled run measured nothing: it leaves logs, not a result.
            let written = if outcome.category.as_deref() == Some("cancelled") {
                Err(std::io::Error::other("cancelled"))
            } else {
                let gpu = ledger.lock().ok().and_then(|l| l.get(&run_id).map(|s| s.json()));
                write_result(&outcome, &workspace, &redactor, &super::now_rfc3339(), gpu)
            };
            finish(&tx, &run_id, outcome, written);
        });
    }
}

fn finish(tx: &UnboundedSender<Msg>, run_id: &str, outcome: RunOutcome, written: std::io::Result<PathBuf>) {
    let source = match &written {
        Ok(path) => Some(path.display().to_string()),
        Err(_) if outcome.category.as_deref() == Some("cancelled") => None,
        Err(e) => {
            let _ = tx
                .send(Msg::Notice(Level::Error, format!("run {run_id}: cannot write the result file: {e}")));
            None
        }
    };
    let phase = match (&outcome.status, &outcome.category) {
        (crate::dataset::RunStatus::Success, _) => RunPhase::Done { metrics: outcome.metrics.clone() },
        (_, Some(c)) if c == "cancelled" => RunPhase::Cancelled,
        (_, category) => RunPhase::Failed {
            category: category.clone().unwrap_or_default(),
            message: outcome.error.clone().unwrap_or_default(),
        },
    };
    let _ = tx.send(Msg::RunPhase { run_id: run_id.into(), phase });
    let result = Outcome {
        fixes: outcome.plan.fixes.clone(),
        status: outcome.status,
        source,
        error: outcome.error.clone(),
        metrics: outcome.metrics.clone(),
    };
    let _ = tx.send(Msg::RunFinished {
        run_id: run_id.into(),
        outcome: result,
        verdict: outcome.verdict.clone(),
    });
}

/// Containers of ours still running: show them as runs and follow their server output.
pub async fn reattach(engine: &Engine, workspace: &str, tx: &UnboundedSender<Msg>) {
    use futures_util::StreamExt;
    for c in engine.ours(workspace).await.unwrap_or_default().into_iter().filter(|c| c.running) {
        let (Some(run_id), Some(short)) =
            (c.labels.get(LABEL_RUN).cloned(), c.labels.get(LABEL_COMMIT).cloned())
        else {
            continue;
        };
        let variant = c.labels.get(LABEL_VARIANT).and_then(|v| Variant::parse(v)).unwrap_or(Variant::Human);
        let _ = tx.send(Msg::RunFound { run_id: run_id.clone(), short, variant });
        let (engine, tx) = (engine.clone(), tx.clone());
        tokio::spawn(async move {
            let mut decoders = crate::logs::LogStore::create(
                &std::env::temp_dir().join(format!("perftriage-reattach-{run_id}.log")),
                crate::logs::DEFAULT_RING,
            );
            let logs = engine.follow_logs(&c.id);
            tokio::pin!(logs);
            while let Some(Ok((stream, bytes))) = logs.next().await {
                if let Ok(store) = decoders.as_mut() {
                    let mut seen = store.ring().total();
                    if store.ingest(stream, &bytes).is_ok() {
                        let lines = store.lines_since(&mut seen);
                        let _ = tx.send(Msg::RunLines { run_id: run_id.clone(), pane: Pane::Server, lines });
                    }
                }
            }
            let message =
                "the re-attached container stopped; its result was not recorded by this board".to_string();
            let _ = tx.send(Msg::RunPhase {
                run_id,
                phase: RunPhase::Failed { category: "reattached".into(), message },
            });
        });
    }
}
