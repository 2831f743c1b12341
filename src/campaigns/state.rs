//! A campaign as its journal says it stands: each (commit, variant)'s attempts, fixes and
//! decisions, and the counts the header and `campaign status` give.

use super::{CampaignSpec, Event};
use crate::classify::Disposition;
use crate::dataset::{RunStatus, Variant};
use crate::ids::{RunId, Short};
use std::collections::BTreeMap;

/// A run the campaign launched, and how it ended (`None`: in flight, or lost in a crash).
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub run_id: RunId,
    pub finish: Option<Finish>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Finish {
    pub status: RunStatus,
    pub category: Option<String>,
    pub disposition: Option<Disposition>,
}

/// One (commit, variant) of the campaign.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cell {
    pub attempts: Vec<Attempt>,
    /// Fixes the policy applied.
    pub fixes: Vec<FixTry>,
    /// The last decision that was not a run (why it is left, a retry's wait).
    pub decided: Option<String>,
}

impl Cell {
    pub fn last_finish(&self) -> Option<&Finish> {
        self.attempts.last().and_then(|a| a.finish.as_ref())
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
}

#[derive(Debug, Clone, PartialEq)]
pub struct CampaignState {
    pub spec: CampaignSpec,
    /// When it started (RFC 3339).
    pub started_at: String,
    pub cells: BTreeMap<(Short, Variant), Cell>,
    pub paused: bool,
    pub cancelled: bool,
}

/// What the header and `campaign status` count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub total: usize,
    /// Cells whose newest run ended (any way).
    pub ended: usize,
    pub ok: usize,
    pub failed: usize,
    /// Runs beyond each cell's first (retries and re-runs after a fix).
    pub again: usize,
}

impl CampaignState {
    /// The journal's events folded; `None` without its `started` event.
    pub fn fold(events: &[Event]) -> Option<CampaignState> {
        let Some(Event::Started { spec, at }) = events.first() else { return None };
        let cells = spec.cells().map(|key| (key, Cell::default())).collect();
        let (spec, started_at) = (spec.clone(), at.clone());
        let mut state = CampaignState { spec, started_at, cells, paused: false, cancelled: false };
        events[1..].iter().for_each(|e| state.apply(e));
        Some(state)
    }

    fn apply(&mut self, event: &Event) {
        match event {
            Event::Started { .. } => {}
            Event::Launched { short, variant, run_id, .. } => {
                let attempt = Attempt { run_id: run_id.clone(), finish: None };
                self.cell_mut(short, *variant).attempts.push(attempt);
            }
            Event::Finished { run_id, status, category, disposition, .. } => {
                let finish =
                    Finish { status: *status, category: category.clone(), disposition: *disposition };
                if let Some(attempt) = self.attempt_mut(run_id) {
                    attempt.finish = Some(finish);
                }
            }
            Event::Fixed { short, variant, recipe, image, .. } => {
                let cell = self.cell_mut(short, *variant);
                let after_attempts = cell.attempts.len();
                cell.fixes.push(FixTry { recipe: recipe.clone(), verified: image.is_some(), after_attempts });
            }
            Event::Decided { short, variant, what, .. } => {
                self.cell_mut(short, *variant).decided = Some(what.clone())
            }
            Event::Paused { .. } => self.paused = true,
            Event::Resumed { .. } => self.paused = false,
            Event::Cancelled { .. } => self.cancelled = true,
        }
    }

    fn cell_mut(&mut self, short: &Short, variant: Variant) -> &mut Cell {
        self.cells.entry((short.clone(), variant)).or_default()
    }

    fn attempt_mut(&mut self, run_id: &RunId) -> Option<&mut Attempt> {
        self.cells.values_mut().flat_map(|c| c.attempts.iter_mut()).find(|a| &a.run_id == run_id)
    }

    pub fn progress(&self) -> Progress {
        let mut p = Progress { total: self.cells.len(), ..Progress::default() };
        for cell in self.cells.values() {
            p.again += cell.attempts.len().saturating_sub(1);
            let Some(finish) = cell.last_finish() else { continue };
            p.ended += 1;
            match finish.status {
                RunStatus::Success => p.ok += 1,
                _ => p.failed += 1,
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
            policy: Policy { auto_fix: true, retries: 2 },
        };
        Event::Started { spec, at: "t0".into() }
    }

    pub(crate) fn launched(short: &str, variant: Variant, run: &str) -> Event {
        Event::Launched { short: short.into(), variant, run_id: run.into(), at: "t".into() }
    }

    pub(crate) fn finished(run: &str, status: RunStatus, category: Option<&str>) -> Event {
        Event::Finished {
            run_id: run.into(),
            status,
            category: category.map(str::to_string),
            disposition: None,
            result: None,
            at: "t".into(),
        }
    }

    #[test]
    fn the_journal_folds_to_each_cells_attempts_and_the_counts() {
        let events = [
            started(&["aaaa0001", "aaaa0002"]),
            launched("aaaa0001", Variant::Baseline, "r1"),
            finished("r1", RunStatus::Success, None),
            launched("aaaa0001", Variant::Human, "r2"),
            finished("r2", RunStatus::Error, Some("aimv2")),
            launched("aaaa0001", Variant::Human, "r3"),
            launched("aaaa0002", Variant::Baseline, "r4"),
        ];
        let state = CampaignState::fold(&events).unwrap();
        assert_eq!(state.cells.len(), 4, "every cell, run or not");
        let human = &state.cells[&("aaaa0001".into(), Variant::Human)];
        assert_eq!(human.attempts.len(), 2);
        assert_eq!(human.in_flight().map(RunId::as_str), Some("r3"), "launched, not seen to end");
        let p = state.progress();
        assert_eq!((p.total, p.ended, p.ok, p.failed, p.again), (4, 1, 1, 0, 1));
        assert!(CampaignState::fold(&events[1..]).is_none(), "no started event: no campaign");
    }
}
