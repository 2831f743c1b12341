//! A campaign as its journal says it stands: each (commit, variant)'s attempts, fixes and
//! decisions, and the counts the header and `campaign status` give.

use super::{CampaignSpec, Event};
use crate::classify::Disposition;
use crate::dataset::results::Stamp;
use crate::dataset::{RunStatus, Variant};
use crate::ids::{RunId, Short};
use std::collections::BTreeMap;

/// A run the campaign launched, and how it ended (`None`: in flight, or lost in a crash).
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub run_id: RunId,
    /// When it was launched (RFC 3339).
    pub launched: String,
    /// Its Slurm job (id, directory), when it went to Slurm.
    pub job: Option<(u64, String)>,
    pub finish: Option<Finish>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Finish {
    /// When it ended (RFC 3339).
    pub at: String,
    pub status: RunStatus,
    pub category: Option<crate::runs::FailureKind>,
    pub disposition: Option<Disposition>,
    /// Its result file, as the journal points at it (none for a set-up error).
    pub result: Option<String>,
}

/// One (commit, variant) of the campaign.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cell {
    pub attempts: Vec<Attempt>,
    /// Fixes the policy applied.
    pub fixes: Vec<FixTry>,
    /// The last decision that was not a run (why it is left, a retry's wait).
    pub decided: Option<super::Decision>,
    /// How many runs the cell had when that decision was made.
    pub decided_after: usize,
}

impl Attempt {
    /// How long it ran, launch to end (whole seconds), once it ended.
    pub fn seconds(&self) -> Option<i64> {
        let (from, to) = (Stamp::parse(&self.launched)?, Stamp::parse(&self.finish.as_ref()?.at)?);
        Some(to.seconds_since(from))
    }
}

/// What the board's header says of a campaign: `campaign nightly 37/288 ✓29 ✗6 ↻2 · ~3h10 left
/// (4 at once)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Headline {
    pub name: String,
    pub progress: Progress,
    /// The time its remaining runs take at its concurrency, from its runs' mean so far.
    pub left_s: Option<u64>,
    /// Its runs at once.
    pub at_once: u32,
    /// `paused`, `cancelled`, or empty.
    pub state: &'static str,
    /// Said when its driving process is gone before the campaign ended (`driver::stopped_line`).
    pub stopped: Option<String>,
}

impl std::fmt::Display for Headline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = &self.progress;
        write!(f, "campaign {} {}/{} ✓{} ✗{} ↻{}", self.name, p.ended, p.total, p.ok, p.failed, p.again)?;
        match (self.state, self.left_s, &self.stopped) {
            ("", _, Some(stopped)) => write!(f, " · {stopped}"),
            ("", Some(s), None) => {
                write!(f, " · ~{}h{:02} left ({} at once)", s / 3600, s % 3600 / 60, self.at_once)
            }
            ("", None, None) => Ok(()),
            (state, _, _) => write!(f, " · {state}"),
        }
    }
}

impl Cell {
    pub fn last_finish(&self) -> Option<&Finish> {
        self.attempts.last().and_then(|a| a.finish.as_ref())
    }

    /// The image its runs go in after the policy's fixes, and the recipes that made it.
    pub fn fixed(&self) -> Option<(crate::ids::ImageRef, Vec<String>)> {
        let image = self.fixes.iter().rev().find_map(|f| f.image.clone())?;
        Some((image, self.fixes.iter().filter(|f| f.verified).map(|f| f.recipe.clone()).collect()))
    }

    /// The host its runs must go to: the one its fixed image was committed on.
    pub fn pinned_host(&self) -> Option<&str> {
        self.fixes.iter().rev().find(|f| f.verified).and_then(|f| f.host.as_deref())
    }

    /// The cell's final outcome — `Some(true)` measured, `Some(false)` left failed — or `None`
    /// while something is still to happen to it (a run under way, a fix or a retry to come). A
    /// failure is final once the policy left it after that run, or the campaign was cancelled.
    pub fn is_final(&self, cancelled: bool) -> Option<bool> {
        let finish = self.last_finish()?;
        if finish.status == RunStatus::Success {
            return Some(true);
        }
        let left = matches!(self.decided, Some(super::Decision::Leave { .. }))
            && self.decided_after == self.attempts.len();
        (left || cancelled).then_some(false)
    }

