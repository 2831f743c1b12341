//! The board's runs as Slurm jobs (`[slurm] board = true`): submitted and followed by the
//! executor (`jobs::executor::slurm`), each state and payload line to the board, a cancel
//! answered with `scancel`; at the end its result, copied into this workspace, read back like any
//! other result file. What is the board's own: which jobs it submitted (to follow them again at
//! its next start) and how their ends become its messages.

use super::JobSetup;
use crate::app::{Found, JobMsg, Msg};
use crate::classify::Verdict;
use crate::dataset::{Outcome, RunStatus};
use crate::ids::Short;
use crate::jobs::executor::slurm::{Followed, JobEnd, JobRun, OnCancel};
use crate::jobs::slurm::Submitted;
use crate::runs::{FailureKind, RunId, RunPhase, RunPlan};
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
            Err(why) => return to.failed(FailureKind::ToolError, why),
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
    if setup.exec.slurm.shared_dir.is_none() {
        return;
    }
    let job = setup.exec.job_of(&plan.run_id, job_id);
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
    let events = super::runner::to_the_board(to.tx.clone());
    let run = JobRun::of(plan, job);
    let followed = setup.exec.follow(run, (cancelled, OnCancel::Scancel), &events).await;
    // Whatever happens now, this job is done with: not found again at the next start.
    let _ = crate::files::write(&job.dir.join(READ_BACK), b"");
    read_back(setup, followed, to);
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
    let Some(shared) = &setup.exec.slurm.shared_dir else { return };
    let workspace = setup.exec.workspace.display().to_string();
    for dir in std::fs::read_dir(shared).into_iter().flatten().flatten().map(|e| e.path()) {
        let text = std::fs::read_to_string(dir.join(MINE)).unwrap_or_default();
        let Ok(mine) = serde_json::from_str::<Mine>(&text) else { continue };
        let Some(variant) = crate::dataset::Variant::parse(&mine.variant) else { continue };
        if mine.workspace == workspace && !dir.join(READ_BACK).exists() {
            let (run_id, short, job_id) = (mine.run_id, mine.short, mine.job_id);
            let _ = tx.send(Msg::Job(JobMsg::Found(Found::SlurmJob { run_id, short, variant, job_id })));
        }
    }
}

/// Submit the job and record in its shared directory that this board did.
async fn submitted(setup: &JobSetup, plan: &RunPlan, commit_gpus: u32) -> Result<Submitted, String> {
    let job = setup.exec.submit(plan, commit_gpus).await.map_err(|e| e.to_string())?;
    let mine = Mine {
        workspace: setup.exec.workspace.display().to_string(),
        run_id: plan.run_id.clone(),
        short: plan.short.clone(),
        variant: plan.variant.name().to_string(),
        job_id: job.job_id,
    };
    let text = serde_json::to_string(&mine).map_err(std::io::Error::other);
    let path = job.dir.join(MINE);
    let written = text.and_then(|text| crate::files::write(&path, text.as_bytes()));
    let why = |e: std::io::Error| format!("cannot record job {} in {}: {e}", job.job_id, path.display());
    written.map_err(why)?;
    Ok(job)
}

/// Where a run's messages go.
struct Board {
    tx: UnboundedSender<Msg>,
    run_id: RunId,
}

impl Board {
    fn send(&self, msg: JobMsg) {
        let _ = self.tx.send(Msg::Job(msg));
    }

    fn phase(&self, phase: RunPhase) {
        self.send(JobMsg::phase(&self.run_id, phase));
    }

    fn failed(&self, category: FailureKind, message: String) {
        let outcome =
            Outcome { status: RunStatus::Error, error: Some(message.clone()), ..Outcome::not_run() };
        self.phase(RunPhase::Failed { category, message });
        self.send(JobMsg::run_ended(&self.run_id, outcome, None));
    }
}

/// How the job ended, to the board: cancelled, or its result read back (classified as any
/// result file is), or failed without one.
fn read_back(setup: &JobSetup, Followed { end, verdict }: Followed, to: &Board) {
    let copy = match end {
        JobEnd::Read { copy, .. } => copy,
        JobEnd::Cancelled | JobEnd::Left => {
            to.phase(RunPhase::Cancelled);
            let outcome = Outcome::not_run();
            return to.send(JobMsg::run_ended(&to.run_id, outcome, None));
        }
        JobEnd::NoResult { why } => return to.failed(FailureKind::ToolError, why),
        JobEnd::Lost(why) => return to.failed(FailureKind::ToolError, format!("Slurm: {why}")),
    };
    let record = crate::dataset::results::read_file(&copy).ok().and_then(|r| r.records.into_iter().next());
    let Some(record) = record else {
        return to.failed(FailureKind::ToolError, format!("cannot read the job's result {}", copy.display()));
    };
    finished(setup, record, verdict, to);
    to.send(JobMsg::Recorded {
        run_id: to.run_id.clone(),
        source: Ok(copy.display().to_string()),
        reread: None,
    });
}

fn finished(
    setup: &JobSetup,
    record: crate::dataset::results::ResultRecord,
    verdict: Option<Verdict>,
    to: &Board,
) {
    let verdict = record.classify(&setup.exec.classifier).or(verdict);
    let outcome = record.outcome;
    to.phase(match outcome.status {
        RunStatus::Success => RunPhase::Done { metrics: outcome.metrics.clone() },
        _ => RunPhase::Failed {
            category: FailureKind::from_name(verdict.as_ref().map_or("tool_error", |v| &v.category)),
            message: outcome.error.clone().unwrap_or_default(),
        },
    });
    to.send(JobMsg::run_ended(&to.run_id, outcome, verdict));
}
