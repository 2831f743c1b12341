//! The log pane's model: the run's ring of decoded lines, follow/pause, search with matches,
//! filter-to-matches, level filter, wrap, and a page of older lines fetched from the spool.

use crate::dataset::Variant;
use crate::ids::Short;
use crate::logs::{Level, Line, Ring};
use crate::runs::{Pane, RunId};
use regex::{Regex, RegexBuilder};
use std::collections::BTreeMap;

/// Which log of a commit's variant: what its lines are and where its spool is kept.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LogId {
    /// One of a run's two panes.
    Run { run_id: RunId, pane: Pane },
    /// A fix's output.
    Fix { recipe: String },
    /// A baseline build's log.
    Build,
    /// The variant's recorded output: its result file's, or the dataset's error text.
    Recorded,
    /// A campaign run's pane, followed from its driver's spool while it runs.
    Campaign { run_id: RunId, pane: Pane },
    /// The 3-way diff document.
    Patches,
    /// The agent run document.
    AgentRun,
    /// A campaign cell's document: its runs, fixes with their logs, and its result.
    CampaignCell,
}

impl LogId {
    /// A fix's or a build's output: a job of its own, kept open beside others (`o` goes to the next).
    /// A log that stays open behind another (`o` brings it forward): a fix's, a build's, a
    /// campaign run's pane.
    pub fn is_job(&self) -> bool {
        matches!(self, LogId::Fix { .. } | LogId::Build | LogId::Campaign { .. })
    }

    pub fn is_document(&self) -> bool {
        matches!(self, LogId::Patches | LogId::AgentRun | LogId::CampaignCell)
    }
}

