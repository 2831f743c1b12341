//! Everything that can happen to the app, as data; one nested enum per source.

use super::input::Key;
use super::state::{Level, LogKey};
use crate::classify::Verdict;
use crate::dataset::{Outcome, Variant};
use crate::fixes::FixOffer;
use crate::ids::{ImageRef, Short};
use crate::logs::Line;
use crate::runs::{Pane, RunId, RunPhase};
use crate::telemetry::{GpuSample, Owners};
use crate::triage::FixOutcome;

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

impl PartialEq for JobError {
    fn eq(&self, other: &JobError) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for JobError {}

/// What a campaign over `shorts` would run: each variant's image (or why it has none), the
/// durations of the workspace's earlier runs, and how many run at once.
#[derive(Debug, Clone, PartialEq)]
pub struct CampaignPlan {
    pub shorts: Vec<Short>,
    pub images: Vec<(Short, Variant, Result<ImageRef, JobError>)>,
    pub run_s: Vec<f64>,
    pub concurrency: u32,
    /// `perftriage` with the board's own flags: the commands the confirm prints paste as printed.
    pub perftriage: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(Key),
    /// A mouse event at a terminal cell, as the terminal reports it; the runtime turns it into
    /// `Pointer` with the screen's layout.
    Mouse {
        wheel: i8,
        column: u16,
        row: u16,
    },
    /// Our fixed images, or why they cannot be listed.
    Images(Result<Vec<crate::docker::TaggedImage>, JobError>),
    /// How the workspace's newest campaign stands (`None`: there is none).
    Campaign(Option<crate::campaigns::Snapshot>),
    /// What a campaign of these commits would run.
    CampaignPlanned(CampaignPlan),
    /// A result file a campaign's run wrote, read back as a restart reads it.
    CampaignResult(Box<crate::dataset::results::Digested>),
    /// A campaign's process was started, or why not.
    CampaignStarted(Result<crate::ids::CampaignName, JobError>),
    /// What was asked of a campaign (a verb started in a process of its own, a run's stop asked
    /// of its driver), in words, or why it could not be asked.
    CampaignAsked(Result<String, JobError>),
    /// A fixed image was removed from the engine.
    ImageRemoved(String),
    /// A fixed image was pushed: its reference by digest.
    Pushed {
        tag: String,
        reference: String,
    },
    /// How far the detail pane can scroll as it is drawn now (the runtime measures it).
    DetailLimit(u16),
    /// How far the confirm dialog's preview can scroll at the size it was drawn.
    ConfirmLimit(usize),
    /// The wheel (−1 up, +1 down) or a click (0) over a part of the screen.
    Pointer {
        over: Pointed,
        wheel: i8,
    },
    Resize(u16, u16),
    /// Wall-clock time (RFC 3339 UTC): the only way time reaches `update`.
    Tick(String),
    /// The triage store finished a save.
    Saved(Result<(), JobError>),
    Log(LogMsg),
    Run(RunMsg),
    Docker(DockerMsg),
    Fix(FixMsg),
    Gpu(GpuMsg),
    Build(BuildMsg),
    /// The workspace lock is ours now: the book on disk, and what loading it found.
    TookOver {
        book: crate::triage::TriageBook,
        messages: Vec<String>,
    },
    /// Something the runtime has to say (a saved file, a failed read).
    Notice(Level, String),
    /// How far reading the result files has got (the board draws the dataset meanwhile).
    Reading(crate::dataset::Progress),
    /// The detail pane's `patches:` line of a commit, once both patches were read.
    PatchLine {
        short: Short,
        line: String,
    },
    /// The result files are read: the commits joined with them, and what could not be read.
    ResultsRead {
        entries: Vec<crate::dataset::Entry>,
        warnings: Vec<String>,
    },
}

/// What the job service reports of a baseline build.
#[derive(Debug, Clone, PartialEq)]
pub enum BuildMsg {
    /// The confirm's lines (steps, image, expected time and disk), or why it cannot be built.
    Planned { short: Short, knobs: crate::builds::KnobSet, plan: Result<Vec<String>, JobError> },
    /// About once a second: the phase, the gauge's fraction and the status line.
    Status { short: Short, phase: String, fraction: Option<f64>, status: String },
    /// Finished: the triage record (none when it was stopped), how it went in words, and a
    /// MAX_JOBS after an OOM.
    Done {
        short: Short,
        change: Option<crate::triage::Change>,
        lines: Vec<String>,
        suggested_jobs: Option<u32>,
    },
}

/// Lines of a log, from its one line path.
#[derive(Debug, Clone, PartialEq)]
pub enum LogMsg {
    /// New decoded lines; `finished` when the stream ended.
    /// The newest lines, after `skipped` older ones the view never gets (they are in the spool).
    Lines { key: LogKey, lines: Vec<Line>, skipped: usize, finished: bool },
    /// Older lines read back from the spool, starting at absolute line `first`.
    Page { key: LogKey, first: usize, lines: Vec<Line> },
    /// A line read back in full.
    Expanded { key: LogKey, n: usize, line: Line },
    /// Matches found in the spool by a background search for `query`.
    SearchHits { key: LogKey, query: String, hits: Vec<(usize, Vec<(usize, usize)>)>, done: bool },
}

/// What the job service reports of a run, tagged with its id. (`Finished` is large, and
/// rare: it is moved once, so boxing it would buy nothing.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum RunMsg {
    Phase {
        run_id: RunId,
        phase: RunPhase,
    },
    Lines {
        run_id: RunId,
        pane: Pane,
        lines: Vec<Line>,
    },
    /// The run ended; its outcome (and classification) replace the variant's on the board.
    Finished {
        run_id: RunId,
        outcome: Outcome,
        verdict: Option<Verdict>,
    },
    /// The run's result file was written (or why not), and how it reads back.
    Recorded {
        run_id: RunId,
        source: Result<String, JobError>,
        reread: Option<Reread>,
    },
    /// The plans asked for with `Effect::PlanRuns`: each variant's description, or why it cannot run.
    Planned {
        short: Short,
        plans: Vec<(Variant, Result<Vec<String>, JobError>)>,
    },
    /// A container of ours found running (after a restart), created at `created` (unix seconds).
    Found {
        found: crate::runs::FoundRun,
        /// Its launch record, or why it has none that can be used (it then writes no result).
        launch: Result<Box<crate::runs::Launch>, String>,
    },
    /// A Slurm job this workspace's board submitted and never read back (`[slurm] board`).
    FoundJob {
        run_id: RunId,
        short: Short,
        variant: Variant,
        job_id: u64,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum DockerMsg {
    Connected(String),
    Unreachable(String),
    /// Our containers, from their labels (GPU processes are attributed with them).
    Owners(Owners),
    /// Containers of ours whose perftriage is gone: nobody will remove them.
    Orphans(Vec<crate::runs::Orphan>),
    /// The `[[hosts]]`, as placement sees them (every 10 s).
    Hosts(Vec<crate::runs::HostSlot>),
    /// Each `[[hosts]]` host's GPUs, as its probe saw them, for the GPU pane.
    HostGpus(Vec<(String, crate::telemetry::HostGpus)>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum FixMsg {
    Offers {
        short: Short,
        variant: Variant,
        offers: Result<Vec<FixOffer>, JobError>,
    },
    /// A fix ended: record it, and re-run if asked.
    Done(FixDone),
    /// A fix that was not applied (cancelled, not applicable, Docker's error): nothing recorded.
    NotApplied {
        short: Short,
        variant: Variant,
        recipe: String,
        why: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct FixDone {
    pub short: Short,
    pub variant: Variant,
    pub recipe: String,
    pub outcome: FixOutcome,
    pub image: Option<ImageRef>,
    pub log: Option<String>,
    pub commit_image: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum GpuMsg {
    /// A sample and its source (`nvml`, `smi`, `replay`).
    Sample { source: String, sample: GpuSample },
    /// Why no GPU can be read.
    Unavailable(String),
}

/// What is under the mouse pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pointed {
    /// A board row, by its position among the visible rows.
    BoardRow(usize),
    Board,
    /// The pane beside or below the board: a log, or the detail.
    Pane,
}

/// A run's result file as a restart will read it: its classification replaces the live one, so
/// the board says the same before and after a restart.
#[derive(Debug, Clone, PartialEq)]
pub struct Reread {
    pub verdict: Option<Verdict>,
    pub warnings: Vec<crate::classify::Warning>,
}