    /// The run launched and not seen to end.
    pub fn in_flight(&self) -> Option<&RunId> {
        self.attempts.last().filter(|a| a.finish.is_none()).map(|a| &a.run_id)
    }
}

/// A fix the policy applied: whether it verified, and how many runs the cell had before it.
#[derive(Debug, Clone, PartialEq)]
pub struct FixTry {
    pub recipe: String,
    pub verified: bool,
    pub after_attempts: usize,
    /// The `[[hosts]]` host its image was committed on (none: this machine's engine).
    pub host: Option<String>,
    /// The fixed image it committed, when it verified.
    pub image: Option<crate::ids::ImageRef>,
    /// When it was journalled (RFC 3339).
    pub at: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CampaignState {
    pub spec: CampaignSpec,
    /// When it started (RFC 3339).
    pub started_at: String,
    /// Its commits usable 3-way when it started.
    pub usable_before: Option<usize>,
    pub cells: BTreeMap<(Short, Variant), Cell>,
    pub paused: bool,
    pub cancelled: bool,
}

/// What the header and `campaign status` count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub total: usize,
    /// Cells whose outcome is final: measured, or left failed (a cell to fix or to retry is not).
    pub ended: usize,
    pub ok: usize,
    pub failed: usize,
    /// Runs beyond each cell's first (retries and re-runs after a fix).
    pub again: usize,
}

impl Progress {
    /// `37/288 ended · ✓29 ✗6 ↻2`, as `campaign status` and a campaign's last line say it.
    pub fn tally(&self) -> String {
        format!("{}/{} ended · ✓{} ✗{} ↻{}", self.ended, self.total, self.ok, self.failed, self.again)
    }
}

impl CampaignState {
    /// The journal's events folded; `None` without its `started` event.
    pub fn fold(events: &[Event]) -> Option<CampaignState> {
        let Some(Event::Started { spec, usable, at, .. }) = events.first() else { return None };
        let cells = spec.cells().map(|key| (key, Cell::default())).collect();
        let (spec, started_at, usable_before) = (spec.clone(), at.clone(), *usable);
        let mut state =
            CampaignState { spec, started_at, usable_before, cells, paused: false, cancelled: false };
        events[1..].iter().for_each(|e| state.apply(e));
        Some(state)
    }

    fn apply(&mut self, event: &Event) {
        match event {
            Event::Started { .. } | Event::Driven { .. } => {}
            Event::Launched { short, variant, run_id, at } => {
                let attempt =
                    Attempt { run_id: run_id.clone(), launched: at.clone(), job: None, finish: None };
                self.cell_mut(short, *variant).attempts.push(attempt);
            }
            Event::Finished { run_id, status, category, disposition, result, at } => {
                let (status, disposition, at, result) = (*status, *disposition, at.clone(), result.clone());
                let finish = Finish { at, status, category: category.clone(), disposition, result };
                if let Some(attempt) = self.attempt_mut(run_id) {
                    attempt.finish = Some(finish);
                }
            }
            Event::Submitted { run_id, job_id, dir, .. } => {
                if let Some(attempt) = self.attempt_mut(run_id) {
                    attempt.job = Some((*job_id, dir.clone()));
                }
            }
            Event::Fixed { short, variant, recipe, image, host, at } => {
                let cell = self.cell_mut(short, *variant);
                // Journalled while a run is in flight, a fix was taken at that run's launch (its
                // image sibling's fixed image): it comes before that run, answering no failure.
                let after_attempts = cell.attempts.len() - usize::from(cell.in_flight().is_some());
                let (recipe, verified, host, image) =
                    (recipe.clone(), image.is_some(), host.clone(), image.clone());
                cell.fixes.push(FixTry { recipe, verified, after_attempts, host, image, at: at.clone() });
            }
            Event::Decided { short, variant, what, decision, .. } => {
                let decision = decision.clone().unwrap_or_else(|| super::Decision::from_words(what));
                let cell = self.cell_mut(short, *variant);
                (cell.decided, cell.decided_after) = (Some(decision), cell.attempts.len());
            }
            Event::Paused { .. } => self.paused = true,
            Event::Resumed { .. } => self.paused = false,
            Event::Cancelled { .. } => self.cancelled = true,
        }
    }

