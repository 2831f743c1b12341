//! One executor for a run, whoever asks — the board, `perftriage run`, `fix apply`'s re-run, a
//! campaign: placed (one waiting loop), carried out on Docker (`jobs::run`) or as a Slurm job
//! (`slurm`), its result written by one rule (`record`). What a run reports goes to one stream,
//! each event tagged with the run's id. Front ends ask it and show what it says; nothing here
//! prints or knows a screen.

mod record;
pub mod slurm;

pub use record::{RecordError, Recorded, record, records_a_result};

use crate::classify::Classifier;
use crate::config::HostConfig;
use crate::docker::Engine;
use crate::jobs::fleet::{Claims, PlaceError, Placement, engine_for};
use crate::jobs::run::{RunEnv, RunEvent, RunOutcome, RunSink, Start};
use crate::logs::Redactor;
use crate::runs::{RunId, RunPhase, RunPlan, SlurmConfig, ViewFlags};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// How often placement is tried again while no host can take a run.
const PLACE_AGAIN: Duration = Duration::from_secs(2);

/// What every run needs, whoever asked for it; one per process (its claims on host slots are
/// what keeps two of its runs off one slot).
pub struct Executor {
    pub workspace: PathBuf,
    pub vllm_repo: Option<PathBuf>,
    pub redactor: Redactor,
    pub classifier: Arc<Classifier>,
    /// `[[hosts]]`; empty: this machine's engine (`DOCKER_HOST`'s).
    pub hosts: Vec<HostConfig>,
    pub claims: Claims,
    /// `[slurm]`, for runs that go there.
    pub slurm: SlurmConfig,
    /// The flags that shaped the view, for a Slurm payload to run with.
    pub view: ViewFlags,
    /// The workspace as our containers' labels spell it.
    workspace_label: String,
    /// This machine's engine, connected by the first run that needs it and shared by the rest (a
    /// connect, two version requests, took 40 ms of each campaign run's start; a lost daemon is
    /// reconnected by the run that finds it gone).
    local: tokio::sync::OnceCell<Engine>,
}

/// One thing a run reports, tagged with its id.
#[derive(Debug, Clone)]
pub struct JobEvent {
    pub run_id: RunId,
    pub event: RunEvent,
}

/// Where the executor's events go: called in order and must not block (see `RunSink`).
#[derive(Clone)]
pub struct Events(Arc<dyn Fn(JobEvent) + Send + Sync>);

impl Events {
    pub fn new(each: impl Fn(JobEvent) + Send + Sync + 'static) -> Events {
        Events(Arc::new(each))
    }

    /// Events sent on a channel, and its receiving end.
    pub fn channel() -> (Events, mpsc::UnboundedReceiver<JobEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Events::new(move |event| drop(tx.send(event))), rx)
    }

    pub fn send(&self, event: JobEvent) {
        (self.0)(event);
    }

    /// A run's own sink: its events tagged with its id, in order.
    fn of_run(&self, run_id: &RunId) -> RunSink {
        let (run_id, events) = (run_id.clone(), self.clone());
        Arc::new(move |event| events.send(JobEvent { run_id: run_id.clone(), event }))
    }
}

/// Where a run goes.
pub enum Target {
    /// Placement over `[[hosts]]` (this machine's engine with none), waiting while none fits.
    Anywhere,
    /// That `[[hosts]]` host, placement's checks overridden (`--host`, the confirm's choice, the
    /// host a cell's fixed image is on).
    Host(String),
    /// An engine already connected: the board's own, or the host a picked-up run runs on
    /// (`host`: its `[[hosts]]` name, `None` for this machine's).
    Engine { host: Option<String>, engine: Engine },
}

/// A run to carry out: its plan, where, from where (fresh or a container picked up), and the
/// switch that cancels it.
pub struct Ask {
    pub plan: RunPlan,
    pub target: Target,
    pub start: Start,
    pub cancel: watch::Receiver<bool>,
}

/// Why a run got no engine: it never reached a container, so it says nothing of the commit.
#[derive(Debug, thiserror::Error)]
pub enum Unplaced {
    #[error("cancelled while it waited for a host")]
    Cancelled,
    #[error(transparent)]
    Failed(#[from] PlaceError),
}

impl Executor {
    /// An executor for this machine's engine alone: no `[[hosts]]`, no Slurm.
    pub fn local(workspace: PathBuf, classifier: Arc<Classifier>, redactor: Redactor) -> Executor {
        Executor {
            workspace_label: workspace.display().to_string(),
            workspace,
            vllm_repo: None,
            redactor,
            classifier,
            hosts: Vec::new(),
            claims: Claims::default(),
            slurm: SlurmConfig::default(),
            view: ViewFlags::default(),
            local: tokio::sync::OnceCell::new(),
        }
    }

