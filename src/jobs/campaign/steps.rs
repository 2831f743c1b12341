//! A campaign's steps, one (commit, variant) each: launch a run, pick one up after a restart,
//! apply a fix, retry after a wait. Each is journalled before it is taken and its end after; a run
//! that cannot be placed or planned ends as a journalled failure, never as the campaign's error.

use super::{EngineError, say};
use crate::campaigns::{CampaignState, Cell, Decision, Event, Next};
use crate::classify::Disposition;
use crate::dataset::{RunStatus, Variant};
use crate::ids::{RunId, Short};
use crate::jobs::executor::{Ask, Events, Executor, JobEvent, Recorded, Target, Unplaced, record};
use crate::jobs::journal::Journal;
use crate::jobs::run::{RunEvent, RunOutcome, Start};
use crate::runs::{FailureKind, Repeat, RunPhase, RunPlan};
use crate::session::Context;
use tokio::sync::watch;

pub type Key = (Short, Variant);

/// What a campaign's steps share: the journal, the stop switch, the executor.
pub struct Crew<'a> {
    pub ctx: &'a Context,
    pub journal: &'a Journal,
    pub cancel: watch::Receiver<bool>,
    /// Carries the campaign's runs out; its claims keep two of them off one slot.
    pub exec: Executor,
    /// One fix at a time: baseline and agent fixes commit to one tag.
    pub fixing: tokio::sync::Mutex<()>,
    /// Each run in hand's own stop switch, and the runs stopped on request (their cells are
    /// left, not run again).
    pub runs: std::sync::Mutex<super::in_hand::RunsInHand>,
}

/// A fixed image and the recipes that made it, and the host it was made on where the run must go.
type Fixed = ((crate::ids::ImageRef, Vec<String>), Option<String>);

/// What a step needs of the campaign's state, taken when it starts.
pub struct Given {
    repeat: Repeat,
    /// When the campaign started (fixes recorded since are its own).
    since: String,
    /// The host the cell's fixed image is on: its runs go there.
    pinned: Option<String>,
    /// The cell's newest run.
    last_run: Option<RunId>,
    /// The image the policy's fixes made for the cell, and their recipes.
    fixed: Option<(crate::ids::ImageRef, Vec<String>)>,
    /// Its runs go to Slurm.
    slurm: bool,
    /// The newest run's Slurm job, when it went to Slurm.
    pub last_job: Option<(u64, String)>,
    /// The images the policy's fixes committed for the sibling variant, by recipe.
    sibling_fixes: Vec<(String, crate::ids::ImageRef)>,
    /// The host the sibling's fixed image was committed on.
    sibling_host: Option<String>,
}

impl Given {
    pub fn of(state: &CampaignState, key: &Key) -> Given {
        let cell = state.cells.get(key);
        let sibling = key.1.image_sibling().and_then(|v| state.cells.get(&(key.0.clone(), v)));
        Given {
            repeat: state.spec.repeat,
            since: state.started_at.clone(),
            pinned: cell.and_then(|c| c.pinned_host()).map(str::to_string),
            last_run: cell.and_then(|c| c.attempts.last()).map(|a| a.run_id.clone()),
            fixed: cell.and_then(Cell::fixed),
            slurm: state.spec.slurm,
            last_job: cell.and_then(|c| c.attempts.last()).and_then(|a| a.job.clone()),
            sibling_fixes: sibling
                .map(|c| c.fixes.iter().filter_map(|f| Some((f.recipe.clone(), f.image.clone()?))).collect())
                .unwrap_or_default(),
            sibling_host: sibling.and_then(|c| c.pinned_host().map(str::to_string)),
        }
    }

    /// The image this recipe made for the sibling variant, in the journal.
    fn sibling_fixed(&self, recipe: &str) -> Option<crate::ids::ImageRef> {
        self.sibling_fixes.iter().rev().find(|(r, _)| r == recipe).map(|(_, image)| image.clone())
    }
}

