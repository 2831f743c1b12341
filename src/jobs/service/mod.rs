//! The board's job service: executes what `update` decided — starts a run (plan, container, logs),
//! cancels one, writes a finished run's result file, probes and applies fixes — and reports back
//! with messages. It keeps the Docker connection alive with backoff, reports running containers
//! of ours whose perftriage is gone (for `update` to pick up) and resumes them when asked. The
//! queue and the concurrency limit are the model's.

mod builds;
mod campaigns;
mod connection;
mod fixes;
mod images;
mod recording;
mod runner;
mod slurm_runs;

use super::run::Start;
use crate::app::{JobError, JobKey, JobMsg, Level, LogKey, LogMsg, Msg, Planned};
use crate::dataset::{Commit, CommitIndex, ImageTemplates, Variant};
use crate::docker::Engine;
use crate::fixes::RecipeBook;
use crate::ids::Short;
use crate::runs::{Failure, FailureKind, Planning, RunConfig, RunId, RunPlan, RunRequest, launch_plan, plan};
use crate::telemetry::GpuSummary;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::{mpsc::UnboundedSender, oneshot, watch};

use crate::jobs::executor::{Ask, Target};
use runner::{remove_anywhere, spawn_run};

pub use connection::reattach;
pub use fixes::Probe;
pub use recording::Recording;

/// The engine, when connected; shared by the connection task and the jobs it starts.
type EngineSlot = Arc<RwLock<Option<Engine>>>;

pub struct JobService {
    engine: EngineSlot,
    setup: Arc<JobSetup>,
    /// The dataset's commits by short hash, shared with the document reader and build planners.
    commits: CommitIndex,
    /// The cancel switch of each live job: runs, fixes and builds in one map.
    cancels: HashMap<JobKey, watch::Sender<bool>>,
    /// Each finished run waits here for the GPU summary its result file gets.
    results: HashMap<RunId, oneshot::Sender<Option<GpuSummary>>>,
    tx: UnboundedSender<Msg>,
    /// Fixes run one at a time.
    fix_lock: Arc<tokio::sync::Mutex<()>>,
    /// The campaign runs whose result files were handed to the board.
    campaign_results: Arc<std::sync::Mutex<std::collections::HashSet<RunId>>>,
}

/// What the service is built from.
pub struct JobSetup {
    /// Every run's executor: workspace, redactor, classifier, `[[hosts]]` and their claims, Slurm.
    pub exec: crate::jobs::executor::Executor,
    pub config: RunConfig,
    pub images: ImageTemplates,
    pub recipes: RecipeBook,
    pub fixed_repo: String,
    /// Where `p` in the images view pushes.
    pub registry: crate::config::RegistryConfig,
    /// `[build]`: baseline builds' knobs.
    pub build: crate::builds::BuildConfig,
    /// The runs ended and not yet recorded, for a board that quits to wait on.
    pub recording: Recording,
}

