//! One message shape for every job the board starts — a run, a fix, a baseline build — and one
//! key for each: what it would do (planned), a job of ours found alive after a restart, its
//! progress while live, its end, and a run's result file written after it. The kind's own
//! payload travels inside.

use crate::classify::Verdict;
use crate::dataset::{Outcome, Variant};
use crate::fixes::FixOffer;
use crate::ids::{CampaignName, ImageRef, Short};
use crate::logs::Line;
use crate::runs::{Pane, RunId, RunPhase};
use crate::triage::FixOutcome;

/// Which job a message, a confirm or a cancel is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JobKey {
    /// A run the board started (or re-attached), by its id.
    Run(RunId),
    /// A fix being applied to a commit's variant (one at a time on a variant).
    Fix(Short, Variant),
    /// A commit's baseline build (one at a time on a commit).
    Build(Short),
    /// A run a campaign's driver carries out: the board asks the driver.
    CampaignRun(CampaignName, RunId),
}

impl JobKey {
    /// The commit it is about, where the key says (a campaign run's is in the journal).
    pub fn short(&self) -> Option<&Short> {
        match self {
            JobKey::Fix(short, _) | JobKey::Build(short) => Some(short),
            JobKey::Run(_) | JobKey::CampaignRun(..) => None,
        }
    }
}

/// What the job service reports of a job, at each stage of its life.
#[allow(clippy::large_enum_variant)] // `Ended` is large and rare: moved once, boxing buys nothing
#[derive(Debug, Clone, PartialEq)]
pub enum JobMsg {
    /// Before it exists: what it would do, for a confirm or the fix menu.
    Planned(Planned),
    /// A job of ours found alive after a restart.
    Found(Found),
    /// A live job moved on.
    Progress { job: JobKey, progress: Progress },
    /// It ended: the board shows how and records what its kind records.
    Ended { job: JobKey, end: End },
    /// A run's result file was written after its end (or why not), and how it reads back.
    Recorded { run_id: RunId, source: Result<String, JobError>, reread: Option<Reread> },
}

impl JobMsg {
    /// A run's phase changed.
    pub fn phase(run_id: &RunId, phase: RunPhase) -> JobMsg {
        JobMsg::Progress { job: JobKey::Run(run_id.clone()), progress: Progress::Phase(phase) }
    }

    /// A run's log lines, decoded.
    pub fn lines(run_id: &RunId, pane: Pane, lines: Vec<Line>) -> JobMsg {
        JobMsg::Progress { job: JobKey::Run(run_id.clone()), progress: Progress::Lines { pane, lines } }
    }

    /// A run ended with this outcome (and classification).
    pub fn run_ended(run_id: &RunId, outcome: Outcome, verdict: Option<Verdict>) -> JobMsg {
        JobMsg::Ended { job: JobKey::Run(run_id.clone()), end: End::Run { outcome, verdict } }
    }

    /// A fix on `short`'s `variant` ended.
    pub fn fix_ended(short: Short, variant: Variant, end: FixEnd) -> JobMsg {
        JobMsg::Ended { job: JobKey::Fix(short, variant), end: End::Fix(end) }
    }

    /// `short`'s build ended.
    pub fn build_ended(short: Short, end: BuildEnd) -> JobMsg {
        JobMsg::Ended { job: JobKey::Build(short), end: End::Build(end) }
    }
}

/// What a job would do, asked for before it is started.
#[derive(Debug, Clone, PartialEq)]
pub enum Planned {
    /// Runs of a commit's variants: each one's description, or why it cannot run.
    Runs { short: Short, plans: Vec<(Variant, Result<Vec<String>, JobError>)> },
    /// The fixes that apply to a variant's image, or why they cannot be probed.
    Fixes { short: Short, variant: Variant, offers: Result<Vec<FixOffer>, JobError> },
    /// A baseline build: the confirm's lines (steps, image, time and disk), or why it cannot be built.
    Build { short: Short, knobs: crate::builds::KnobSet, plan: Result<Vec<String>, JobError> },
}

/// A job of ours still alive when the board started.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// A container of ours, with its launch record or why it has none that can be used (it
    /// then writes no result).
    Container { found: crate::runs::FoundRun, launch: Result<Box<crate::runs::Launch>, String> },
    /// A Slurm job this workspace's board submitted and never read back (`[slurm] board`).
    SlurmJob { run_id: RunId, short: Short, variant: Variant, job_id: u64 },
}

/// How a live job moved on.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// A run's new phase.
    Phase(RunPhase),
    /// A run's new log lines.
    Lines { pane: Pane, lines: Vec<Line> },
    /// A build's status, about once a second.
    Build(BuildStatus),
}

/// A build's phase, its gauge's fraction and its status line.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildStatus {
    pub phase: String,
    pub fraction: Option<f64>,
    pub status: String,
}

/// How a job ended, by kind.
#[allow(clippy::large_enum_variant)] // moved once per job, as `JobMsg::Ended` is
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// Its outcome (and classification) replace the variant's on the board.
    Run {
        outcome: Outcome,
        verdict: Option<Verdict>,
    },
    Fix(FixEnd),
    Build(BuildEnd),
}

/// How a fix ended.
#[derive(Debug, Clone, PartialEq)]
pub enum FixEnd {
    /// It ran to its verdict: record it, and re-run if asked.
    Applied(FixDone),
    /// Not applied (cancelled, not applicable, Docker's error): nothing recorded.
    NotApplied { recipe: String, why: String },
}

/// A fix that ran to its verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct FixDone {
    pub recipe: String,
    pub outcome: FixOutcome,
    pub image: Option<ImageRef>,
    pub log: Option<String>,
    pub commit_image: bool,
}

/// How a build ended: its triage record (none when it was stopped), how it went in words, and
/// a MAX_JOBS after an OOM.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildEnd {
    pub change: Option<crate::triage::Change>,
    pub lines: Vec<String>,
    pub suggested_jobs: Option<u32>,
}

/// A job's typed error carried to the board, which shows it: its text is composed there, by the
/// error's own `Display`. Two are equal when they say the same (messages are compared in tests).
#[derive(Debug, Clone)]
pub struct JobError(pub std::sync::Arc<dyn std::error::Error + Send + Sync>);

impl<E: std::error::Error + Send + Sync + 'static> From<E> for JobError {
    fn from(e: E) -> JobError {
        JobError(std::sync::Arc::new(e))
    }
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl JobError {
    /// Whether the job was refused because Docker was not connected yet (asked again once it is).
    pub fn is_not_connected(&self) -> bool {
        self.0.downcast_ref::<NotConnected>().is_some()
    }
}

/// A job that needs Docker, asked for before the board connected to it.
#[derive(Debug, thiserror::Error)]
#[error("Docker is not connected")]
pub struct NotConnected;

impl PartialEq for JobError {
    fn eq(&self, other: &JobError) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for JobError {}

/// A run's result file as a restart will read it: its classification replaces the live one, so
/// the board says the same before and after a restart.
#[derive(Debug, Clone, PartialEq)]
pub struct Reread {
    pub verdict: Option<Verdict>,
    pub warnings: Vec<crate::classify::Warning>,
}