    /// Every cell's run launched and not seen to end.
    pub fn runs_in_flight(&self) -> std::collections::BTreeSet<RunId> {
        self.cells.values().filter_map(Cell::in_flight).cloned().collect()
    }

    /// The runs the journal says ended.
    pub fn runs_ended(&self) -> std::collections::BTreeSet<RunId> {
        let attempts = self.cells.values().flat_map(|c| c.attempts.iter());
        attempts.filter(|a| a.finish.is_some()).map(|a| a.run_id.clone()).collect()
    }

    fn cell_mut(&mut self, short: &Short, variant: Variant) -> &mut Cell {
        self.cells.entry((short.clone(), variant)).or_default()
    }

    fn attempt_mut(&mut self, run_id: &RunId) -> Option<&mut Attempt> {
        self.cells.values_mut().flat_map(|c| c.attempts.iter_mut()).find(|a| &a.run_id == run_id)
    }

    /// The header's line: name, counts, and the time left at the mean duration of its runs so far.
    pub fn headline(&self) -> Headline {
        let progress = self.progress();
        let took: Vec<i64> =
            self.cells.values().flat_map(|c| &c.attempts).filter_map(Attempt::seconds).collect();
        let mean = i64::try_from(took.len()).ok().filter(|n| *n > 0).map(|n| took.iter().sum::<i64>() / n);
        let at_once = self.spec.concurrency.max(1);
        // Every cell not ended has a run to go (a fix's re-run included), `at_once` at a time.
        let to_go = (progress.total - progress.ended).div_ceil(at_once as usize);
        let to_go = i64::try_from(to_go).unwrap_or(i64::MAX);
        let left_s = mean.filter(|_| to_go > 0).map(|m| u64::try_from(m.saturating_mul(to_go)).unwrap_or(0));
        let state = if self.cancelled {
            "cancelled"
        } else if self.paused {
            "paused"
        } else {
            ""
        };
        Headline { name: self.spec.name.to_string(), progress, left_s, at_once, state, stopped: None }
    }

    /// Whether nothing more will happen to it: cancelled, or every cell's outcome final.
    pub fn has_ended(&self) -> bool {
        let p = self.progress();
        self.cancelled || p.ended == p.total
    }

    /// When it ended: its last run's end (RFC 3339), once it has.
    pub fn ended_at(&self) -> Option<&str> {
        let ends = self.cells.values().flat_map(|c| c.attempts.iter().filter_map(|a| a.finish.as_ref()));
        self.has_ended().then(|| ends.map(|f| f.at.as_str()).max()).flatten()
    }