    /// The executor of a headless command's context.
    pub fn of(ctx: &crate::session::Context) -> Executor {
        let config = &ctx.config;
        Executor {
            workspace_label: ctx.workspace.display().to_string(),
            workspace: ctx.workspace.clone(),
            vllm_repo: config.runs.vllm_repo.clone(),
            redactor: ctx.redactor.clone(),
            classifier: Arc::new(Classifier::clone(&ctx.classifier)),
            hosts: config.hosts.clone(),
            claims: Claims::default(),
            slurm: config.slurm.clone(),
            view: ctx.view.clone(),
            local: tokio::sync::OnceCell::new(),
        }
    }

    /// Carry `ask` out to its end: placed, run on its engine from its start (the container gone
    /// when this returns), its claim on the host let go.
    pub async fn execute(&self, ask: Ask, events: &Events) -> Result<RunOutcome, Unplaced> {
        let Ask { plan, target, start, mut cancel } = ask;
        let (host, engine) = self.place(&plan, target, &mut cancel, events).await?;
        let plan = match start {
            Start::Fresh => image_there(plan, &engine, events).await,
            Start::Resume { .. } => plan, // its container exists: it goes on as launched
        };
        let env = self.env((engine, host), events.of_run(&plan.run_id), cancel);
        let outcome = crate::jobs::run::run(&plan, env, start).await;
        self.claims.release(&plan.run_id);
        Ok(outcome)
    }

    /// The engine for `plan`: tried again every `PLACE_AGAIN` while no host can take it (every
    /// slot busy, every host down), saying why each time, until one can or it is cancelled.
    async fn place(
        &self,
        plan: &RunPlan,
        target: Target,
        cancel: &mut watch::Receiver<bool>,
        events: &Events,
    ) -> Result<(Option<String>, Engine), Unplaced> {
        let chosen = match target {
            Target::Engine { host, engine } => return Ok((host, engine)),
            Target::Host(name) => Some(name),
            Target::Anywhere => None,
        };
        if self.hosts.is_empty() && chosen.is_none() {
            let local = self.local.get_or_try_init(Engine::connect).await.map_err(PlaceError::from)?;
            return Ok((None, local.clone()));
        }
        loop {
            match engine_for(self.placement(plan, chosen.as_deref())).await {
                Ok((host, engine)) => return Ok(self.placed(plan, host, engine, events)),
                Err(PlaceError::NoneFits(why)) => {
                    tell(events, &plan.run_id, RunPhase::Placing { why: why.to_string() });
                }
                Err(why) => return Err(why.into()),
            }
            tokio::select! {
                () = tokio::time::sleep(PLACE_AGAIN) => {}
                _ = cancel.wait_for(|c| *c) => return Err(Unplaced::Cancelled),
            }
        }
    }

    fn placement<'a>(&'a self, plan: &'a RunPlan, chosen: Option<&'a str>) -> Placement<'a> {
        Placement {
            hosts: &self.hosts,
            chosen,
            need: &plan.container.gpus,
            workspace: &self.workspace_label,
            claims: &self.claims,
            run_id: &plan.run_id,
        }
    }

    /// This machine's engine is no `[[hosts]]` host: only a host placed among them is named.
    fn placed(
        &self,
        plan: &RunPlan,
        host: String,
        engine: Engine,
        events: &Events,
    ) -> (Option<String>, Engine) {
        if self.hosts.is_empty() {
            return (None, engine);
        }
        tell(events, &plan.run_id, RunPhase::Placed { host: host.clone() });
        (Some(host), engine)
    }

    fn env(
        &self,
        (engine, host): (Engine, Option<String>),
        events: RunSink,
        cancel: watch::Receiver<bool>,
    ) -> RunEnv {
        RunEnv {
            engine,
            workspace: self.workspace.clone(),
            vllm_repo: self.vllm_repo.clone(),
            redactor: self.redactor.clone(),
            classifier: self.classifier.clone(),
            events,
            cancel,
            host,
        }
    }
}

fn tell(events: &Events, run_id: &RunId, phase: RunPhase) {
    events.send(JobEvent { run_id: run_id.clone(), event: RunEvent::Phase(phase) });
}

/// A plan in a fixed image only an engine could have made, which that engine no longer has
/// (removed since the fix): back in the image it stood in for, unfixed, and said — never a pull
/// of a name no registry holds (`RunPlan::unfixed_when_gone`).
async fn image_there(plan: RunPlan, engine: &Engine, events: &Events) -> RunPlan {
    if !plan.in_a_local_fixed_image() {
        return plan;
    }
    let Some(unfixed) = plan.unfixed_when_gone(&engine.has_image(&plan.image).await) else { return plan };
    tell(events, &plan.run_id, RunPhase::Unfixed { gone: plan.image.clone() });
    unfixed
}
