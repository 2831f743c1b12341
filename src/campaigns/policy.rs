//! What a (commit, variant) of a campaign needs next, from its journal alone: run it, pick up its
//! run in flight, apply the verified recipe its failure has and run it again once, retry an
//! infrastructure failure after a wait, or leave it for a look — always with the reason.

use super::Cell;
use crate::classify::Disposition;
use crate::dataset::RunStatus;
use crate::ids::RunId;
use crate::runs::FailureKind;
use serde::{Deserialize, Serialize};

/// How a campaign treats failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// A failure whose category has a verified recipe is fixed and run again once.
    pub auto_fix: bool,
    /// Infrastructure failures are retried this many times, with a growing wait.
    pub retries: u32,
    /// The wait before the first retry, in seconds; each next one doubles, up to ten minutes.
    #[serde(default = "first_wait")]
    pub retry_wait_s: u64,
}

fn first_wait() -> u64 {
    BACKOFF_S
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Launch a run.
    Run,
    /// Pick up the run launched before a restart (from its launch record).
    PickUp(RunId),
    /// Apply this recipe, then run again.
    Fix(String),
    /// Run again after this many seconds (an infrastructure failure, retry `n`).
    Retry { n: u32, after_s: u64 },
    /// Nothing more to do: it succeeded.
    Done,
    /// Left for a look, and why.
    Leave(String),
}

/// A decision of the policy that is not a run, as the journal keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Decision {
    /// Run again after a wait (an infrastructure failure, retry `n`).
    Retry { n: u32, after_s: u64 },
    /// Left for a look, and why.
    Leave { reason: String },
}

impl Decision {
    /// A journal written before decisions had a kind said them in words only: a retry's wait as
    /// `retry N in S s`, anything else as why the cell is left.
    pub fn from_words(what: &str) -> Decision {
        let retry = what.strip_prefix("retry ").and_then(|rest| {
            let (n, wait) = rest.split_once(" in ")?;
            Some(Decision::Retry { n: n.parse().ok()?, after_s: wait.strip_suffix(" s")?.parse().ok()? })
        });
        retry.unwrap_or_else(|| Decision::Leave { reason: what.to_string() })
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Decision::Retry { n, after_s } => write!(f, "retry {n} in {after_s} s"),
            Decision::Leave { reason } => f.write_str(reason),
        }
    }
}

/// The first wait before a retry unless the campaign says otherwise.
const BACKOFF_S: u64 = 30;
const BACKOFF_MAX_S: u64 = 600;

/// The retries of a campaign started from the board (its confirm says so).
pub const BOARD_RETRIES: u32 = 2;

/// `recipe_for(category)`: the verified recipe that answers a failure's category, if any.
pub fn next(cell: &Cell, policy: Policy, recipe_for: impl Fn(&str) -> Option<String>) -> Next {
    if let Some(run_id) = cell.in_flight() {
        return Next::PickUp(run_id.clone());
    }
    let Some(finish) = cell.last_finish() else { return Next::Run };
    if finish.status == RunStatus::Success {
        return Next::Done;
    }
    let kind =
        finish.category.clone().unwrap_or_else(|| FailureKind::from_name(crate::classify::UNCLASSIFIED));
    // Stopped by the campaign itself (a signal) or lost in a restart: it never ran, not counted.
    if matches!(kind, FailureKind::Cancelled | FailureKind::LostInARestart) {
        return Next::Run;
    }
    let category = kind.name();
    if kind == FailureKind::CancelledOnRequest {
        return Next::Leave(format!("{category}: stopped as asked; not run again"));
    }
    if let Some(after_fix) = after_fix(cell, category) {
        return after_fix;
    }
    match finish.disposition {
        Some(Disposition::InfraRetry) => retry(cell, policy, category),
        Some(Disposition::FixableInContainer) if policy.auto_fix => match recipe_for(category) {
            Some(recipe) => Next::Fix(recipe),
            None => Next::Leave(format!("{category}: no verified recipe answers it")),
        },
        Some(Disposition::AgentFailure | Disposition::UnfixableHere) => {
            Next::Leave(format!("{category}: the same on every run, not retried"))
        }
        _ => Next::Leave(format!("{category}: no fix or retry applies; left for a look")),
    }
}