/// Why the job service cannot do what the board asked.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("{0} is not in the dataset")]
    NotInDataset(String),
    #[error("Docker is not connected")]
    NoDocker,
    #[error(transparent)]
    Plan(#[from] crate::runs::PlanError),
    #[error(transparent)]
    Build(#[from] crate::jobs::build_job::BuildJobError),
    #[error(transparent)]
    Docker(#[from] crate::docker::DockerError),
    #[error(transparent)]
    Registry(#[from] crate::docker::registry::NoRegistry),
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Removal(Vec<crate::docker::DockerError>),
}

impl JobService {
    pub fn new(setup: JobSetup, commits: CommitIndex, tx: UnboundedSender<Msg>) -> JobService {
        JobService {
            engine: EngineSlot::default(),
            setup: Arc::new(setup),
            commits,
            cancels: HashMap::new(),
            results: HashMap::new(),
            campaign_results: Arc::default(),
            tx,
            fix_lock: Arc::default(),
        }
    }

    /// Follow again a Slurm job found at start (`[slurm] board`) under its own run id, with the
    /// plan its launch record holds (never planned again: a job without a record is not followed).
    pub fn follow_job(&mut self, run_id: &RunId, job_id: u64) {
        let plan = match crate::jobs::launches::read(&self.setup.exec.workspace, run_id) {
            Ok(launch) => launch.plan,
            Err(why) => {
                let why = format!("Slurm job {job_id} is not followed: {why}; `scancel {job_id}` stops it");
                return self.fail(run_id, Failure::new(FailureKind::ToolError, why));
            }
        };
        let (cancel, _) = self.switches(run_id);
        slurm_runs::follow_again((self.setup.clone(), self.tx.clone()), plan, job_id, cancel);
    }

    /// Keep a Docker connection for as long as the board runs (see `connection`).
    pub fn connect_forever(&self) {
        if self.setup.exec.slurm.board {
            slurm_runs::find_ours(&self.setup, &self.tx);
        }
        connection::spawn(self.engine.clone(), self.setup.clone(), self.tx.clone());
        if !self.setup.exec.hosts.is_empty() {
            connection::watch_hosts(self.setup.clone(), self.tx.clone());
        }
    }

    fn engine(&self) -> Option<Engine> {
        self.engine.read().ok().and_then(|e| e.clone())
    }

    fn commit(&self, short: &str) -> Result<Commit, ServiceError> {
        self.commits.get(short).ok_or_else(|| ServiceError::NotInDataset(short.to_string()))
    }

    fn plan(&self, run_id: &RunId, short: &str, variant: Variant) -> Result<RunPlan, ServiceError> {
        let (commit, s) = (self.commit(short)?, &self.setup);
        Ok(plan(&commit, variant, &s.config, &s.images, &s.exec.workspace, run_id)?)
    }

    /// The plan a run will have: the same for the confirm and the executor.
    fn planned(&self, run_id: &RunId, request: &RunRequest) -> Result<RunPlan, ServiceError> {
        let (commit, s) = (self.commit(&request.short)?, &self.setup);
        let on = Planning { config: &s.config, images: &s.images, workspace: &s.exec.workspace };
        Ok(launch_plan((&commit, request.variant), run_id, on, request.ask())?)
    }

    /// Describe the runs a confirm asks about, from their plans — as they will run: one whose
    /// local fixed image the engine no longer has runs unfixed, and the confirm says so.
    pub fn preview(&self, short: &str, requests: &[RunRequest]) {
        let planned: Vec<_> =
            requests.iter().map(|r| (r.variant, self.planned(&"preview".into(), r))).collect();
        let (tx, short) = (self.tx.clone(), Short::from(short));
        let fixed = planned.iter().any(|(_, p)| p.as_ref().is_ok_and(RunPlan::in_a_local_fixed_image));
        match (self.engine(), fixed) {
            (Some(engine), true) => drop(tokio::spawn(async move {
                let mut planned = planned;
                let mut gone = Vec::new();
                for (variant, plan) in planned.iter_mut() {
                    let Ok(p) = plan.as_mut() else { continue };
                    if !p.in_a_local_fixed_image() {
                        continue;
                    }
                    if let Some(unfixed) = p.unfixed_when_gone(&engine.has_image(&p.image).await) {
                        gone.push((*variant, p.image.clone()));
                        *p = unfixed;
                    }
                }
                described(&tx, short, planned, &gone);
            })),
            _ => described(&tx, short, planned, &[]),
        }
    }

    /// Start a run now: `update` found it a slot.
    pub fn start(&mut self, run_id: &RunId, request: RunRequest) {
        let plan = match self.planned(run_id, &request) {
            Ok(plan) => plan,
            Err(why) => return self.fail(run_id, Failure::new(FailureKind::PlanError, why.to_string())),
        };
        log::info!("run {run_id}: {} {} in {}", request.short, request.variant.name(), plan.image);
        if self.setup.exec.slurm.board {
            let gpus = self.commits.get(&request.short).map_or(0, |c| c.gpu_count());
            let (cancel, _) = self.switches(run_id);
            return slurm_runs::launch((self.setup.clone(), self.tx.clone()), plan, gpus, cancel);
        }
        let target = match (request.host, self.setup.exec.hosts.is_empty(), self.engine()) {
            (Some(host), _, _) => Target::Host(host),
            (None, false, _) => Target::Anywhere,
            (None, true, Some(engine)) => Target::Engine { host: None, engine },
            (None, true, None) => {
                let why = "Docker is not connected";
                return self.fail(run_id, Failure::new(FailureKind::DockerUnreachable, why));
            }
        };
        self.execute(plan, target, Start::Fresh);
    }

    /// Pick up a running container of ours (found after a restart) with the plan its launch
    /// record holds — never planned again from today's config — on the `[[hosts]]` engine it runs
    /// on when it is on one.
    pub fn resume(&mut self, plan: RunPlan, start: Start, host: Option<&str>) {
        let target = match (host, self.engine()) {
            (Some(host), _) => Target::Host(host.to_string()),
            (None, Some(engine)) => Target::Engine { host: None, engine },
            (None, None) => {
                let why = "Docker is not connected";
                return self.fail(&plan.run_id, Failure::new(FailureKind::DockerUnreachable, why));
            }
        };
        self.execute(plan, target, start);
    }

    /// Hand the run to the executor, with its cancel switch and the channel its GPU use comes on.
    fn execute(&mut self, plan: RunPlan, target: Target, start: Start) {
        let (cancel, gpu) = self.switches(&plan.run_id);
        let ask = Ask { plan, target, start, cancel };
        spawn_run((self.setup.clone(), self.tx.clone()), ask, gpu);
    }

    /// The run's cancel switch and the channel its GPU summary comes back on.
    fn switches(&mut self, run_id: &RunId) -> (watch::Receiver<bool>, oneshot::Receiver<Option<GpuSummary>>) {
        let (switch, cancel) = watch::channel(false);
        self.cancels.insert(JobKey::Run(run_id.clone()), switch);
        let (gpu_tx, gpu_rx) = oneshot::channel();
        self.results.insert(run_id.clone(), gpu_tx);
        (cancel, gpu_rx)
    }

    /// A run that could not start: it fails at once, so its slot is freed.
    fn fail(&self, run_id: &RunId, failure: Failure) {
        runner::failed(&self.tx, run_id, failure);
    }

    /// Stop a live job: its switch is thrown (its task removes what it started and reports its
    /// end); a campaign's run is asked of its driver.
    pub fn cancel(&mut self, job: &JobKey) {
        log::info!("{job:?}: cancel asked");
        let thrown = self.cancels.remove(job).is_some_and(|switch| switch.send(true).is_ok());
        match job {
            // A run this board did not start (a re-attached one), or whose task has ended, is
            // removed by its label.
            JobKey::Run(run_id) if !thrown => {
                connection::remove_by_run(self.engine(), &self.setup, run_id, self.tx.clone())
            }
            JobKey::CampaignRun(name, run_id) => self.cancel_campaign_run(name, run_id.clone()),
            _ => {}
        }
    }

    /// The cancel switch a new job's task watches.
    fn switch_for(&mut self, job: JobKey) -> watch::Receiver<bool> {
        let (switch, cancel) = watch::channel(false);
        self.cancels.insert(job, switch);
        cancel
    }

    /// Stop and remove containers by id, saying how it went.
    pub fn remove_containers(&self, ids: Vec<String>) {
        let (main, hosts, tx) = (self.engine(), self.setup.exec.hosts.clone(), self.tx.clone());
        tokio::spawn(async move {
            // An id is on one of the engines (the main one, or a `[[hosts]]` one).
            let engines = connection::every_engine(main, &hosts).await;
            let mut failed = Vec::new();
            for id in &ids {
                if let Err(why) = remove_anywhere(&engines, id).await {
                    failed.push(format!("{}: {why}", &id[..12.min(id.len())]));
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
    pub fn write_result(&mut self, run_id: &RunId, gpu: Option<GpuSummary>) {
        self.cancels.remove(&JobKey::Run(run_id.clone()));
        if let Some(waiting) = self.results.remove(run_id) {
            let _ = waiting.send(gpu);
        }
    }

    /// Before the board goes: every ended run's result file written, those the board had not
    /// asked for yet with the GPU use `gpu` gives, waiting at most `patience`; whether all were.
    /// Runs still going are left as they are (their launch records pick them up).
    pub async fn record_ended(
        &mut self,
        gpu: impl Fn(&RunId) -> Option<GpuSummary>,
        patience: Duration,
    ) -> bool {
        for (run_id, waiting) in self.results.drain() {
            let _ = waiting.send(gpu(&run_id));
        }
        self.setup.recording.settled(patience).await
    }
}

/// Decoded lines of a job's log (a fix's, a build's) to its log pane `key`.
pub(super) fn forward(
    tx: &UnboundedSender<Msg>,
    key: &LogKey,
    lines: std::io::Result<Vec<crate::logs::Line>>,
    finished: bool,
) {
    let lines = lines.unwrap_or_default();
    let _ = tx.send(Msg::Log(LogMsg::Lines { key: key.clone(), lines, skipped: 0, finished }));
}

/// The confirm's description of each plan, with the check that they measure one workload.
/// `gone`: the variants whose fixed image is gone, and that image.
fn described(
    tx: &UnboundedSender<Msg>,
    short: Short,
    planned: Vec<(Variant, Result<RunPlan, ServiceError>)>,
    gone: &[(Variant, crate::ids::ImageRef)],
) {
    let ok: Vec<&RunPlan> = planned.iter().filter_map(|(_, p)| p.as_ref().ok()).collect();
    let check = crate::runs::one_workload(&ok);
    let said = |v: Variant, mut lines: Vec<String>| {
        let fixed = gone.iter().find(|(g, _)| *g == v).map(|(_, image)| image);
        lines
            .extend(fixed.map(|i| format!("  its fixed image {i} is gone from the engine: it runs unfixed")));
        lines
    };
    let mut plans: Vec<_> = planned
        .into_iter()
        .map(|(v, p)| (v, p.map(|p| said(v, p.describe())).map_err(JobError::from)))
        .collect();
    if let Some((_, Ok(last))) = plans.iter_mut().rev().find(|(_, p)| p.is_ok()) {
        last.push(format!("  {check}"));
    }
    let _ = tx.send(Msg::Job(JobMsg::Planned(Planned::Runs { short, plans })));
}
