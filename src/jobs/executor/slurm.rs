//! A run as a Slurm job, for every front end: its batch script and launch record written and
//! submitted (`submit`); followed to its end (`follow`) — each state a phase, the payload's
//! `perftriage run --json` line events into the run's server and benchmark spools through the
//! one line path — and its result file copied back from the shared directory and read.

use super::{Events, Executor, JobEvent, tell};
use crate::classify::Verdict;
use crate::dataset::Variant;
use crate::ids::{RunId, Short};
use crate::jobs::lines::LinePath;
use crate::jobs::run::RunEvent;
use crate::jobs::slurm::{SlurmCommandError, Submitted};
use crate::logs::Stream;
use crate::runs::{Pane, RunPhase, RunPlan, SlurmError, SlurmJobState, job_script};
use std::path::PathBuf;
use tokio::sync::watch;

/// Why a run could not become a job.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    #[error(transparent)]
    Script(#[from] SlurmError),
    #[error(transparent)]
    Slurm(#[from] SlurmCommandError),
    #[error(transparent)]
    Launch(#[from] crate::jobs::launches::WriteError),
}

/// What a cancel asked while a job is followed does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OnCancel {
    /// `scancel` the job (its payload removes its container) and follow it to its end.
    Scancel,
    /// Stop following and leave the job running (a campaign that stops picks it up again).
    Leave,
}

/// How a followed job ended.
#[derive(Debug)]
pub enum JobEnd {
    /// Its result file, copied into this workspace, and what it holds.
    Read { copy: PathBuf, record: serde_json::Value },
    /// It ended without a readable result file (a node failure, a payload that never started).
    NoResult { why: String },
    /// It was cancelled with `scancel`.
    Cancelled,
    /// Slurm could not say how it went.
    Lost(SlurmCommandError),
    /// It was left running (`OnCancel::Leave`).
    Left,
}

/// A run's job, as following it needs: whose run it is and where its files are.
pub struct JobRun<'a> {
    pub run_id: &'a RunId,
    pub short: &'a Short,
    pub variant: Variant,
    pub job: &'a Submitted,
}

impl<'a> JobRun<'a> {
    pub fn of(plan: &'a RunPlan, job: &'a Submitted) -> JobRun<'a> {
        JobRun { run_id: &plan.run_id, short: &plan.short, variant: plan.variant, job }
    }
}

/// A followed job: how it ended, and the verdict over its payload's log.
#[derive(Debug)]
pub struct Followed {
    pub end: JobEnd,
    pub verdict: Option<Verdict>,
}

impl Executor {
    /// Write `plan`'s batch script (asking for `commit_gpus`) and launch record, and submit it.
    pub async fn submit(&self, plan: &RunPlan, commit_gpus: u32) -> Result<Submitted, SubmitError> {
        let script = job_script(&self.slurm, plan, commit_gpus, &self.view)?;
        let shared = self.slurm.shared_dir.clone().ok_or(SlurmError::NoSharedDir)?;
        // The image is pulled on the node: its digest is the payload's to record.
        crate::jobs::launches::write(&self.workspace, plan, None, None)?;
        let job = crate::jobs::slurm::submit(&shared.join(&plan.run_id), &script).await?;
        log::info!("run {}: Slurm job {} submitted", plan.run_id, job.job_id);
        Ok(job)
    }

    /// The job of run `run_id` with this id, in the shared directory.
    pub fn job_of(&self, run_id: &RunId, job_id: u64) -> Submitted {
        let shared = self.slurm.shared_dir.clone().unwrap_or_default();
        Submitted { job_id, dir: shared.join(run_id) }
    }

    /// Follow `job` to its end, its states and payload lines to `events`; then its result.
    pub async fn follow(
        &self,
        run: JobRun<'_>,
        cancel: (watch::Receiver<bool>, OnCancel),
        events: &Events,
    ) -> Followed {
        let mut output = PayloadOutput::create(self, &run);
        let forward = |bytes: &[u8]| {
            for (pane, lines) in output.feed(bytes) {
                events.send(JobEvent { run_id: run.run_id.clone(), event: RunEvent::Lines { pane, lines } });
            }
        };
        let on_state = |s: &SlurmJobState| {
            let phase = RunPhase::Slurm { job_id: s.job_id, state: s.describe(), node: s.nodes.clone() };
            tell(events, run.run_id, phase);
        };
        let following = crate::jobs::slurm::follow(run.job, on_state, forward);
        let Some((last, scancelled)) = until_cancelled(&run, following, cancel).await else {
            return Followed { end: JobEnd::Left, verdict: None };
        };
        let verdict = output.finish();
        let end = match last {
            _ if scancelled => JobEnd::Cancelled,
            Err(why) => JobEnd::Lost(why),
            Ok(last) => self.read_back(&run, last.as_ref()),
        };
        Followed { end, verdict }
    }