impl Crew<'_> {
    pub async fn take(&self, (short, variant): &Key, step: Next, given: &Given) -> Result<(), EngineError> {
        let key = (short, *variant);
        match step {
            Next::Run => self.launch(key, given).await,
            Next::Retry { n, after_s } => {
                let decision = Decision::Retry { n, after_s };
                say(&format!("{short} {}: {decision}", variant.name()));
                let at = crate::session::now_rfc3339();
                let (short, variant) = (short.clone(), *variant);
                self.journal.append(&Event::decided(short, variant, decision, at))?;
                waited(after_s, &self.cancel).await;
                self.launch(key, given).await
            }
            Next::PickUp(run_id) => match &given.last_job {
                Some(job) => self.followed(key, &run_id, job).await,
                None => self.pick_up(key, &run_id).await,
            },
            Next::Fix(recipe) => self.fix(key, &recipe, given).await,
            Next::Done | Next::Leave(_) => Ok(()),
        }
    }

    /// Apply `recipe` on the host its failed run ran on, unless the triage history says this
    /// campaign did before it stopped (the fix recorded, its journal line not yet written): then
    /// the journal is told, and it is not done twice.
    async fn fix(
        &self,
        (short, variant): (&Short, Variant),
        recipe: &str,
        given: &Given,
    ) -> Result<(), EngineError> {
        let ctx = self.ctx;
        let host = given.last_run.as_ref().and_then(|r| crate::jobs::launches::read(&ctx.workspace, r).ok());
        let host = host.and_then(|launch| launch.host);
        let _one = self.fixing.lock().await;
        let book = ctx.read_workspace().book;
        let fixed = |v: Variant| book.fixed_since(short, v.name(), recipe, &given.since);
        let key = (short, variant);
        let Some(image) = fixed(variant) else {
            // The journal says it first; the triage history where a stop came between the two.
            if let Some(image) =
                given.sibling_fixed(recipe).or_else(|| variant.image_sibling().and_then(fixed))
            {
                say(&format!("{short} {}: in {image}, fixed with {recipe} for its sibling", variant.name()));
                return super::fixes::campaign_shared_fix(
                    ctx,
                    self.journal,
                    key,
                    (recipe, image),
                    host.as_deref(),
                );
            }
            let applied = super::fixes::campaign_fix(ctx, self.journal, key, recipe, host.as_deref()).await;
            return applied.or_else(|why| self.unfixed(key, recipe, host, &why));
        };
        say(&format!("{short} {}: {recipe} was applied before the stop ({image})", variant.name()));
        let (short, recipe, at) = (short.clone(), recipe.to_string(), crate::session::now_rfc3339());
        Ok(self.journal.append(&Event::Fixed { short, variant, recipe, image: Some(image), host, at })?)
    }

    /// A fix that could not even be tried (its host down, its recipe gone): journalled as not
    /// verified, so the policy leaves the cell for a look rather than trying again and again.
    fn unfixed(
        &self,
        (short, variant): (&Short, Variant),
        recipe: &str,
        host: Option<String>,
        why: &EngineError,
    ) -> Result<(), EngineError> {
        say(&format!("{short} {}: {recipe} could not be applied: {why}", variant.name()));
        let (short, recipe, at) = (short.clone(), recipe.to_string(), crate::session::now_rfc3339());
        Ok(self.journal.append(&Event::Fixed { short, variant, recipe, image: None, host, at })?)
    }

    /// A new run of the cell: journalled as launched before its container is made.
    async fn launch(&self, (short, variant): (&Short, Variant), given: &Given) -> Result<(), EngineError> {
        let ctx = self.ctx;
        let run_id = crate::jobs::planned::new_run_id();
        let at = crate::session::now_rfc3339();
        self.journal.append(&Event::Launched {
            short: short.clone(),
            variant,
            run_id: run_id.clone(),
            at,
        })?;
        let Some(entry) = ctx.find(short) else {
            return self.unrun(&run_id, FailureKind::PlanError, "not in the dataset");
        };
        let (fixed, host) = match self.fixed_for((short, variant), given)? {
            Some((fixed, host)) => (Some(fixed), host.or_else(|| given.pinned.clone())),
            None => (None, given.pinned.clone()),
        };
        let planned =
            crate::jobs::planned::planned(ctx, (entry, variant), &run_id, Some(given.repeat), fixed);
        match planned.map(|plan| self.owned_by_the_campaign(plan)) {
            Ok(plan) if given.slurm => self.submitted(entry, &plan).await,
            Ok(plan) => self.carried(plan, host.as_deref()).await,
            Err(why) => self.unrun(&run_id, FailureKind::PlanError, &why.to_string()),
        }
    }

    /// The plan labelled as this campaign's: a board that finds its container once the driver is
    /// gone leaves it to the campaign's resume.
    fn owned_by_the_campaign(&self, mut plan: RunPlan) -> RunPlan {
        let name = self.journal.name.to_string();
        plan.container.labels.insert(crate::runs::LABEL_CAMPAIGN.into(), name);
        plan
    }

    /// The image a new run of the cell goes in: the journal's fixed image first (a board holding
    /// the workspace records it only later), else the triage history's, else — baseline and agent
    /// run in the same parent image — the sibling's fixed image, taken (and recorded as this
    /// cell's) before this variant fails in the broken one, on the host it was made on.
    fn fixed_for(
        &self,
        (short, variant): (&Short, Variant),
        given: &Given,
    ) -> Result<Option<Fixed>, EngineError> {
        let book = self.ctx.read_workspace().book;
        let recorded =
            || book.fixed_image(short, variant.name()).map(|i| (i, book.fixes(short, variant.name())));
        if let Some(fixed) = given.fixed.clone().or_else(recorded) {
            return Ok(Some((fixed, None)));
        }
        let from_history = |other: Variant| {
            let recipe = book.fixes(short, other.name()).last()?.clone();
            Some((recipe, book.fixed_image(short, other.name())?))
        };
        let shared =
            given.sibling_fixes.last().cloned().or_else(|| variant.image_sibling().and_then(from_history));
        let Some((recipe, image)) = shared else { return Ok(None) };
        say(&format!("{short} {}: starts in its sibling's fixed image {image} ({recipe})", variant.name()));
        let (cell, host) = ((short, variant), given.sibling_host.clone());
        super::fixes::campaign_shared_fix(
            self.ctx,
            self.journal,
            cell,
            (&recipe, image.clone()),
            host.as_deref(),
        )?;
        Ok(Some(((image, vec![recipe]), host)))
    }

    /// Hand the plan to the executor (for `host`, where its fixed image is); journal how it ended.
    async fn carried(&self, plan: RunPlan, host: Option<&str>) -> Result<(), EngineError> {
        let target = host.map_or(Target::Anywhere, |h| Target::Host(h.to_string()));
        self.executed(plan, target, Start::Fresh).await
    }

    /// Carry `plan` out from `start` on `target` under the run's own stop switch; journal its end.
    pub(super) async fn executed(
        &self,
        plan: RunPlan,
        target: Target,
        start: Start,
    ) -> Result<(), EngineError> {
        let run_id = plan.run_id.clone();
        let cancel = self.in_hand().own_stop(&run_id, &self.cancel);
        let events = narrated();
        let executed = self.exec.execute(Ask { plan, target, start, cancel }, &events).await;
        let asked = self.in_hand().let_go(&run_id);
        match executed {
            _ if asked => {
                self.unrun(&run_id, FailureKind::CancelledOnRequest, "cancelled on request; its cell is left")
            }
            Err(Unplaced::Cancelled) => self.unrun(&run_id, FailureKind::Cancelled, "stopped"),
            Err(Unplaced::Failed(why)) => {
                self.unrun(&run_id, FailureKind::DockerUnreachable, &why.to_string())
            }
            Ok(outcome) => Ok(self.journal.append(&finished(self.ctx, &self.exec, &outcome)?)?),
        }
    }

    /// Stop `run_id` on request (the board's `x`, `campaign cancel --run`), when it is in hand.
    pub fn stop_run(&self, run_id: &RunId) {
        match self.in_hand().stop(run_id) {
            true => say(&format!("run {run_id}: stopping it, as asked")),
            false => say(&format!("run {run_id} was asked to stop, but it is not running here")),
        }
    }

    pub(super) fn in_hand(&self) -> std::sync::MutexGuard<'_, super::in_hand::RunsInHand> {
        self.runs.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A run that never ran to its end: journalled as ended, with why. Lost and stopped runs are
    /// run again by the policy, unreachable ones (Docker, Slurm) retried; others are left for a
    /// look.
    pub(super) fn unrun(&self, run_id: &RunId, category: FailureKind, why: &str) -> Result<(), EngineError> {
        say(&format!("run {run_id}: {category}: {why}"));
        let disposition = match category {
            FailureKind::LostInARestart | FailureKind::Cancelled | FailureKind::CancelledOnRequest => None,
            FailureKind::DockerUnreachable | FailureKind::SlurmLost => Some(Disposition::InfraRetry),
            _ => Some(Disposition::NeedsLook),
        };
        Ok(self.journal.append(&Event::Finished {
            run_id: run_id.clone(),
            status: RunStatus::Error,
            category: Some(category),
            disposition,
            result: None,
            at: crate::session::now_rfc3339(),
        })?)
    }
}

