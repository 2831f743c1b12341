//! The campaign's counts over random journals: every prefix of a journal a campaign could write
//! counts no fewer ended, measured or failed cells than the prefix before it, and ended is always
//! measured + failed (the header went `1/18 ✗1` → `0/18 ✗0 ↻1` when a failed cell was retried).

use super::{CampaignState, Decision, Event};
use crate::dataset::{RunStatus, Variant};
use proptest::prelude::*;

const CELLS: [(&str, Variant); 4] = [
    ("aaaa0001", Variant::Baseline),
    ("aaaa0001", Variant::Human),
    ("aaaa0002", Variant::Baseline),
    ("aaaa0002", Variant::Human),
];

/// Where a cell is in the simulated campaign.
#[derive(Clone, Copy, PartialEq)]
enum Cell {
    Idle,
    Running(usize),
    FailedUndecided,
    Final,
}

/// A journal the engine could write, from random choices: runs launched and ended, failures left,
/// retried or fixed and run again, a cancel.
fn journal(choices: &[u8]) -> Vec<Event> {
    let mut events = vec![super::state::tests::started(&["aaaa0001", "aaaa0002"])];
    let mut cells = [Cell::Idle; 4];
    let mut runs = 0;
    for &c in choices {
        let (i, act) = (usize::from(c) % 4, c / 4 % 4);
        let (short, variant) = (CELLS[i].0.into(), CELLS[i].1);
        let launch = |runs: &mut usize, events: &mut Vec<Event>| {
            *runs += 1;
            let run_id = format!("r{runs}").into();
            events.push(Event::Launched { short: CELLS[i].0.into(), variant, run_id, at: "t".into() });
            Cell::Running(*runs)
        };
        cells[i] = match (cells[i], act) {
            (Cell::Idle, _) => launch(&mut runs, &mut events),
            (Cell::Running(r), _) => {
                let status = if act % 2 == 0 { RunStatus::Success } else { RunStatus::Error };
                events.push(super::state::tests::finished(&format!("r{r}"), status, Some("aimv2")));
                if status == RunStatus::Success { Cell::Final } else { Cell::FailedUndecided }
            }
            (Cell::FailedUndecided, 0) => {
                let leave = Decision::Leave { reason: "aimv2: left".into() };
                events.push(Event::decided(short, variant, leave, "t".into()));
                Cell::Final
            }
            (Cell::FailedUndecided, _) => {
                let retry = Decision::Retry { n: 1, after_s: 1 };
                events.push(Event::decided(short, variant, retry, "t".into()));
                launch(&mut runs, &mut events)
            }
            (Cell::Final, 3) if choices.len().is_multiple_of(7) => {
                // Nothing is launched after a cancel (a cancelled campaign is not resumed).
                events.push(Event::Cancelled { at: "t".into() });
                break;
            }
            (Cell::Final, _) => Cell::Final,
        };
    }
    events
}

proptest! {
    #[test]
    fn counts_are_a_function_of_the_journal_and_never_go_backwards(choices in prop::collection::vec(any::<u8>(), 0..60)) {
        let events = journal(&choices);
        let mut before = CampaignState::fold(&events[..1]).unwrap().progress();
        for n in 2..=events.len() {
            let now = CampaignState::fold(&events[..n]).unwrap().progress();
            prop_assert_eq!(now.ended, now.ok + now.failed);
            prop_assert!(now.ended <= now.total);
            prop_assert!(now.ended >= before.ended && now.ok >= before.ok && now.failed >= before.failed,
                "{:?} after {:?} at event {}: {:?}", now, before, n, events[n - 1]);
            before = now;
        }
    }
}
