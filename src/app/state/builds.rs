//! Baseline builds as the board knows them: per commit, the live status the job service reports
//! (phase, gauge fraction, the status line) and, once finished, how it went and the MAX_JOBS a
//! re-run should use. The build's log is the log pane's (key run `build`).

use crate::ids::Short;
use std::collections::BTreeMap;

/// The log pane key's run name for a build.

#[derive(Debug, Clone, Default, PartialEq)]
pub struct BuildView {
    pub live: bool,
    pub phase: String,
    /// Done fraction of the current ninja project.
    pub fraction: Option<f64>,
    pub status: String,
    /// The finished build's lines (image, or failure and suggestion).
    pub outcome: Vec<String>,
    /// After an OOM: the MAX_JOBS the next `b` builds with.
    pub suggested_jobs: Option<u32>,
}

#[derive(Debug, Clone, Default)]
pub struct BuildsState {
    pub by_commit: BTreeMap<Short, BuildView>,
}

impl BuildsState {
    pub fn live(&self) -> impl Iterator<Item = (&Short, &BuildView)> {
        self.by_commit.iter().filter(|(_, b)| b.live)
    }

    pub fn is_live(&self, short: &str) -> bool {
        self.by_commit.get(short).is_some_and(|b| b.live)
    }
}

impl BuildView {
    /// The board cell while it builds: `⠹ build 42%`, `⠹ build deps`.
    pub fn cell_text(&self, spin: char) -> String {
        match self.fraction {
            Some(f) if self.phase == "compile" || self.phase == "link" => {
                format!("{spin} build {:.0}%", f * 100.0)
            }
            _ => {
                // A board cell is 13 columns: the phase in a word of at most 6.
                let word = match self.phase.split_whitespace().next().unwrap_or("") {
                    "toolkit" => "tools",
                    "dependency" => "deps",
                    "import" => "check",
                    "starting" => "start",
                    other => other,
                };
                format!("{spin} build {word}")
            }
        }
    }
}