/// The `finished` event of an outcome, its result recorded by the executor's rule.
fn finished(ctx: &Context, exec: &Executor, outcome: &RunOutcome) -> Result<Event, EngineError> {
    let plan = &outcome.plan;
    let own = crate::jobs::run::own_result_path(&exec.workspace, (&plan.short, plan.variant), &plan.run_id);
    let result = match record(outcome, (&exec.workspace, &exec.redactor), None)? {
        // The journal points at the file that holds this run, kept when the cell runs again.
        Recorded::Written(_) => Some(own.display().to_string()),
        Recorded::NotWritten(_) => None,
    };
    let category = outcome.category.clone();
    let (short, variant) = (&outcome.plan.short, outcome.plan.variant.name());
    match &category {
        None => say(&format!("{short} {variant}: ✓ done")),
        Some(c) => say(&format!("{short} {variant}: ✗ {c}: {}", outcome.error.as_deref().unwrap_or(""))),
    }
    Ok(Event::Finished {
        run_id: outcome.plan.run_id.clone(),
        status: outcome.status,
        disposition: disposition(ctx, outcome),
        category,
        result,
        at: crate::session::now_rfc3339(),
    })
}

/// Where a campaign run's events go: its lines are in its spools (the board tails them); a wait
/// for a host is said once.
pub(super) fn narrated() -> Events {
    use std::sync::atomic::Ordering::Relaxed;
    let said = std::sync::atomic::AtomicBool::new(false);
    Events::new(move |JobEvent { run_id, event }| match event {
        RunEvent::Phase(RunPhase::Placing { why }) if !said.swap(true, Relaxed) => {
            say(&format!("run {run_id}: waiting for a host: {why}"));
        }
        RunEvent::Phase(RunPhase::Unfixed { gone }) => {
            say(&format!("run {run_id}: its fixed image {gone} is gone from the engine: it runs unfixed"));
        }
        _ => {}
    })
}