/// The log's file stem in the workspace: `recorded`, `build`, `fix-<recipe>`, `<run id>-<pane>`.
impl std::fmt::Display for LogId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LogId::Run { run_id, pane } => write!(f, "{run_id}-{}", pane.name()),
            LogId::Fix { recipe } => write!(f, "fix-{recipe}"),
            LogId::Build => f.write_str("build"),
            LogId::Recorded => f.write_str("recorded"),
            LogId::Campaign { run_id, pane } => write!(f, "campaign-{run_id}-{}", pane.name()),
            LogId::Patches => f.write_str("patches"),
            LogId::AgentRun => f.write_str("agent-run"),
            LogId::CampaignCell => f.write_str("campaign-cell"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LogKey {
    pub short: Short,
    pub variant: Variant,
    pub log: LogId,
}

#[derive(Debug, Clone)]
pub struct Search {
    pub query: String,
    pub regex: Regex,
    /// Matching lines (absolute numbers) → byte ranges of the matches, for highlighting.
    pub matches: BTreeMap<usize, Vec<(usize, usize)>>,
    /// The current match's line.
    pub current: Option<usize>,
    /// Whether the spool below the ring has been searched to the end.
    pub spool_done: bool,
}

/// Matches kept per search; beyond this the title says `N+`.
pub const MAX_MATCHES: usize = 100_000;

#[derive(Debug, Clone)]
pub struct LogView {
    pub key: LogKey,
    pub title: String,
    pub ring: Ring,
    pub follow: bool,
    /// Absolute number of the first line on screen while paused.
    pub top: usize,
    pub new_while_paused: usize,
    pub search: Option<Search>,
    pub only_matches: bool,
    pub min_level: Option<Level>,
    pub wrap: bool,
    /// Lines older than the ring, read back from the spool: (first absolute number, lines).
    pub page: Option<(usize, Vec<Line>)>,
    pub finished: bool,
    /// Lines that head a section (a document's files), for Tab and S-Tab.
    pub sections: Vec<usize>,
}

impl LogView {
    pub fn new(key: LogKey, title: String, capacity: usize) -> LogView {
        LogView {
            key,
            title,
            ring: Ring::new(capacity),
            follow: true,
            top: 0,
            new_while_paused: 0,
            search: None,
            only_matches: false,
            min_level: None,
            wrap: false,
            page: None,
            finished: false,
            sections: Vec::new(),
        }
    }

    /// The first line on screen, `rows` high.
    pub fn top_line(&self, rows: usize) -> usize {
        if self.follow { self.ring.total().saturating_sub(rows) } else { self.top }
    }

    /// Count lines that went past unseen: newer lines fill the ring (a large log opened at once).
    pub fn skip(&mut self, n: usize) {
        self.ring.skip(n);
        if !self.follow {
            self.new_while_paused += n;
        }
    }

    pub fn append(&mut self, lines: Vec<Line>) {
        for line in lines {
            let n = self.ring.total();
            if let Some(search) = &mut self.search {
                search.record(n, line.text());
            }
            if line.text().starts_with(crate::agents::document::SECTION_MARK) {
                self.sections.push(n);
            }
            self.ring.push(line);
            if !self.follow {
                self.new_while_paused += 1;
            }
        }
    }

    /// A line by absolute number, from the ring or the fetched page.
    pub fn line(&self, n: usize) -> Option<&Line> {
        self.ring.get(n).or_else(|| {
            let (first, lines) = self.page.as_ref()?;
            lines.get(n.checked_sub(*first)?)
        })
    }

    /// Whether a line passes the level and match filters.
    pub fn shows(&self, n: usize, line: &Line) -> bool {
        let level_ok = self.min_level.is_none_or(|min| line.level.is_some_and(|l| l >= min));
        let match_ok = !self.only_matches || self.search.as_ref().is_none_or(|s| s.matches.contains_key(&n));
        level_ok && match_ok
    }

    /// Absolute numbers of the lines on screen: the last `rows` shown lines when following, else
    /// the shown lines from `top`.
    pub fn visible(&self, rows: usize, top: usize) -> Vec<usize> {
        let total = self.ring.total();
        let earliest =
            self.page.as_ref().map_or(self.ring.first(), |(first, _)| (*first).min(self.ring.first()));
        let shows = |n: usize| self.line(n).is_none_or(|l| self.shows(n, l));
        if self.follow {
            let mut out: Vec<usize> = (earliest..total).rev().filter(|&n| shows(n)).take(rows).collect();
            out.reverse();
            out
        } else {
            (top..total).filter(|&n| shows(n)).take(rows).collect()
        }
    }

    /// Put a line read back in full where its capped copy is.
    pub fn replace(&mut self, n: usize, line: Line) {
        if let Some(slot) = self.ring.get_mut(n) {
            *slot = line;
        } else if let Some((first, lines)) = &mut self.page
            && let Some(slot) = n.checked_sub(*first).and_then(|i| lines.get_mut(i))
        {
            *slot = line;
        }
    }

    /// Compile a search: a case-insensitive regex, or the literal text when it is no valid regex
    /// (said in the `Err`, the search set all the same).
    pub fn set_search(&mut self, query: &str) -> Result<(), SearchNote> {
        if query.is_empty() {
            self.search = None;
            return Ok(());
        }
        let build = |q: &str| RegexBuilder::new(q).case_insensitive(true).build();
        let (regex, note) = match build(query) {
            Ok(r) => (r, Ok(())),
            Err(_) => match build(&regex::escape(query)) {
                Ok(r) => (r, Err(SearchNote::Literal(query.to_string()))),
                Err(e) => return Err(SearchNote::Unusable(e)),
            },
        };
        let spool_done = self.ring.first() == 0;
        let mut search =
            Search { query: query.to_string(), regex, matches: BTreeMap::new(), current: None, spool_done };
        for (n, line) in self.ring.iter_from(self.ring.first()) {
            search.record(n, line.text());
        }
        self.search = Some(search);
        note
    }
}

/// What the operator is told about a search.
#[derive(Debug, thiserror::Error)]
pub enum SearchNote {
    #[error("`{0}` is not a valid regex; searching for the literal text")]
    Literal(String),
    #[error("no search: {0}")]
    Unusable(regex::Error),
}

impl Search {
    /// Merge matches a spool search found (lines older than the ring).
    pub fn merge(&mut self, hits: Vec<(usize, Vec<(usize, usize)>)>, done: bool) {
        for (n, ranges) in hits {
            if self.matches.len() >= MAX_MATCHES {
                break;
            }
            self.matches.insert(n, ranges);
        }
        self.spool_done |= done;
    }

    pub fn is_capped(&self) -> bool {
        self.matches.len() >= MAX_MATCHES
    }

    fn record(&mut self, n: usize, text: &str) {
        if self.matches.len() >= MAX_MATCHES {
            return;
        }
        let ranges: Vec<(usize, usize)> = self.regex.find_iter(text).map(|m| (m.start(), m.end())).collect();
        if !ranges.is_empty() {
            self.matches.insert(n, ranges);
        }
    }
}
