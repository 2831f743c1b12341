//! The campaign loop: read the journal, let the policy pick the (commit, variant)s with something
//! to do and take up to the campaign's concurrency of those steps at once, each journalled before
//! it is taken and its end after. Everything it knows comes from the journal, so it starts the
//! same after any stop.

use super::steps::{Crew, Given, Key};
use super::{EngineError, say};
use crate::campaigns::{CampaignState, Decision, Event, Next, next};
use crate::jobs::driver::DriverLock;
use crate::jobs::journal::Journal;
use crate::jobs::signals::Stopped;
use crate::session::Context;
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::time::Duration;
use tokio::sync::watch;

/// How often a loop with steps under way looks at the journal again (a `campaign pause` or
/// `cancel` from another process, a signal).
const LOOK_AGAIN: Duration = Duration::from_secs(2);

/// Drive the campaign while holding its lock, the driver journalled first; inside a tokio runtime.
pub async fn drive(ctx: &Context, journal: &Journal, lock: DriverLock) -> Result<ExitCode, EngineError> {
    let at = crate::session::now_rfc3339();
    journal.append(&Event::Driven { driver: lock.driver.clone(), at })?;
    let (cancel_tx, cancel) = watch::channel(false);
    let stopped = crate::jobs::signals::cancel_on_stop(&cancel_tx);
    super::restart::swept(ctx, &journal.state()?).await;
    let (exec, (fixing, runs)) = (crate::jobs::executor::Executor::of(ctx), Default::default());
    let crew = Crew { ctx, journal, cancel, exec, fixing, runs };
    let ended = go(&crew, &stopped, &cancel_tx).await;
    // The campaign is let go only once its loop has ended.
    drop(lock);
    ended
}

/// Why the loop starts nothing more: a signal, the journal's pause or cancel, a step's error.
enum Halt {
    Signal(&'static str, u8),
    Said(&'static str),
    Failed(EngineError),
}

type Step<'a> = Pin<Box<dyn Future<Output = (Key, Result<(), EngineError>)> + 'a>>;

async fn go(
    crew: &Crew<'_>,
    stopped: &Stopped,
    cancel: &watch::Sender<bool>,
) -> Result<ExitCode, EngineError> {
    let mut working: FuturesUnordered<Step> = FuturesUnordered::new();
    let mut busy = BTreeSet::new();
    let mut failed = None;
    loop {
        answer_requests(crew)?;
        let state = crew.journal.state()?;
        let halt = failed.take().map(Halt::Failed).or_else(|| halted(stopped, &state));
        if halt.is_none() {
            let free = (state.spec.concurrency as usize).saturating_sub(working.len());
            for (key, step) in decide(crew, &state, &busy)?.into_iter().take(free) {
                busy.insert(key.clone());
                let given = Given::of(&state, &key);
                working.push(Box::pin(async move { (key.clone(), crew.take(&key, step, &given).await) }));
            }
        }
        if working.is_empty() {
            return end(crew.journal, halt);
        }
        if let Some(Halt::Failed(e)) = halt {
            let _ = cancel.send(true);
            failed = Some(e);
        }
        tokio::select! {
            Some((key, done)) = working.next() => {
                busy.remove(&key);
                if let Err(e) = done { failed = failed.or(Some(e)) }
            }
            () = tokio::time::sleep(LOOK_AGAIN) => {}
        }
    }
}

/// A `pause` or `cancel` another process asked for, journalled by this driver (the journal's one
/// writer) before the loop decides anything.
fn answer_requests(crew: &Crew) -> Result<(), EngineError> {
    use crate::jobs::driver::Request;
    for request in crate::jobs::driver::take_requests(&crew.ctx.workspace, &crew.journal.name) {
        match request {
            Ok(Request::Pause) => crew.journal.append(&super::stop_event(false))?,
            Ok(Request::Cancel) => crew.journal.append(&super::stop_event(true))?,
            Ok(Request::CancelRun(run_id)) => crew.stop_run(&run_id),
            Err(e) => say(&e.to_string()),
        }
    }
    Ok(())
}

fn halted(stopped: &Stopped, state: &CampaignState) -> Option<Halt> {
    if let Some((name, number)) = stopped.lock().ok().and_then(|s| *s) {
        return Some(Halt::Signal(name, number));
    }
    match (state.cancelled, state.paused) {
        (true, _) => Some(Halt::Said("cancelled")),
        (false, true) => Some(Halt::Said("paused")),
        _ => None,
    }
}

/// Nothing under way: how the loop ends.
fn end(journal: &Journal, halt: Option<Halt>) -> Result<ExitCode, EngineError> {
    match halt {
        Some(Halt::Signal(name, number)) => {
            journal.append(&Event::Paused { at: crate::session::now_rfc3339() })?;
            say(&format!("stopped by {name}; paused (`campaign resume {}` goes on)", journal.name));
            Ok(ExitCode::from(128 + number))
        }
        Some(Halt::Said(how)) => {
            say(&format!("{} {how}", journal.name));
            Ok(ExitCode::SUCCESS)
        }
        Some(Halt::Failed(e)) => Err(e),
        // Read again: the decisions that left its last cells were journalled after `state`.
        None => Ok(ended(&journal.state()?)),
    }
}

/// Every (commit, variant) not under way with something to do, and what; a cell newly left for a
/// look is journalled (once) on the way.
fn decide(crew: &Crew, state: &CampaignState, busy: &BTreeSet<Key>) -> Result<Vec<(Key, Next)>, EngineError> {
    let recipes = crew.ctx.recipes()?;
    let mut steps = Vec::new();
    for (key, cell) in state.cells.iter().filter(|(key, _)| !busy.contains(*key)) {
        match next(cell, state.spec.policy, |category| recipes.first_answering(category)) {
            Next::Done => {}
            Next::Leave(reason) => {
                let decision = Decision::Leave { reason };
                if cell.decided.as_ref() != Some(&decision) {
                    say(&format!("{} {}: left for a look: {decision}", key.0, key.1.name()));
                    let (short, variant) = key.clone();
                    let at = crate::session::now_rfc3339();
                    crew.journal.append(&Event::decided(short, variant, decision, at))?;
                }
            }
            step => steps.push((key.clone(), step)),
        }
    }
    Ok(steps)
}

/// Every cell decided: 0 when all succeeded, 3 when some were left failed.
fn ended(state: &CampaignState) -> ExitCode {
    let p = state.progress();
    say(&format!("campaign {}: {}", state.spec.name, p.tally()));
    if p.failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(3) }
}
