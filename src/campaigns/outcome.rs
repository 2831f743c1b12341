//! A campaign's outcome as the benchmark's people count it: usable 3-way commits (all three
//! variants measured, every pair comparable) before it started and now, the failures it left by
//! category, the fixes it applied, the retries it spent and its runs' total time.

use super::{CampaignState, Cell};
use crate::classify::Disposition;
use crate::dataset::RunStatus;
use crate::ids::Short;
pub use crate::report::CampaignOutcome as Outcome;

/// `usable(short)`: whether the commit is usable 3-way now.
pub fn outcome(state: &CampaignState, usable: impl Fn(&Short) -> bool) -> Outcome {
    let mut out = Outcome {
        commits: state.spec.commits.len(),
        usable_before: state.usable_before,
        usable_now: state.spec.commits.iter().filter(|s| usable(s)).count(),
        started: state.started_at.clone(),
        ended: state.ended_at().map(str::to_string),
        wall_s: wall_s(state),
        ..Outcome::default()
    };
    state.cells.values().for_each(|cell| count(&mut out, cell, state.cancelled));
    out
}

/// Its wall time, start to end, once it ended.
fn wall_s(state: &CampaignState) -> Option<i64> {
    use crate::dataset::results::Stamp;
    let (from, to) = (Stamp::parse(&state.started_at)?, Stamp::parse(state.ended_at()?)?);
    Some(to.seconds_since(from))
}

/// A cell's part: its failure where it is left failed (one still to be fixed or retried is not
/// left yet), its verified fixes, its retries and its runs' time.
fn count(out: &mut Outcome, cell: &Cell, cancelled: bool) {
    let left = cell.is_final(cancelled) == Some(false);
    if let Some(finish) = cell.last_finish().filter(|f| left && f.status != RunStatus::Success) {
        let category =
            finish.category.as_ref().map_or(crate::classify::UNCLASSIFIED, |k| k.name()).to_string();
        *out.left.entry(category).or_default() += 1;
    }
    for fix in cell.fixes.iter().filter(|f| f.verified) {
        *out.fixes.entry(fix.recipe.clone()).or_default() += 1;
    }
    let infra = |a: &super::Attempt| {
        a.finish.as_ref().is_some_and(|f| f.disposition == Some(Disposition::InfraRetry))
    };
    out.retries += cell.attempts.windows(2).filter(|pair| infra(&pair[0])).count();
    out.run_s += cell.attempts.iter().filter_map(super::Attempt::seconds).sum::<i64>();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaigns::Event;
    use crate::campaigns::state::tests::{launched, started};
    use crate::dataset::Variant;
    use std::collections::BTreeMap;

    fn ended(run: &str, status: RunStatus, category: Option<&str>, d: Option<Disposition>, t: &str) -> Event {
        Event::Finished {
            run_id: run.into(),
            status,
            category: category.map(crate::runs::FailureKind::from_name),
            disposition: d,
            result: None,
            at: format!("2026-11-27T01:{t}Z"),
        }
    }

    fn at(event: Event, t: &str) -> Event {
        match event {
            Event::Launched { short, variant, run_id, .. } => {
                Event::Launched { short, variant, run_id, at: format!("2026-11-27T01:{t}Z") }
            }
            other => other,
        }
    }

    #[test]
    fn the_outcome_counts_usable_commits_what_is_left_fixes_retries_and_time() {
        let (ok, err) = (RunStatus::Success, RunStatus::Error);
        let fixed = Event::Fixed {
            short: "aaaa0001".into(),
            variant: Variant::Human,
            recipe: "numpy_lt_2".into(),
            image: Some("perftriage-fixed:x".into()),
            host: None,
            at: "t".into(),
        };
        let events = [
            started(&["aaaa0001", "aaaa0002"]),
            at(launched("aaaa0001", Variant::Human, "r1"), "00:00"),
            ended("r1", err, Some("numpy2"), Some(Disposition::FixableInContainer), "01:00"),
            fixed,
            at(launched("aaaa0001", Variant::Human, "r2"), "01:00"),
            ended("r2", ok, None, None, "02:30"),
            at(launched("aaaa0002", Variant::Human, "r3"), "00:00"),
            ended("r3", err, Some("docker_unreachable"), Some(Disposition::InfraRetry), "00:10"),
            at(launched("aaaa0002", Variant::Human, "r4"), "01:00"),
            ended("r4", err, Some("patch_fail"), Some(Disposition::AgentFailure), "01:20"),
        ];
        // Before the policy leaves it, the failure may still be fixed or retried: nothing is left.
        let pending = outcome(&CampaignState::fold(&events).unwrap(), |_| false);
        assert!(pending.left.is_empty(), "{:?}", pending.left);
        let leave = crate::campaigns::Decision::Leave { reason: "patch_fail: the same every run".into() };
        let left = Event::decided("aaaa0002".into(), Variant::Human, leave, "t".into());
        let events = [events.as_slice(), &[left]].concat();
        let state = CampaignState::fold(&events).unwrap();
        let outcome = outcome(&state, |s| s.as_str() == "aaaa0001");
        assert_eq!((outcome.commits, outcome.usable_now, outcome.usable_before), (2, 1, None));
        assert_eq!(
            outcome.left,
            BTreeMap::from([("patch_fail".to_string(), 1)]),
            "the newest run's failure only"
        );
        assert_eq!(outcome.fixes, BTreeMap::from([("numpy_lt_2".to_string(), 1)]));
        assert_eq!(outcome.retries, 1, "the run after the lost one");
        assert_eq!(outcome.run_s, 60 + 90 + 10 + 20);
        assert_eq!(outcome.lines()[0], "usable 3-way: ? before → 1 now, of 2 commits");
        assert_eq!(outcome.lines()[4], "started t0 · not ended", "two baselines never ran");
        let mut state = state;
        (state.cancelled, state.started_at) = (true, "2026-11-27T01:00:00Z".into());
        let ended = super::outcome(&state, |_| false);
        assert_eq!((ended.ended.as_deref(), ended.wall_s), (Some("2026-11-27T01:02:30Z"), Some(150)));
        assert_eq!(ended.lines()[4], "started 2026-11-27T01:00:00Z · ended 2026-11-27T01:02:30Z · wall 0h02");
    }
}
