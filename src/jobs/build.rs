//! Running a baseline build: a container from the human image (memory-limited when configured),
//! each step of the plan as an exec with its output streamed and watched, the container's stats
//! sampled, a stall marked (never killed), the whole build under its timeout, the import check as
//! the only proof of success, and the commit with its labels. The container is always removed.

use crate::builds::{Action, BuildPlan, BuildStep, BuildWatch, Failure, FailureKind, Phase};
use crate::docker::{DockerError, Engine};
use crate::runs::{ContainerSpec, GpuRequest, LABEL_BUILD, LABEL_COMMIT, LABEL_WORKSPACE};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};

/// Labels of a built image (beside `baseline.parent_commit`, ISO-Bench's own).
pub const LABEL_PARENT: &str = "perftriage.build.parent_commit";

/// One build to run.
#[derive(Debug, Clone)]
pub struct BuildJob {
    pub plan: BuildPlan,
    pub checkout: PathBuf,
    pub workspace: String,
    pub stall_s: u64,
    pub memory_bytes: Option<i64>,
    /// Free disk the build needs: the expected image growth plus the reserve.
    pub needs_bytes: u64,
    /// Memory the suggestion may plan with when there is no container limit.
    pub machine_memory: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Docker(#[from] DockerError),
    #[error(transparent)]
    Git(#[from] crate::jobs::git::GitError),
    #[error("cannot pack the source for the container: {0}")]
    Pack(String),
}

/// What the caller is told while the build runs.
pub enum BuildEvent<'a> {
    /// Output of a step (and the tool's own marker lines), as it arrives.
    Output(&'a str),
    /// About once a second, and at each new phase.
    Status(&'a BuildWatch, f64),
}

#[derive(Debug, Clone, PartialEq)]
pub struct BuildReport {
    /// The committed image, or why there is none.
    pub outcome: Result<String, Failure>,
    pub duration_s: f64,
    pub peak_bytes: u64,
    pub warnings: u32,
    pub size_bytes: u64,
    /// After an OOM kill: a MAX_JOBS that should fit, and why.
    pub suggestion: Option<(u32, String)>,
}

struct Running<'a, F> {
    engine: &'a Engine,
    id: String,
    job: &'a BuildJob,
    watch: BuildWatch,
    started: Instant,
    stats: mpsc::UnboundedReceiver<(u64, f64)>,
    stall_marked: bool,
    size_bytes: u64,
    on: F,
}

/// Run the build; `cancel` turning true stops it (the container is removed either way).
pub async fn build<F: FnMut(BuildEvent)>(
    engine: &Engine,
    job: &BuildJob,
    cancel: watch::Receiver<bool>,
    mut on: F,
) -> Result<BuildReport, BuildError> {
    engine.ensure_room(&format!("building {}", job.plan.image), job.needs_bytes).await?;
    if !engine.has_image(&job.plan.from_image).await? {
        on(BuildEvent::Output(&format!("[perftriage] pulling {}\n", job.plan.from_image)));
        engine.pull(&job.plan.from_image, |_| {}).await?;
    }
    let id = engine.start(&spec(job)).await?;
    let stats = sample_stats(engine, &id);
    let (watch, started) = (BuildWatch::default(), Instant::now());
    let mut run = Running { engine, id, job, watch, started, stats, stall_marked: false, size_bytes: 0, on };
    let limit = Duration::from_secs(job.plan.knobs.timeout_s);
    let result = tokio::select! {
        r = tokio::time::timeout(limit, run.steps()) => r.unwrap_or_else(|_| Ok(Err(run.timed_out()))),
        () = cancelled(cancel) => Ok(Err(stopped())),
    };
    let _ = engine.remove(&run.id).await;
    Ok(run.report(result?))
}

fn stopped() -> Failure {
    Failure { kind: FailureKind::Cancelled, evidence: "stopped; the container is removed".into(), at: None }
}

async fn cancelled(mut cancel: watch::Receiver<bool>) {
    while !*cancel.borrow_and_update() {
        if cancel.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

fn spec(job: &BuildJob) -> ContainerSpec {
    let plan = &job.plan;
    ContainerSpec {
        name: format!("perftriage-build-{}-{}", plan.short, std::process::id()),
        image: plan.from_image.clone(),
        cmd: vec!["sleep".into(), "2000000".into()],
        env: Vec::new(),
        labels: HashMap::from([
            (LABEL_WORKSPACE.to_string(), job.workspace.clone()),
            (LABEL_COMMIT.to_string(), plan.short.to_string()),
            (crate::runs::LABEL_PID.to_string(), std::process::id().to_string()),
            (LABEL_BUILD.to_string(), plan.parent.clone()),
        ]),
        publish: None,
        gpus: GpuRequest::None,
        shm_bytes: 1 << 30,
        binds: Vec::new(),
        memory_bytes: job.memory_bytes,
    }
}

fn sample_stats(engine: &Engine, id: &str) -> mpsc::UnboundedReceiver<(u64, f64)> {
    use futures_util::StreamExt;
    let (tx, rx) = mpsc::unbounded_channel();
    let mut stream = Box::pin(engine.stats(id));
    tokio::spawn(async move {
        while let Some(sample) = stream.next().await {
            if tx.send(sample).is_err() {
                break;
            }
        }
    });
    rx
}

impl<F: FnMut(BuildEvent)> Running<'_, F> {
    fn now(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    fn say(&mut self, text: &str) {
        let now = self.now();
        self.watch.feed(text, now);
        (self.on)(BuildEvent::Output(text));
    }

    fn status(&mut self) {
        let now = self.now();
        (self.on)(BuildEvent::Status(&self.watch, now));
    }

    /// Every step in order; the image, or the failure of the step that failed.
    async fn steps(&mut self) -> Result<Result<String, Failure>, BuildError> {
        for step in self.job.plan.steps.clone() {
            let now = self.now();
            self.watch.enter(step.phase, now);
            self.say(&format!("[perftriage] {}\n", step.phase.name()));
            self.status();
            if let Some(failure) = self.step(&step).await? {
                return Ok(Err(failure));
            }
        }
        Ok(Ok(self.job.plan.image.to_string()))
    }

    async fn step(&mut self, step: &BuildStep) -> Result<Option<Failure>, BuildError> {
        let script = match &step.action {
            Action::Upload => return self.upload().await.map(|()| None),
            Action::Commit => return self.commit().await.map(|()| None),
            Action::Shell(script) if step.phase == Phase::Toolkit => script.clone(),
            Action::Shell(script) => format!("cd {} && {script}", self.job.plan.dir),
        };
        self.say(&format!("$ {script}\n"));
        let code = self.exec(vec!["sh".into(), "-c".into(), script]).await?;
        Ok((code != 0).then(|| self.watch.scan.verdict(code, step.phase == Phase::ImportCheck)))
    }

    /// Run a command, its output watched and passed on, stats and status kept up while it runs.
    async fn exec(&mut self, argv: Vec<String>) -> Result<i64, BuildError> {
        let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
        let (engine, id, env) = (self.engine.clone(), self.id.clone(), self.job.plan.env.clone());
        let exec =
            tokio::spawn(async move { engine.exec(&id, argv, env, |_, b| drop(tx.send(b.to_vec()))).await });
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tokio::select! {
                chunk = rx.recv() => match chunk {
                    Some(bytes) => self.say(&String::from_utf8_lossy(&bytes)),
                    None => break,
                },
                Some((memory, cpu)) = self.stats.recv() => self.watch.sample(memory, cpu),
                _ = tick.tick() => self.tick(),
            }
        }
        let done =
            exec.await.map_err(|e| DockerError::Api { action: "exec".into(), message: e.to_string() })??;
        Ok(done.exit_code.unwrap_or(-1))
    }

    /// The status, and a marker line once per quiet stretch longer than `stall_s`.
    fn tick(&mut self) {
        let now = self.now();
        match self.watch.stalled_for(now, self.job.stall_s as f64) {
            Some(quiet) if !self.stall_marked => {
                self.stall_marked = true;
                let line = format!(
                    "[perftriage] STALLED: no output for {} (marked, not stopped)\n",
                    crate::builds::duration(quiet)
                );
                let at = self.watch.last_line_s;
                self.say(&line);
                self.watch.last_line_s = at; // the marker is not progress
            }
            None => self.stall_marked = false,
            _ => {}
        }
        self.status();
    }

    async fn upload(&mut self) -> Result<(), BuildError> {
        let plan = &self.job.plan;
        let tar = crate::jobs::git::archive(&self.job.checkout, &plan.parent, ".", "").await?;
        let dir = plan.dir.clone();
        let made = self.exec(vec!["mkdir".into(), "-p".into(), dir.clone()]).await?;
        if made != 0 {
            return Err(BuildError::Pack(format!("cannot create {dir} in the container")));
        }
        let size = crate::builds::human_bytes(tar.len() as u64);
        self.engine.upload(&self.id, &dir, tar).await?;
        let line = format!(
            "git archive {} of {} ({size}) unpacked in {dir}\n",
            plan.parent,
            self.job.checkout.display()
        );
        self.say(&line);
        Ok(())
    }

    async fn commit(&mut self) -> Result<(), BuildError> {
        let plan = &self.job.plan;
        let needed = self.engine.diff_bytes(&self.id).await;
        self.engine.ensure_room(&format!("committing {}", plan.image), needed).await?;
        let (repo, tag) = split_image(&plan.image);
        let labels = labels(plan, self.now());
        let comment = format!("perftriage build of {} at {}", plan.short, plan.parent);
        self.engine.commit_labelled(&self.id, repo, tag, &comment, labels).await?;
        self.size_bytes = needed;
        let line = format!("committed {} ({} added)\n", plan.image, crate::builds::human_bytes(needed));
        self.say(&line);
        Ok(())
    }

    fn timed_out(&self) -> Failure {
        let limit = crate::builds::duration(self.job.plan.knobs.timeout_s as f64);
        Failure {
            kind: FailureKind::Timeout,
            evidence: format!("the build ran past its timeout ({limit}); stopped and removed"),
            at: None,
        }
    }

    fn report(mut self, outcome: Result<String, Failure>) -> BuildReport {
        while let Ok((memory, cpu)) = self.stats.try_recv() {
            self.watch.sample(memory, cpu);
        }
        let knobs = &self.job.plan.knobs;
        let room =
            self.job.memory_bytes.and_then(|m| u64::try_from(m).ok()).unwrap_or(self.job.machine_memory);
        let suggestion = matches!(&outcome, Err(f) if f.kind == FailureKind::Oom).then(|| {
            crate::builds::suggest_max_jobs(self.watch.peak_bytes, room, knobs.max_jobs, knobs.nvcc_threads)
        });
        BuildReport {
            duration_s: self.now(),
            peak_bytes: self.watch.peak_bytes,
            warnings: self.watch.progress.warnings,
            size_bytes: self.size_bytes,
            suggestion,
            outcome,
        }
    }
}

/// `host:5000/repo:tag` → (`host:5000/repo`, `tag`); no tag → `latest`.
pub fn split_image(image: &str) -> (&str, &str) {
    match image.rsplit_once(':') {
        Some((repo, tag)) if !tag.contains('/') => (repo, tag),
        _ => (image, "latest"),
    }
}

/// The label of an image a build committed: the commit it was built for.
pub const LABEL_BUILT_FOR: &str = "perftriage.build.commit";

fn labels(plan: &BuildPlan, duration_s: f64) -> HashMap<String, String> {
    HashMap::from([
        (LABEL_PARENT.to_string(), plan.parent.clone()),
        ("baseline.parent_commit".to_string(), plan.parent.clone()),
        (LABEL_BUILT_FOR.to_string(), plan.short.to_string()),
        ("perftriage.build.from".to_string(), plan.from_image.to_string()),
        ("perftriage.build.recipe".to_string(), plan.recipe_id()),
        ("perftriage.build.knobs".to_string(), serde_json::to_string(&plan.knobs).unwrap_or_default()),
        ("perftriage.build.duration_s".to_string(), format!("{duration_s:.0}")),
        ("perftriage.version".to_string(), env!("CARGO_PKG_VERSION").to_string()),
    ])
}
