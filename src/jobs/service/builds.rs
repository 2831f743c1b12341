//! The job service's baseline builds: planning one for the confirm, and running it with its log
//! on the line path into the log pane, its status about once a second, its outcome recorded in
//! this machine's build history and handed back for the triage history. A stopped build records
//! nothing.

use super::{JobService, ServiceError};
use crate::app::{BuildEnd, BuildStatus, JobError, JobMsg, Level, LogKey, Msg, Planned, Progress};
use crate::builds::{BuildWatch, FailureKind, KnobSet, Machine};
use crate::ids::Short;
use crate::jobs::build::{BuildEvent, BuildJob, BuildReport};
use crate::jobs::build_job::{BuildSettings, machine_of};
use crate::jobs::lines::LinePath;
use tokio::sync::mpsc::UnboundedSender;

/// A build's job and the confirm's lines, or why it cannot be built.
type Planning = Result<(BuildJob, Vec<String>), ServiceError>;

impl JobService {
    /// What a spawned task needs to make the job (the service itself stays on the loop).
    fn planner(&self) -> impl Fn(&str, &KnobSet, Machine) -> Planning + Send + 'static {
        let s = &self.setup;
        let settings = BuildSettings::new(&s.build, &s.config, &s.images, &s.exec.workspace);
        let commits = self.commits.clone();
        move |short, knobs, machine| {
            let commit = commits.get(short).ok_or_else(|| ServiceError::NotInDataset(short.to_string()))?;
            let job = settings.job(&commit, knobs, machine)?;
            let lines = settings.describe(&job, knobs, machine);
            Ok((job, lines))
        }
    }

    /// Answer with `Planned::Build`: the confirm's lines, or why it cannot be built.
    pub fn plan_build(&self, short: Short, knobs: KnobSet) {
        let (engine, tx, planner) = (self.engine(), self.tx.clone(), self.planner());
        tokio::spawn(async move {
            let machine = machine_of(engine.as_ref()).await;
            let plan = planner(&short, &knobs, machine).map(|(_, lines)| lines).map_err(JobError::from);
            let _ = tx.send(Msg::Job(JobMsg::Planned(Planned::Build { short, knobs, plan })));
        });
    }

    /// Run the build; its log goes to the pane `log`.
    pub fn start_build(&mut self, short: Short, knobs: KnobSet, log: LogKey) {
        let Some(engine) = self.engine() else {
            return not_run(&self.tx, short, "Docker is not connected");
        };
        let cancel = self.switch_for(crate::app::JobKey::Build(short.clone()));
        let (planner, setup, tx) = (self.planner(), self.setup.clone(), self.tx.clone());
        tokio::spawn(async move {
            let job = match planner(&short, &knobs, machine_of(Some(&engine)).await) {
                Ok((job, _)) => job,
                Err(why) => return not_run(&tx, short, &why.to_string()),
            };
            let spool = crate::jobs::build_job::log_path(&job);
            let mut lines =
                match LinePath::create(&spool, setup.exec.redactor.clone(), setup.exec.classifier.clone()) {
                    Ok(lines) => lines,
                    Err(e) => return not_run(&tx, short, &format!("cannot create {}: {e}", spool.display())),
                };
            let report = crate::jobs::build::build(&engine, &job, cancel, |event| match event {
                BuildEvent::Output(text) => {
                    super::forward(
                        &tx,
                        &log,
                        lines.ingest(crate::logs::Stream::Stdout, text.as_bytes()),
                        false,
                    );
                }
                BuildEvent::Status(watch, now) => status(&tx, &short, watch, now, job.stall_s as f64),
            })
            .await;
            super::forward(&tx, &log, lines.finish(), true);
            match report {
                Ok(report) => {
                    finished(&tx, &setup.exec.workspace, &job, &report, spool.display().to_string())
                }
                Err(why) => not_run(&tx, short, &why.to_string()),
            }
        });
    }
}

fn status(tx: &UnboundedSender<Msg>, short: &str, watch: &BuildWatch, now: f64, stall_s: f64) {
    let phase = watch.phase.map_or("starting", crate::builds::Phase::name).to_string();
    let fraction = watch.progress.fraction();
    let status = watch.status(now, stall_s);
    let progress = Progress::Build(BuildStatus { phase, fraction, status });
    let _ = tx.send(Msg::Job(JobMsg::Progress { job: crate::app::JobKey::Build(short.into()), progress }));
}

/// It did not get to build (no room, no image, Docker gone): said, nothing recorded.
fn not_run(tx: &UnboundedSender<Msg>, short: Short, why: &str) {
    let _ = tx.send(Msg::Notice(Level::Error, format!("build of {short} not run: {why}")));
    let lines = vec![format!("build FAILED before it ran: {why}")];
    let end = BuildEnd { change: None, lines, suggested_jobs: None };
    let _ = tx.send(Msg::Job(JobMsg::build_ended(short, end)));
}

fn finished(
    tx: &UnboundedSender<Msg>,
    workspace: &std::path::Path,
    job: &BuildJob,
    report: &BuildReport,
    log: String,
) {
    let short = job.plan.short.clone();
    let lines = crate::jobs::build_job::outcome_lines(job, report);
    let stopped = matches!(&report.outcome, Err(f) if f.kind == FailureKind::Cancelled);
    let change = (!stopped).then(|| {
        let record = crate::jobs::build_job::record(job, report);
        if let Err(e) = crate::builds::history::append(workspace, &record) {
            log::warn!("cannot record the build in the history: {e}");
        }
        crate::jobs::build_job::change(job, report, &record, Some(log))
    });
    let suggested_jobs = report.suggestion.as_ref().map(|(jobs, _)| *jobs);
    let _ = tx.send(Msg::Job(JobMsg::build_ended(short, BuildEnd { change, lines, suggested_jobs })));
}
