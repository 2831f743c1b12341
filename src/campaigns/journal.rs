//! A campaign's journal: one JSON event a line, only ever appended. A line cut short by a crash
//! (the last one, without its newline) is dropped and said; an event of a kind a newer perftriage
//! wrote is skipped and said; any other bad line is an error naming its number — a journal is
//! never guessed at.

use super::CampaignSpec;
use crate::classify::Disposition;
use crate::dataset::{RunStatus, Variant};
use crate::ids::{ImageRef, RunId, Short};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Started {
        /// The journal's format (`SCHEMA`); absent in journals written before it was recorded.
        #[serde(default = "first_schema")]
        schema: u32,
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
        category: Option<crate::runs::FailureKind>,
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
    /// A decision of the policy that is not a run: why a variant is left, a retry's wait. `what`
    /// says it in words (all an older journal has); `decision` is what it is.
    Decided {
        short: Short,
        variant: Variant,
        what: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        decision: Option<super::Decision>,
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
    /// A process took the campaign's lock and drives it from now on (its pid, host and start).
    Driven {
        driver: super::Driver,
        at: String,
    },
}

fn first_schema() -> u32 {
    1
}

impl Event {
    /// The policy's `decision` for a cell, in words and as what it is.
    pub fn decided(short: Short, variant: Variant, decision: super::Decision, at: String) -> Event {
        Event::Decided { short, variant, what: decision.to_string(), decision: Some(decision), at }
    }
}

/// One line of the journal, newline included.
pub fn to_line(event: &Event) -> String {
    // Events are strings, numbers and enums: they always serialise.
    let mut line = serde_json::to_string(event).unwrap_or_default();
    line.push('\n');
    line
}

/// The journal's format: `started` carries it; one written before it was recorded is 1.
pub const SCHEMA: u32 = 2;

/// Every event this binary knows, by its tag (a test checks it against `Event`).
const KNOWN: [&str; 10] = [
    "started",
    "launched",
    "submitted",
    "finished",
    "fixed",
    "decided",
    "paused",
    "resumed",
    "cancelled",
    "driven",
];

/// The events of a journal; whether its last line was cut short (dropped: `torn_tail`) or whole
/// but without its newline (`unterminated`); events of kinds a newer perftriage wrote, skipped.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    pub events: Vec<Event>,
    pub torn_tail: bool,
    pub unterminated: bool,
    /// `line N: unknown event `x``, for the reader to say.
    pub skipped: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("journal line {line} is not an event ({why}); the journal is left as it is")]
    BadLine { line: usize, why: String },
    #[error("the journal does not start with the campaign's `started` event")]
    NoStart,
    #[error("journal line {line}: {why}; the journal is left as it is")]
    Refused { line: usize, why: super::checks::OrderError },
}

/// A journal's bytes, read: every line but the last must be a whole event (or one of a kind this
/// binary does not know, skipped); the last, without its newline, may be cut anywhere, in a
/// character too.
pub fn parse(bytes: &[u8]) -> Result<Parsed, JournalError> {
    let (mut parsed, mut order) = (Parsed::default(), super::checks::Order::default());
    let mut lines = bytes.split(|b| *b == b'\n').enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let last = lines.peek().is_none();
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match (event(line), last) {
            (Ok(Some(event)), _) => {
                if parsed.events.is_empty() && !matches!(event, Event::Started { .. }) {
                    return Err(JournalError::NoStart);
                }
                order.check(&event).map_err(|why| JournalError::Refused { line: i + 1, why })?;
                parsed.events.push(event);
            }
            (Ok(None), _) => {
                parsed.skipped.push(format!("line {}: unknown event (a newer perftriage's?)", i + 1))
            }
            (Err(_), true) => parsed.torn_tail = true,
            (Err(why), false) => return Err(JournalError::BadLine { line: i + 1, why }),
        }
        parsed.unterminated = last && !parsed.torn_tail;
    }
    if !matches!(parsed.events.first(), None | Some(Event::Started { .. })) {
        return Err(JournalError::NoStart);
    }
    Ok(parsed)
}

