//! The board's runs as Slurm jobs (`[slurm] board = true`): the run's batch script submitted, the
//! job followed (each state to the board; the payload's line events from its output file into the
//! server and benchmark panes through the one line path), a cancel answered with `scancel` (the
//! payload removes its container on the signal), and at the end the payload's result copied from
//! the shared directory into this workspace and read back like any other result file.

use super::JobSetup;
use crate::app::{Msg, RunMsg};
use crate::classify::Verdict;
use crate::dataset::{Outcome, RunStatus};
use crate::ids::Short;
use crate::jobs::lines::LinePath;
use crate::jobs::slurm::{SlurmCommandError, Submitted, cancel, follow, submit};
use crate::logs::Stream;
use crate::runs::{FailureKind, Pane, RunId, RunPhase, RunPlan, SlurmError, SlurmJobState, job_script};
use std::sync::Arc;
use tokio::sync::{mpsc::UnboundedSender, watch};

/// Submit `plan` as a job asking for `commit_gpus` and follow it to its end.
pub(super) fn launch(
    (setup, tx): (Arc<JobSetup>, UnboundedSender<Msg>),
    plan: RunPlan,
    commit_gpus: u32,
    cancelled: watch::Receiver<bool>,
) {
    tokio::spawn(async move {
        let to = Board { tx, run_id: plan.run_id.clone() };
        let job = match submitted(&setup, &plan, commit_gpus).await {
            Ok(job) => job,
            Err(why) => return to.failed(FailureKind::ToolError, why.to_string()),
        };
        to.phase(RunPhase::Slurm { job_id: job.job_id, state: "submitted".into(), node: String::new() });
        follow_to_the_end(&setup, &plan, &job, &to, cancelled).await;
    });
}

/// A job found again at start: followed as if this board had just submitted it.
pub(super) fn follow_again(
    (setup, tx): (Arc<JobSetup>, UnboundedSender<Msg>),
    plan: RunPlan,
    job_id: u64,
    cancelled: watch::Receiver<bool>,
) {
    let Some(shared) = setup.slurm.shared_dir.clone() else { return };
    let job = Submitted { job_id, dir: shared.join(&plan.run_id) };
    tokio::spawn(async move {
        let to = Board { tx, run_id: plan.run_id.clone() };
        follow_to_the_end(&setup, &plan, &job, &to, cancelled).await;
    });
}

async fn follow_to_the_end(
    setup: &JobSetup,
    plan: &RunPlan,
    job: &Submitted,
    to: &Board,
    cancelled: watch::Receiver<bool>,
) {
    let (last, verdict) = watch_job(setup, plan, job, to, cancelled.clone()).await;
    // Whatever happens now, this job is done with: not found again at the next start.
    let _ = crate::files::write(&job.dir.join(READ_BACK), b"");
    if *cancelled.borrow() {
        to.phase(RunPhase::Cancelled);
        let outcome = Outcome::not_run();
        return to.send(RunMsg::Finished { run_id: to.run_id.clone(), outcome, verdict: None });
    }
    read_back(setup, plan, job, last, verdict, to);
}

/// In a run's shared directory: which board submitted it (`Mine`), and that it has been read back.
const MINE: &str = "board.json";
const READ_BACK: &str = "read-back";

#[derive(serde::Serialize, serde::Deserialize)]
struct Mine {
    workspace: String,
    run_id: RunId,
    short: Short,
    variant: String,
    job_id: u64,
}

/// The jobs this workspace's board submitted and never read back (it was left with them
/// running): each reported to be followed again.
pub(super) fn find_ours(setup: &JobSetup, tx: &UnboundedSender<Msg>) {
    let Some(shared) = &setup.slurm.shared_dir else { return };
    let workspace = setup.workspace.display().to_string();
    for dir in std::fs::read_dir(shared).into_iter().flatten().flatten().map(|e| e.path()) {
        let text = std::fs::read_to_string(dir.join(MINE)).unwrap_or_default();
        let Ok(mine) = serde_json::from_str::<Mine>(&text) else { continue };
        let Some(variant) = crate::dataset::Variant::parse(&mine.variant) else { continue };
        if mine.workspace == workspace && !dir.join(READ_BACK).exists() {
            let (run_id, short, job_id) = (mine.run_id, mine.short, mine.job_id);
            let _ = tx.send(Msg::Run(RunMsg::FoundJob { run_id, short, variant, job_id }));
        }
    }
}

