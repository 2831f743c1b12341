//! Who drives a campaign, as data: the record its one driving process writes beside the journal
//! when it takes the campaign's lock, and whether that process is alive (the caller tries the lock).

use serde::{Deserialize, Serialize};

/// The process that drives (or last drove) a campaign.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Driver {
    pub pid: u32,
    pub host: String,
    /// When it took the campaign (RFC 3339).
    pub since: String,
}

impl std::fmt::Display for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pid {} on {} since {}", self.pid, self.host, self.since)
    }
}

/// Whether a campaign's driver is alive.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Liveness {
    /// Its process holds the lock.
    Driving(Driver),
    /// Its process is gone (the lock is free): nothing runs the campaign until it is resumed.
    Gone(Driver),
    /// No record: a campaign from before drivers were recorded, or one never driven.
    #[default]
    Unknown,
}

impl Liveness {
    pub fn is_driving(&self) -> bool {
        matches!(self, Liveness::Driving(_))
    }

    /// `campaign status`'s and the board's word for it: `running`, `stopped` or `unknown`.
    pub fn word(&self) -> &'static str {
        match self {
            Liveness::Driving(_) => "running",
            Liveness::Gone(_) => "stopped",
            Liveness::Unknown => "unknown",
        }
    }

    pub fn driver(&self) -> Option<&Driver> {
        match self {
            Liveness::Driving(d) | Liveness::Gone(d) => Some(d),
            Liveness::Unknown => None,
        }
    }
}

/// What the board (or a script) asks of a campaign.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Pause,
    Resume,
    Cancel,
}

impl Verb {
    /// Its word on the command line: `campaign pause NAME`.
    pub fn word(self) -> &'static str {
        match self {
            Verb::Pause => "pause",
            Verb::Resume => "resume",
            Verb::Cancel => "cancel",
        }
    }
}

/// What a campaign whose driver is gone says: `stopped: its process is gone — <resume>`.
pub fn stopped_line(resume: &str) -> String {
    format!("stopped: its process is gone — {resume}")
}
