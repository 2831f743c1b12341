//! Everything that can happen to the app, as data.

use super::input::Key;
use super::logview::LogKey;
use super::state::Level;
use crate::logs::Line;

#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(Key),
    ScrollUp,
    ScrollDown,
    Resize(u16, u16),
    /// Wall-clock time (RFC 3339 UTC): the only way time reaches `update`.
    Tick(String),
    /// The triage store finished a save.
    Saved(Result<(), String>),
    /// New decoded lines of a log; `finished` when the stream ended.
    LogLines {
        key: LogKey,
        lines: Vec<Line>,
        finished: bool,
    },
    /// Older lines read back from the spool, starting at absolute line `first`.
    LogPage {
        key: LogKey,
        first: usize,
        lines: Vec<Line>,
    },
    /// A line read back in full.
    LogLineExpanded {
        key: LogKey,
        n: usize,
        line: Line,
    },
    /// Matches found in the spool by a background search for `query`.
    LogSearchHits {
        key: LogKey,
        query: String,
        hits: Vec<(usize, Vec<(usize, usize)>)>,
        done: bool,
    },
    Docker(super::runs::DockerStatus),
    RunPhase {
        run_id: String,
        phase: crate::runs::RunPhase,
    },
    RunLines {
        run_id: String,
        pane: crate::runs::Pane,
        lines: Vec<Line>,
    },
    /// The run ended; its outcome (and classification) replace the variant's on the board.
    RunFinished {
        run_id: String,
        outcome: crate::dataset::Outcome,
        verdict: Option<crate::classify::Verdict>,
    },
    /// A container of ours found running (after a restart).
    RunFound {
        run_id: String,
        short: String,
        variant: crate::dataset::Variant,
    },
    FixOffers {
        short: String,
        variant: crate::dataset::Variant,
        offers: Result<Vec<super::FixOffer>, String>,
    },
    /// A fix ended: record it, and re-run if asked.
    FixDone {
        short: String,
        variant: crate::dataset::Variant,
        recipe: String,
        outcome: crate::triage::FixOutcome,
        image: Option<String>,
        log: Option<String>,
        commit_image: bool,
    },
    /// A GPU sample (attributed to our runs) and its source, or why no GPU can be read.
    Gpu(Result<(String, crate::gpu::GpuSample), String>),
    /// Something the runtime has to say (a saved file, a failed read).
    Notice(Level, String),
}