/// Why a run could not become a job this board follows.
#[derive(Debug, thiserror::Error)]
enum SubmitError {
    #[error(transparent)]
    Script(#[from] SlurmError),
    #[error(transparent)]
    Slurm(#[from] SlurmCommandError),
    #[error(transparent)]
    Launch(#[from] crate::jobs::launches::WriteError),
    #[error("cannot record job {job_id} in {}: {source}", path.display())]
    Record { job_id: u64, path: std::path::PathBuf, source: std::io::Error },
}

async fn submitted(setup: &JobSetup, plan: &RunPlan, commit_gpus: u32) -> Result<Submitted, SubmitError> {
    let script = job_script(&setup.slurm, plan, commit_gpus, &setup.view)?;
    let shared = setup.slurm.shared_dir.clone().ok_or(SlurmError::NoSharedDir)?;
    // The image is pulled on the node: its digest is the payload's to record.
    crate::jobs::launches::write(&setup.workspace, plan, None, None)?;
    let job = submit(&shared.join(&plan.run_id), &script).await?;
    log::info!("run {}: Slurm job {} submitted", plan.run_id, job.job_id);
    let mine = Mine {
        workspace: setup.workspace.display().to_string(),
        run_id: plan.run_id.clone(),
        short: plan.short.clone(),
        variant: plan.variant.name().to_string(),
        job_id: job.job_id,
    };
    let text = serde_json::to_string(&mine).map_err(std::io::Error::other);
    let path = job.dir.join(MINE);
    let written = text.and_then(|text| crate::files::write(&path, text.as_bytes()));
    written.map_err(|source| SubmitError::Record { job_id: job.job_id, path, source })?;
    Ok(job)
}

/// Where a run's messages go.
struct Board {
    tx: UnboundedSender<Msg>,
    run_id: RunId,
}

impl Board {
    fn send(&self, msg: RunMsg) {
        let _ = self.tx.send(Msg::Run(msg));
    }

    fn phase(&self, phase: RunPhase) {
        self.send(RunMsg::Phase { run_id: self.run_id.clone(), phase });
    }

    fn failed(&self, category: FailureKind, message: String) {
        let outcome =
            Outcome { status: RunStatus::Error, error: Some(message.clone()), ..Outcome::not_run() };
        self.phase(RunPhase::Failed { category, message });
        self.send(RunMsg::Finished { run_id: self.run_id.clone(), outcome, verdict: None });
    }
}

/// Follow the job; the payload's log events go to the server and benchmark panes (spooled and
/// classified as a container's would be). A cancel asked meanwhile is `scancel`; the job is
/// still followed to its end.
async fn watch_job(
    setup: &JobSetup,
    plan: &RunPlan,
    job: &Submitted,
    to: &Board,
    mut cancelled: watch::Receiver<bool>,
) -> (Option<SlurmJobState>, Option<Verdict>) {
    let mut output = PayloadOutput::create(setup, plan);
    let forward = |bytes: &[u8]| {
        for (pane, lines) in output.feed(bytes) {
            to.send(RunMsg::Lines { run_id: to.run_id.clone(), pane, lines });
        }
    };
    let on_state = |s: &SlurmJobState| {
        let phase = RunPhase::Slurm { job_id: s.job_id, state: s.describe(), node: s.nodes.clone() };
        to.phase(phase);
    };
    let last = {
        let following = follow(job, on_state, forward);
        tokio::pin!(following);
        tokio::select! {
            last = &mut following => last,
            () = asked(&mut cancelled) => {
                if let Err(why) = cancel(job.job_id).await {
                    log::warn!("run {}: scancel {}: {why}", to.run_id, job.job_id);
                }
                following.await
            }
        }
    };
    let verdict = output.finish();
    (last.unwrap_or_else(|e| Some(gone(job.job_id, e.to_string()))), verdict)
}

/// The payload's output file: `perftriage run --json` events, one a line. A `line` event's text
/// goes to its pane; anything else (Slurm's own words, a crash) to the server pane as it is.
struct PayloadOutput {
    partial: Vec<u8>,
    server: Option<LinePath>,
    bench: Option<LinePath>,
}

impl PayloadOutput {
    fn create(setup: &JobSetup, plan: &RunPlan) -> PayloadOutput {
        let dir = setup.workspace.join("logs").join(&plan.short).join(plan.variant.name());
        let path = |pane: Pane| {
            let spool = dir.join(format!("{}-{}.log", plan.run_id, pane.name()));
            LinePath::create(&spool, setup.redactor.clone(), setup.classifier.clone()).ok()
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
    /// Another event (a phase): the board follows the job's state instead.
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

/// A cancel asked from the board (never: a switch dropped unused).
async fn asked(cancelled: &mut watch::Receiver<bool>) {
    if cancelled.wait_for(|c| *c).await.is_err() {
        std::future::pending::<()>().await;
    }
}

fn gone(job_id: u64, why: String) -> SlurmJobState {
    SlurmJobState {
        job_id,
        job_state: "UNKNOWN".into(),
        state_reason: why,
        nodes: String::new(),
        exit_code: None,
    }
}

/// The payload's result file copied into this workspace's results and read back.
fn read_back(
    setup: &JobSetup,
    plan: &RunPlan,
    job: &Submitted,
    last: Option<SlurmJobState>,
    verdict: Option<Verdict>,
    to: &Board,
) {
    let (found, copied) = job.copy_result(&plan.short, plan.variant, &setup.workspace);
    let record = copied.ok().and_then(|copy| {
        let record = crate::dataset::results::read_file(&copy).ok()?.records.into_iter().next()?;
        Some((copy, record))
    });
    let Some((copy, record)) = record else {
        let state = last.map_or("gone from the queue".into(), |s| s.describe());
        let why =
            format!("Slurm job {} ended ({state}) without a result file in {}", job.job_id, found.display());
        return to.failed(FailureKind::ToolError, why);
    };
    let verdict = record.classify(&setup.classifier).or(verdict);
    let outcome = record.outcome;
    to.phase(match outcome.status {
        RunStatus::Success => RunPhase::Done { metrics: outcome.metrics.clone() },
        _ => RunPhase::Failed {
            category: FailureKind::from_name(verdict.as_ref().map_or("tool_error", |v| &v.category)),
            message: outcome.error.clone().unwrap_or_default(),
        },
    });
    to.send(RunMsg::Finished { run_id: to.run_id.clone(), outcome, verdict });
    let source = Ok(copy.display().to_string());
    to.send(RunMsg::Recorded { run_id: to.run_id.clone(), source, reread: None });
}