/// One line's event; `None` for an object whose `event` this binary does not know.
fn event(line: &[u8]) -> Result<Option<Event>, String> {
    let text = std::str::from_utf8(line).map_err(|e| format!("not UTF-8: {e}"))?;
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    match value["event"].as_str() {
        Some(tag) if !KNOWN.contains(&tag) => Ok(None),
        _ => serde_json::from_value(value).map(Some).map_err(|e| e.to_string()),
    }
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
            parse(text.as_bytes()).unwrap(),
            Parsed { events: vec![start.clone(), paused("t1")], ..Parsed::default() }
        );
        let torn = format!("{text}{{\"event\":\"resu");
        let events = vec![start.clone(), paused("t1")];
        assert_eq!(parse(torn.as_bytes()).unwrap(), Parsed { events, torn_tail: true, ..Parsed::default() });
        let middle = format!("{}not json\n{}", to_line(&start), to_line(&paused("t1")));
        let bad = parse(middle.as_bytes());
        assert!(matches!(bad, Err(JournalError::BadLine { line: 2, .. })), "{bad:?}");
        assert!(matches!(parse(to_line(&paused("t0")).as_bytes()), Err(JournalError::NoStart)));
    }

    /// A crash can cut the last line inside a character (a path with `é`): still only that line
    /// is dropped. A whole last line without its newline is kept, and said to need one.
    #[test]
    fn a_last_line_cut_inside_a_character_is_dropped_and_a_whole_one_without_newline_kept() {
        let start = crate::campaigns::state::tests::started(&["aaaa0001"]);
        let mut bytes = to_line(&start).into_bytes();
        bytes.extend_from_slice("{\"event\":\"paused\",\"at\":\"caf\u{e9}".as_bytes());
        bytes.pop(); // half of the é
        let parsed = parse(&bytes).unwrap();
        assert_eq!((parsed.events.len(), parsed.torn_tail, parsed.unterminated), (1, true, false));
        let whole = format!("{}{}", to_line(&start), to_line(&paused("t1")).trim_end());
        let parsed = parse(whole.as_bytes()).unwrap();
        assert_eq!((parsed.events.len(), parsed.torn_tail, parsed.unterminated), (2, false, true));
        let mut middle = to_line(&start).into_bytes();
        middle.extend_from_slice(b"{\"event\":\"paused\",\"at\":\"\xff\"}\n");
        middle.extend_from_slice(to_line(&paused("t2")).as_bytes());
        assert!(matches!(parse(&middle), Err(JournalError::BadLine { line: 2, .. })));
    }

    /// A newer perftriage's event kind is skipped and said, never a stop; a known kind with bad
    /// fields is still an error naming its line.
    #[test]
    fn an_unknown_event_is_skipped_and_said_a_known_one_with_bad_fields_is_an_error() {
        let start = crate::campaigns::state::tests::started(&["aaaa0001"]);
        let text =
            format!("{}{{\"event\":\"migrated\",\"to\":\"x\"}}\n{}", to_line(&start), to_line(&paused("t1")));
        let parsed = parse(text.as_bytes()).unwrap();
        assert_eq!(parsed.events, vec![start.clone(), paused("t1")]);
        assert_eq!(parsed.skipped, ["line 2: unknown event (a newer perftriage's?)"]);
        let bad = format!("{}{{\"event\":\"paused\"}}\n", to_line(&start));
        assert!(matches!(parse(bad.as_bytes()), Err(JournalError::BadLine { line: 2, .. })));
    }

    #[test]
    fn every_event_kind_is_known_by_its_tag() {
        let start = crate::campaigns::state::tests::started(&["aaaa0001"]);
        let (short, variant, run_id, at) =
            ("aaaa0001".into(), Variant::Baseline, RunId::from("r"), String::new());
        let events = [
            start,
            Event::Launched { short, variant, run_id: run_id.clone(), at: at.clone() },
            Event::Submitted { run_id: run_id.clone(), job_id: 1, dir: at.clone(), at: at.clone() },
            Event::Finished {
                run_id,
                status: RunStatus::Success,
                category: None,
                disposition: None,
                result: None,
                at: at.clone(),
            },
            Event::Fixed {
                short: "a".into(),
                variant,
                recipe: at.clone(),
                image: None,
                host: None,
                at: at.clone(),
            },
            Event::decided(
                "a".into(),
                variant,
                crate::campaigns::Decision::Leave { reason: at.clone() },
                at.clone(),
            ),
            paused(""),
            Event::Resumed { at: at.clone() },
            Event::Cancelled { at: at.clone() },
            Event::Driven {
                driver: crate::campaigns::Driver { pid: 1, host: at.clone(), since: at.clone() },
                at,
            },
        ];
        let tags: Vec<String> = events
            .iter()
            .map(|e| serde_json::to_value(e).unwrap()["event"].as_str().unwrap().into())
            .collect();
        assert_eq!(tags, KNOWN);
    }
}
