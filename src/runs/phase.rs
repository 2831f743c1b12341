//! The life of a run, as the board shows it.

use crate::ids::ImageRef;
use crate::metrics::Metrics;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum RunPhase {
    Queued,
    /// Handed out, waiting for a `[[hosts]]` engine with a free slot and its GPUs (each host's reason).
    Placing {
        why: String,
    },
    /// Placed on this host.
    Placed {
        host: String,
    },
    Pulling {
        done: usize,
        layers: usize,
        bytes: i64,
        total: i64,
    },
    /// The container is being created from `image` (after overrides and fixed images).
    Creating {
        image: ImageRef,
    },
    Starting,
    Ready {
        after_s: f64,
    },
    Benchmarking,
    /// The benchmark ended: the container is removed, metrics parsed, the result written.
    Collecting,
    Done {
        metrics: Metrics,
    },
    Failed {
        category: super::FailureKind,
        message: String,
    },
    /// A Slurm job (`[slurm] board`): its id, state as `squeue` says it (`PENDING (Resources)`,
    /// `RUNNING on node1`) and node; the container runs there, under perftriage's own `run`.
    Slurm {
        job_id: u64,
        state: String,
        node: String,
    },
    /// Its fixed image `gone` is not on the engine (removed since the fix): it runs unfixed, in
    /// the image the fixed one stood in for.
    Unfixed {
        gone: ImageRef,
    },
    /// Docker stopped answering; the run is held until its container is known to be gone.
    ConnectionLost {
        message: String,
    },
    /// A container of ours found running without a usable launch record: shown, and cancelling
    /// removes it, but nothing it measures is recorded.
    Unrecorded {
        why: String,
    },
    Cancelled,
}

impl RunPhase {
    pub fn is_finished(&self) -> bool {
        matches!(self, RunPhase::Done { .. } | RunPhase::Failed { .. } | RunPhase::Cancelled)
    }

    /// One word for the board cell.
    pub fn word(&self) -> &'static str {
        match self {
            RunPhase::Queued => "queued",
            RunPhase::Placing { .. } => "waiting for a host",
            RunPhase::Placed { .. } => "placed",
            RunPhase::Slurm { .. } => "slurm job",
            RunPhase::Pulling { .. } => "pulling",
            RunPhase::Unfixed { .. } => "unfixed: its fixed image is gone",
            RunPhase::Creating { .. } => "creating",
            RunPhase::Starting => "starting",
            RunPhase::Ready { .. } => "ready",
            RunPhase::Benchmarking => "benching",
            RunPhase::Collecting => "collecting",
            RunPhase::Done { .. } => "done",
            RunPhase::Failed { .. } => "failed",
            RunPhase::ConnectionLost { .. } => "connection lost",
            RunPhase::Unrecorded { .. } => "no launch record",
            RunPhase::Cancelled => "cancelled",
        }
    }

    /// At most six characters, for a board cell.
    pub fn short_word(&self) -> &'static str {
        match self {
            RunPhase::Queued => "queued",
            RunPhase::Placing { .. } => "host?",
            RunPhase::Placed { .. } => "placed",
            RunPhase::Slurm { state, .. } if state.starts_with("PENDING") => "pend",
            RunPhase::Slurm { .. } => "job",
            RunPhase::Pulling { .. } => "pull",
            RunPhase::Unfixed { .. } => "unfix",
            RunPhase::Creating { .. } => "create",
            RunPhase::Starting => "start",
            RunPhase::Ready { .. } => "ready",
            RunPhase::Benchmarking => "bench",
            RunPhase::Collecting => "collect",
            RunPhase::Done { .. } => "done",
            RunPhase::Failed { .. } => "failed",
            RunPhase::ConnectionLost { .. } => "lost",
            RunPhase::Unrecorded { .. } => "norec",
            RunPhase::Cancelled => "cancel",
        }
    }
}

/// Which of a run's two log panes a line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pane {
    Server,
    Benchmark,
}

impl Pane {
    /// The pane's name in log file names and headless output.
    pub fn name(self) -> &'static str {
        match self {
            Pane::Server => "server",
            Pane::Benchmark => "benchmark",
        }
    }
}