    /// Counts that only grow as the journal does: a cell is ended once its outcome is final.
    pub fn progress(&self) -> Progress {
        let mut p = Progress { total: self.cells.len(), ..Progress::default() };
        for cell in self.cells.values() {
            p.again += cell.attempts.len().saturating_sub(1);
            let Some(ok) = cell.is_final(self.cancelled) else { continue };
            p.ended += 1;
            match ok {
                true => p.ok += 1,
                false => p.failed += 1,
            }
        }
        p
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::campaigns::Policy;

    /// The `started` event of a campaign over `commits`' baselines and humans.
    pub(crate) fn started(commits: &[&str]) -> Event {
        let spec = CampaignSpec {
            name: "nightly".into(),
            commits: commits.iter().map(|c| Short::from(*c)).collect(),
            variants: vec![Variant::Baseline, Variant::Human],
            repeat: crate::runs::Repeat::Times(3),
            policy: Policy { auto_fix: true, retries: 2, retry_wait_s: 30 },
            concurrency: 1,
            slurm: false,
            only: None,
        };
        Event::Started { schema: super::super::SCHEMA, spec, usable: None, at: "t0".into() }
    }

    pub(crate) fn launched(short: &str, variant: Variant, run: &str) -> Event {
        Event::Launched { short: short.into(), variant, run_id: run.into(), at: "t".into() }
    }

    pub(crate) fn finished(run: &str, status: RunStatus, category: Option<&str>) -> Event {
        Event::Finished {
            run_id: run.into(),
            status,
            category: category.map(crate::runs::FailureKind::from_name),
            disposition: None,
            result: None,
            at: "t".into(),
        }
    }

    #[test]
    fn the_headline_estimates_the_time_left_from_the_runs_so_far() {
        let at = |t: &str| format!("2026-11-27T0{t}Z");
        let timed = |event: Event, t: &str| match event {
            Event::Launched { short, variant, run_id, .. } => {
                Event::Launched { short, variant, run_id, at: at(t) }
            }
            Event::Finished { run_id, status, category, disposition, result, .. } => {
                Event::Finished { run_id, status, category, disposition, result, at: at(t) }
            }
            other => other,
        };
        let events = [
            started(&["aaaa0001", "aaaa0002", "aaaa0003"]),
            timed(launched("aaaa0001", Variant::Baseline, "r1"), "1:00:00"),
            timed(finished("r1", RunStatus::Success, None), "1:20:00"),
            timed(launched("aaaa0001", Variant::Human, "r2"), "1:20:00"),
            timed(finished("r2", RunStatus::Error, Some("aimv2")), "1:30:00"),
        ];
        let state = CampaignState::fold(&events).unwrap();
        assert_eq!(
            state.headline().to_string(),
            "campaign nightly 1/6 ✓1 ✗0 ↻0 · ~1h15 left (1 at once)",
            "the failure may yet be fixed or retried: 5 to go at 15 min"
        );
        let leave = crate::campaigns::Decision::Leave { reason: "aimv2: no recipe".into() };
        let left = Event::decided("aaaa0001".into(), Variant::Human, leave, "t".into());
        let mut state = CampaignState::fold(&[events.as_slice(), &[left]].concat()).unwrap();
        assert_eq!(state.headline().to_string(), "campaign nightly 2/6 ✓1 ✗1 ↻0 · ~1h00 left (1 at once)");
        state.spec.concurrency = 4;
        assert_eq!(
            state.headline().to_string(),
            "campaign nightly 2/6 ✓1 ✗1 ↻0 · ~0h15 left (4 at once)",
            "4 to go, 4 at once"
        );
        state.paused = true;
        assert_eq!(state.headline().to_string(), "campaign nightly 2/6 ✓1 ✗1 ↻0 · paused");
    }

    /// Two commits: the first's baseline ran (r1, ok), its human failed (r2, aimv2).
    pub(crate) fn two_commits(more: &[Event]) -> Vec<Event> {
        let first = [
            started(&["aaaa0001", "aaaa0002"]),
            launched("aaaa0001", Variant::Baseline, "r1"),
            finished("r1", RunStatus::Success, None),
            launched("aaaa0001", Variant::Human, "r2"),
            finished("r2", RunStatus::Error, Some("aimv2")),
        ];
        [&first[..], more].concat()
    }

    #[test]
    fn the_journal_folds_to_each_cells_attempts_and_the_counts() {
        let events = two_commits(&[
            launched("aaaa0001", Variant::Human, "r3"),
            launched("aaaa0002", Variant::Baseline, "r4"),
        ]);
        let state = CampaignState::fold(&events).unwrap();
        assert_eq!(state.cells.len(), 4, "every cell, run or not");
        let human = &state.cells[&("aaaa0001".into(), Variant::Human)];
        assert_eq!(human.attempts.len(), 2);
        assert_eq!(human.in_flight().map(RunId::as_str), Some("r3"), "launched, not seen to end");
        let p = state.progress();
        assert_eq!((p.total, p.ended, p.ok, p.failed, p.again), (4, 1, 1, 0, 1));
        assert_eq!(
            state.headline().to_string(),
            "campaign nightly 1/4 ✓1 ✗0 ↻1",
            "no run with times: no estimate"
        );
        assert!(CampaignState::fold(&events[1..]).is_none(), "no started event: no campaign");
    }
}