/// An infrastructure failure: retried while retries are left (every such failure after the
/// first was a retry), each after twice the wait of the one before.
fn retry(cell: &Cell, policy: Policy, category: &str) -> Next {
    let infra = cell.attempts.iter().filter(|a| a.finish.as_ref().is_some_and(is_infra)).count();
    let infra = u32::try_from(infra).unwrap_or(u32::MAX);
    let spent = infra.saturating_sub(1);
    if spent >= policy.retries {
        return Next::Leave(format!("{category}: {spent} retries spent of {}", policy.retries));
    }
    let after_s = (policy.retry_wait_s << spent.min(10)).min(BACKOFF_MAX_S);
    Next::Retry { n: spent + 1, after_s }
}

fn is_infra(finish: &super::Finish) -> bool {
    finish.disposition == Some(Disposition::InfraRetry)
}

/// Once fixed: run again once; a fix that did not verify, or a run after it that failed, is left
/// for a look with both attempts kept.
fn after_fix(cell: &Cell, category: &str) -> Option<Next> {
    // A sibling's fixed image taken before the cell's first run answered no failure of its own.
    let fix = cell.fixes.last().filter(|f| f.after_attempts > 0)?;
    Some(match (fix.verified, cell.attempts.len() > fix.after_attempts) {
        (false, _) => Next::Leave(format!("{} did not verify", fix.recipe)),
        (true, false) => Next::Run,
        (true, true) => Next::Leave(format!("{category} again after {}; both runs kept", fix.recipe)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaigns::{Attempt, Finish, FixTry};

    fn failed(disposition: Disposition, category: &str) -> Attempt {
        let finish = Finish {
            at: "t1".into(),
            status: RunStatus::Error,
            category: Some(FailureKind::from_name(category)),
            disposition: Some(disposition),
            result: None,
        };
        attempt("r", Some(finish))
    }

    fn attempt(run_id: &str, finish: Option<Finish>) -> Attempt {
        Attempt { run_id: run_id.into(), launched: "t0".into(), job: None, finish }
    }

    /// A cell whose fixes came after its first run.
    fn cell(attempts: Vec<Attempt>, fixes: &[(&str, bool)]) -> Cell {
        let fix = |(r, ok): &(&str, bool)| FixTry {
            recipe: r.to_string(),
            verified: *ok,
            after_attempts: 1,
            host: None,
            image: None,
            at: "t".into(),
        };
        Cell { attempts, fixes: fixes.iter().map(fix).collect(), decided: None, decided_after: 0 }
    }

    const POLICY: Policy = Policy { auto_fix: true, retries: 2, retry_wait_s: 30 };

    fn numpy(category: &str) -> Option<String> {
        (category == "numpy2").then(|| "numpy_lt_2".to_string())
    }

    /// A decision reads back as itself from its words (what an older journal holds), and a
    /// reason that merely mentions a retry stays a reason.
    #[test]
    fn a_decision_reads_back_from_its_words() {
        for decision in [
            Decision::Retry { n: 2, after_s: 60 },
            Decision::Leave { reason: "patch_fail: the same on every run, not retried".into() },
            Decision::Leave { reason: "retry nothing: retry 1 in soon".into() },
        ] {
            assert_eq!(Decision::from_words(&decision.to_string()), decision);
        }
    }

    #[test]
    fn a_fixable_failure_is_fixed_once_and_left_when_it_fails_again() {
        let once = cell(vec![failed(Disposition::FixableInContainer, "numpy2")], &[]);
        assert_eq!(next(&once, POLICY, numpy), Next::Fix("numpy_lt_2".into()));
        let no_auto = Policy { auto_fix: false, ..POLICY };
        assert!(matches!(next(&once, no_auto, numpy), Next::Leave(_)), "without --auto-fix");
        let fixed = cell(vec![failed(Disposition::FixableInContainer, "numpy2")], &[("numpy_lt_2", true)]);
        assert_eq!(next(&fixed, POLICY, numpy), Next::Run, "fixed: run again");
        let twice = cell(vec![failed(Disposition::FixableInContainer, "numpy2"); 2], &[("numpy_lt_2", true)]);
        assert_eq!(
            next(&twice, POLICY, numpy),
            Next::Leave("numpy2 again after numpy_lt_2; both runs kept".into())
        );
        let unverified =
            cell(vec![failed(Disposition::FixableInContainer, "numpy2")], &[("numpy_lt_2", false)]);
        assert_eq!(next(&unverified, POLICY, numpy), Next::Leave("numpy_lt_2 did not verify".into()));
    }

    #[test]
    fn infrastructure_failures_are_retried_with_a_growing_wait_deterministic_ones_never() {
        let lost = |n| cell(vec![failed(Disposition::InfraRetry, "docker_unreachable"); n], &[]);
        assert_eq!(next(&lost(1), POLICY, numpy), Next::Retry { n: 1, after_s: 30 });
        assert_eq!(next(&lost(2), POLICY, numpy), Next::Retry { n: 2, after_s: 60 });
        assert!(matches!(next(&lost(3), POLICY, numpy), Next::Leave(why) if why.contains("2 retries spent")));
        let patch = cell(vec![failed(Disposition::AgentFailure, "patch_fail")], &[]);
        assert!(matches!(next(&patch, POLICY, numpy), Next::Leave(why) if why.contains("not retried")));
    }

    #[test]
    fn a_run_in_flight_is_picked_up_a_success_is_done_nothing_yet_is_run() {
        let flying = cell(vec![attempt("r7", None)], &[]);
        assert_eq!(next(&flying, POLICY, numpy), Next::PickUp("r7".into()));
        let ok = Finish {
            at: "t1".into(),
            status: RunStatus::Success,
            category: None,
            disposition: None,
            result: None,
        };
        let done = cell(vec![attempt("r", Some(ok))], &[]);
        assert_eq!(next(&done, POLICY, numpy), Next::Done);
        assert_eq!(next(&Cell::default(), POLICY, numpy), Next::Run);
        let stopped = cell(vec![failed(Disposition::NeedsLook, "cancelled")], &[]);
        assert_eq!(next(&stopped, POLICY, numpy), Next::Run, "stopped by a signal: run again");
    }

    /// The agent took its sibling's fixed image at its launch (journalled after `launched`), then
    /// failed in it on something else: that failure gets its own recipe, not "again after".
    #[test]
    fn a_fixed_image_taken_at_a_launch_comes_before_that_run() {
        use crate::campaigns::state::tests::{finished, launched, started};
        let fixed = crate::campaigns::Event::Fixed {
            short: "c1".into(),
            variant: crate::dataset::Variant::Agent,
            recipe: "numpy_lt_2".into(),
            image: Some("perftriage-fixed:baseline-p".into()),
            host: None,
            at: "t".into(),
        };
        let mut broken = finished("r1", RunStatus::Error, Some("tf_broken_import"));
        if let crate::campaigns::Event::Finished { disposition, .. } = &mut broken {
            *disposition = Some(Disposition::FixableInContainer);
        }
        let events = [started(&["c1"]), launched("c1", crate::dataset::Variant::Agent, "r1"), fixed, broken];
        let state = crate::campaigns::CampaignState::fold(&events).unwrap();
        let cell = &state.cells[&(crate::ids::Short::from("c1"), crate::dataset::Variant::Agent)];
        assert_eq!(cell.fixes[0].after_attempts, 0);
        let recipe = |c: &str| (c == "tf_broken_import").then(|| "transformers_cleanup".to_string());
        let next = next(cell, state.spec.policy, recipe);
        assert_eq!(next, Next::Fix("transformers_cleanup".into()));
    }
}
