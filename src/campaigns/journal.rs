//! A campaign's journal: one JSON event a line, only ever appended. A line cut short by a crash
//! (the last one, without its newline) is dropped and said; any other bad line is an error naming
//! its number — a journal is never guessed at.

use super::CampaignSpec;
use crate::classify::Disposition;
use crate::dataset::{RunStatus, Variant};
use crate::ids::{ImageRef, RunId, Short};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Started {
        spec: CampaignSpec,
        /// The campaign's commits usable 3-way when it started.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usable: Option<usize>,
        at: String,
    },
    /// A run's container is about to be created; its launch record is `runs/<run_id>/launch.json`.
    Launched {
        short: Short,
        variant: Variant,
        run_id: RunId,
        at: String,
    },
    /// The run went to Slurm as job `job_id`, its files in `dir` (the shared directory's); after a
    /// restart the job is followed again, never submitted twice.
    Submitted {
        run_id: RunId,
        job_id: u64,
        dir: String,
        at: String,
    },
    /// The run ended; `result` is its result file (none for a set-up error).
    Finished {
        run_id: RunId,
        status: RunStatus,
        category: Option<String>,
        disposition: Option<Disposition>,
        result: Option<String>,
        at: String,
    },
    /// A fix applied by the policy; `image` when it verified and was committed, on `host` (a
    /// `[[hosts]]` name; none: this machine's engine), where its runs go from then on.
    Fixed {
        short: Short,
        variant: Variant,
        recipe: String,
        image: Option<ImageRef>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        host: Option<String>,
        at: String,
    },
    /// A decision of the policy that is not a run: why a variant is left, a retry's wait.
    Decided {
        short: Short,
        variant: Variant,
        what: String,
        at: String,
    },
    Paused {
        at: String,
    },
    Resumed {
        at: String,
    },
    Cancelled {
        at: String,
    },
}

/// One line of the journal, newline included.
pub fn to_line(event: &Event) -> String {
    // Events are strings, numbers and enums: they always serialise.
    let mut line = serde_json::to_string(event).unwrap_or_default();
    line.push('\n');
    line
}

/// The events of a journal, and whether its last line was cut short (and dropped).
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub events: Vec<Event>,
    pub torn_tail: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("journal line {line} is not an event ({source}); the journal is left as it is")]
    BadLine { line: usize, source: serde_json::Error },
    #[error("the journal does not start with the campaign's `started` event")]
    NoStart,
}

pub fn parse(text: &str) -> Result<Parsed, JournalError> {
    let complete = text.ends_with('\n') || text.is_empty();
    let lines: Vec<&str> = text.lines().collect();
    let mut events = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        match serde_json::from_str(line) {
            Ok(event) => events.push(event),
            Err(_) if i + 1 == lines.len() && !complete => return Ok(Parsed { events, torn_tail: true }),
            Err(source) => return Err(JournalError::BadLine { line: i + 1, source }),
        }
    }
    if !matches!(events.first(), None | Some(Event::Started { .. })) {
        return Err(JournalError::NoStart);
    }
    Ok(Parsed { events, torn_tail: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paused(at: &str) -> Event {
        Event::Paused { at: at.into() }
    }

    #[test]
    fn a_line_cut_short_at_the_end_is_dropped_and_said_any_other_bad_line_is_an_error() {
        let start = crate::campaigns::state::tests::started(&["aaaa0001"]);
        let text = format!("{}{}", to_line(&start), to_line(&paused("t1")));
        assert_eq!(
            parse(&text).unwrap(),
            Parsed { events: vec![start.clone(), paused("t1")], torn_tail: false }
        );
        let torn = format!("{text}{{\"event\":\"resu");
        assert_eq!(
            parse(&torn).unwrap(),
            Parsed { events: vec![start.clone(), paused("t1")], torn_tail: true }
        );
        let middle = format!("{}not json\n{}", to_line(&start), to_line(&paused("t1")));
        assert!(matches!(parse(&middle), Err(JournalError::BadLine { line: 2, .. })), "{:?}", parse(&middle));
        assert!(matches!(parse(&to_line(&paused("t0"))), Err(JournalError::NoStart)));
    }
}
