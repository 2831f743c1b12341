//! Everything that can happen to the app, as data; one nested enum per source.

use super::input::Key;
use super::job::JobError;
use super::state::{Level, LogKey};
use crate::dataset::Variant;
use crate::ids::{ImageRef, Short};
use crate::logs::Line;
use crate::telemetry::{GpuSample, Owners};

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
    Images(Result<Vec<super::ListedImage>, JobError>),
    /// How the workspace's newest campaign stands (`None`: there is none).
    Campaign(Option<crate::campaigns::Snapshot>),
    /// Every campaign of the workspace, the newest first.
    CampaignNames(Vec<crate::ids::CampaignName>),
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
    /// A run, a fix or a build: planned, found, moving on, ended, recorded.
    Job(super::job::JobMsg),
    Docker(DockerMsg),
    Gpu(GpuMsg),
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