/// How the policy treats the failure: the classifier's rule for it; Docker itself failing or a
/// registry that did not answer is an infrastructure failure.
fn disposition(ctx: &Context, outcome: &RunOutcome) -> Option<Disposition> {
    use FailureKind::{DockerError, DockerUnreachable, PullFailed, Reattached};
    let kind = outcome.category.as_ref()?;
    if [DockerUnreachable, DockerError, Reattached, PullFailed].contains(kind) {
        return Some(Disposition::InfraRetry);
    }
    let named = || ctx.classifier.named(kind.name(), "").map(|v| v.disposition);
    outcome.verdict.as_ref().map(|v| v.disposition).or_else(named)
}

/// Wait `secs`, or less when the campaign is stopped.
async fn waited(secs: u64, cancel: &watch::Receiver<bool>) {
    let _ = tokio::time::timeout(std::time::Duration::from_secs(secs), stopped(cancel)).await;
}

/// Ready once the campaign is stopped (a signal, a step's error).
pub(super) async fn stopped(cancel: &watch::Receiver<bool>) {
    let mut cancel = cancel.clone();
    while cancel.changed().await.is_ok() && !*cancel.borrow() {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaigns::state::tests::started;

    /// The agent's fix takes the image its baseline's fix made, from the journal alone (a board
    /// holding the workspace keeps the campaign's fixes out of the triage history for a while).
    #[test]
    fn a_variant_finds_the_image_its_siblings_fix_made_in_the_journal() {
        let fixed = Event::Fixed {
            short: "aaaa0001".into(),
            variant: Variant::Baseline,
            recipe: "aimv2_exist_ok".into(),
            image: Some("perftriage-fixed:baseline-x".into()),
            host: None,
            at: "t".into(),
        };
        let Event::Started { schema, mut spec, usable, at } = started(&["aaaa0001"]) else { unreachable!() };
        spec.variants = Variant::ALL.to_vec();
        let state = CampaignState::fold(&[Event::Started { schema, spec, usable, at }, fixed]).unwrap();
        let given = |v| Given::of(&state, &("aaaa0001".into(), v));
        let image = given(Variant::Agent).sibling_fixed("aimv2_exist_ok").map(|i| i.to_string());
        assert_eq!(image.as_deref(), Some("perftriage-fixed:baseline-x"));
        assert_eq!(given(Variant::Agent).sibling_fixed("numpy_lt_2"), None, "another recipe's");
        assert_eq!(given(Variant::Human).sibling_fixed("aimv2_exist_ok"), None, "the human has no sibling");
    }
}