    /// The payload's result file copied into this workspace's results and read.
    fn read_back(&self, run: &JobRun, last: Option<&SlurmJobState>) -> JobEnd {
        let job = run.job;
        let (found, copied) = job.copy_result(run.short, run.variant, &self.workspace);
        let read = copied
            .ok()
            .and_then(|copy| Some((serde_json::from_slice(&std::fs::read(&copy).ok()?).ok()?, copy)));
        match read {
            Some((record, copy)) => JobEnd::Read { copy, record },
            None => {
                let state = last.map_or("gone from the queue".into(), SlurmJobState::describe);
                let why = format!(
                    "Slurm job {} ended ({state}) without a result file in {}",
                    job.job_id,
                    found.display()
                );
                JobEnd::NoResult { why }
            }
        }
    }
}

/// The job followed to its end, a cancel asked meanwhile answered by `on_cancel`: the last state
/// seen and whether it was `scancel`led; `None` when it was left running.
async fn until_cancelled(
    run: &JobRun<'_>,
    following: impl std::future::Future<Output = Result<Option<SlurmJobState>, SlurmCommandError>>,
    (mut cancel, on_cancel): (watch::Receiver<bool>, OnCancel),
) -> Option<(Result<Option<SlurmJobState>, SlurmCommandError>, bool)> {
    tokio::pin!(following);
    tokio::select! {
        last = &mut following => Some((last, false)),
        () = asked(&mut cancel) => {
            if on_cancel == OnCancel::Leave {
                return None;
            }
            if let Err(why) = crate::jobs::slurm::cancel(run.job.job_id).await {
                log::warn!("run {}: scancel {}: {why}", run.run_id, run.job.job_id);
            }
            Some((following.await, true))
        }
    }
}

/// A cancel asked (never: a switch dropped unused).
async fn asked(cancel: &mut watch::Receiver<bool>) {
    if cancel.wait_for(|c| *c).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// The payload's output file: `perftriage run --json` events, one a line. A `line` event's text
/// goes to its pane; anything else (Slurm's own words, a crash) to the server pane as it is.
struct PayloadOutput {
    partial: Vec<u8>,
    server: Option<LinePath>,
    bench: Option<LinePath>,
}

impl PayloadOutput {
    fn create(exec: &Executor, run: &JobRun) -> PayloadOutput {
        let dir = exec.workspace.join("logs").join(run.short).join(run.variant.name());
        let path = |pane: Pane| {
            let spool = dir.join(format!("{}-{}.log", run.run_id, pane.name()));
            LinePath::create(&spool, exec.redactor.clone(), exec.classifier.clone()).ok()
        };
        PayloadOutput { partial: Vec::new(), server: path(Pane::Server), bench: path(Pane::Benchmark) }
    }

    /// The lines each pane got from `bytes` (a last unfinished line waits for the rest).
    fn feed(&mut self, bytes: &[u8]) -> Vec<(Pane, Vec<crate::logs::Line>)> {
        self.partial.extend_from_slice(bytes);
        let Some(end) = self.partial.iter().rposition(|b| *b == b'\n') else { return Vec::new() };
        let whole: Vec<u8> = self.partial.drain(..=end).collect();
        let (mut server, mut bench) = (Vec::new(), Vec::new());
        for line in whole.split_inclusive(|b| *b == b'\n') {
            match read_payload(line) {
                Payload::Text(Pane::Benchmark, text) => bench.extend_from_slice(text.as_bytes()),
                Payload::Text(Pane::Server, text) => server.extend_from_slice(text.as_bytes()),
                Payload::Event => {}
                Payload::Raw => server.extend_from_slice(line),
            }
        }
        let take = |path: &mut Option<LinePath>, bytes: &[u8]| {
            path.as_mut().and_then(|p| p.ingest(Stream::Stdout, bytes).ok()).unwrap_or_default()
        };
        vec![
            (Pane::Server, take(&mut self.server, &server)),
            (Pane::Benchmark, take(&mut self.bench, &bench)),
        ]
    }

    /// Both panes ended; the verdict over the server's lines, else the benchmark's.
    fn finish(&mut self) -> Option<Verdict> {
        let verdict =
            |path: &mut Option<LinePath>| path.as_mut().and_then(|p| p.finish().ok().and(p.verdict()));
        let server = verdict(&mut self.server);
        server.or_else(|| verdict(&mut self.bench))
    }
}

/// One line of the payload's output.
enum Payload {
    /// A `line` event: its pane and text (with its newline).
    Text(Pane, String),
    /// Another event (a phase): the job's state is followed instead.
    Event,
    /// Not an event.
    Raw,
}

fn read_payload(line: &[u8]) -> Payload {
    let Ok(event) = serde_json::from_slice::<serde_json::Value>(line) else { return Payload::Raw };
    match (event["event"].as_str(), event["text"].as_str()) {
        (Some("line"), Some(text)) => {
            let pane = if event["pane"] == "bench" { Pane::Benchmark } else { Pane::Server };
            Payload::Text(pane, format!("{text}\n"))
        }
        (Some(_), _) => Payload::Event,
        _ => Payload::Raw,
    }
}
