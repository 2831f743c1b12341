//! What `update` asks the runtime to do.

use super::state::LogKey;
use crate::dataset::Variant;
use crate::ids::{ImageRef, Short};
use crate::runs::RunId;
use crate::telemetry::GpuSummary;
use crate::triage::TriageBook;

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    SaveTriage(TriageBook),
    /// Spool and stream a recorded log: the result file it came from, else the recorded text.
    OpenLog {
        key: LogKey,
        source: Option<String>,
        text: String,
        /// Lines the view's ring holds: only the newest this many are decoded and sent.
        ring: usize,
    },
    /// Follow a campaign run's pane from its driver's spool while the journal says it runs.
    FollowCampaignLog {
        key: LogKey,
        name: crate::ids::CampaignName,
        ring: usize,
    },
    /// Make a document (the 3-way diff, the agent run) off the loop and stream it as a log.
    OpenDocument {
        key: LogKey,
        document: Document,
        ring: usize,
    },
    /// Read a commit's two patches for the detail pane's line (answered by `Msg::PatchLine`).
    PatchLine(Short),
    /// Read lines `first..first + count` back from the log's spool.
    ReadLog {
        key: LogKey,
        first: usize,
        count: usize,
    },
    /// Search the spooled lines older than the ring (`0..upto`) in the background.
    SearchLog {
        key: LogKey,
        query: String,
        upto: usize,
    },
    /// Read these lines back in full (they were capped for display).
    ExpandLines {
        key: LogKey,
        lines: Vec<usize>,
    },
    /// Copy the whole raw log out of the workspace.
    SaveLog {
        key: LogKey,
    },
    /// Start a run now (a slot is free); `image`/`fixes`: in a fixed image, with its recipes.
    /// Plan these runs as the executor will, for a confirm (answered by `Planned::Runs`).
    PlanRuns {
        short: Short,
        requests: Vec<crate::runs::RunRequest>,
    },
    /// What to run (its image, fixes, the host and repeats the confirm chose).
    StartRun {
        run_id: RunId,
        request: crate::runs::RunRequest,
    },
    /// Pick a running container of ours up again: readiness, benchmark, result, removal.
    /// Follow a Slurm job found again to its end, and read its result back.
    FollowJob {
        run_id: RunId,
        job_id: u64,
    },
    ResumeRun {
        found: crate::runs::FoundRun,
        /// What it was launched with: the plan it goes on with, never re-planned.
        launch: Box<crate::runs::Launch>,
    },
    /// Write a finished run's result file, with the GPU use seen while it ran.
    WriteResult {
        run_id: RunId,
        gpu: Option<GpuSummary>,
    },
    /// Stop a live job: a run's or fix's container is removed, a build stops, a campaign's run is
    /// asked of its driver (its end follows as `JobMsg::Ended`, a campaign's as `Msg::CampaignAsked`).
    Cancel(super::JobKey),
    /// Stop and remove these containers (left behind by a perftriage that is gone).
    RemoveContainers(Vec<String>),
    /// Probe the variant's image (its fixed image, if any) for applicable fixes.
    ProbeFixes {
        short: Short,
        variant: Variant,
        image: Option<ImageRef>,
        category: String,
        evidence: Option<String>,
    },
    /// Apply a recipe; then re-run the variant in the fixed environment, or commit it as the variant's image.
    /// Its output streams to the log pane `log`; `evidence` feeds recipes that take `{args}`.
    ApplyFix(FixRequest),
    /// This board is read-only: try for the workspace lock (the other instance may have quit).
    TryTakeOver,
    /// Sample GPUs every this many milliseconds (the floor is 250).
    GpuInterval(u64),
    Quit,
    /// List our fixed images (answered by `Msg::Images`).
    ListImages,
    /// Read how a campaign stands: the one chosen in `O`, else the workspace's newest (answered
    /// by `Msg::CampaignNames`, then `Msg::Campaign`).
    ReadCampaign(Option<crate::ids::CampaignName>),
    /// The images these commits' variants run in, and the earlier runs' durations, for a
    /// campaign's confirm (answered by `Msg::CampaignPlanned`).
    PlanCampaign(Vec<Short>),
    /// Start a campaign over these commits' three variants, as a process of its own.
    StartCampaign {
        shorts: Vec<Short>,
        name: crate::ids::CampaignName,
    },
    /// `perftriage campaign pause|resume|cancel NAME` in a process of its own (answered by
    /// `Msg::CampaignStarted`; the journal's next read says what it did).
    Campaign {
        name: crate::ids::CampaignName,
        verb: crate::campaigns::Verb,
    },
    /// Remove a fixed image's tag.
    RemoveImage(String),
    /// Push a fixed image to the configured registry (`Msg::Pushed` answers).
    PushImage(String),
    /// Plan a commit's baseline build for a confirm (answered by `Planned::Build`).
    PlanBuild {
        short: Short,
        knobs: crate::builds::KnobSet,
    },
    /// Build it; its log streams to the log pane `log`, its status as `Progress::Build`.
    StartBuild {
        short: Short,
        knobs: crate::builds::KnobSet,
        log: LogKey,
    },
    /// Take the mouse (wheel and clicks) or give it back to the terminal for selecting text.
    MouseCapture(bool),
    /// Put text on the terminal's clipboard (OSC 52).
    Copy(String),
    /// Ring the terminal's bell with a desktop notification of this text (OSC 9).
    Notify(String),
}

/// What the log pane can show besides logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Document {
    /// The human's and the agent's patches, laid out so.
    Patches(crate::agents::document::Layout),
    /// The agent's own run: its summary and steps.
    AgentRun,
    /// A campaign's (commit, variant) — the log key's: its runs, its fixes with their logs, its
    /// last result.
    CampaignCell(crate::ids::CampaignName),
}

/// A fix to apply, as the job service needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct FixRequest {
    pub short: Short,
    pub variant: Variant,
    pub recipe: String,
    pub commit_image: bool,
    pub image: Option<ImageRef>,
    pub evidence: Option<String>,
    pub log: LogKey,
}
