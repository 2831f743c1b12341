//! The campaign loop: read the journal, let the policy pick the next (commit, variant) and step,
//! journal the step before taking it and its end after. Everything it knows comes from the
//! journal, so it starts the same after any stop.

use crate::campaigns::{CampaignSpec, CampaignState, Event, LOST, Next, next};
use crate::classify::Disposition;
use crate::dataset::{RunStatus, Variant};
use crate::ids::{RunId, Short};
use crate::jobs::journal::Journal;
use crate::jobs::run::{RunOutcome, Start, write_result};
use crate::runs::{FailureKind, RunPlan};
use crate::session::Context;
use anyhow::Result;
use std::process::ExitCode;
use tokio::sync::{mpsc, watch};

type Cancel = watch::Receiver<bool>;

pub fn drive(ctx: &Context, journal: &Journal) -> Result<ExitCode> {
    crate::cli::runtime()?.block_on(async {
        let (cancel_tx, cancel) = watch::channel(false);
        let stopped = crate::cli::run::on_signal(&cancel_tx);
        swept(ctx).await;
        loop {
            if let Some((name, number)) = stopped.lock().ok().and_then(|s| *s) {
                journal.append(&Event::Paused { at: crate::session::now_rfc3339() })?;
                say(&format!("stopped by {name}; paused (`campaign resume {}` goes on)", journal.name));
                return Ok(ExitCode::from(128 + number));
            }
            let state = journal.state()?;
            if state.paused || state.cancelled {
                say(&format!("{} {}", journal.name, if state.cancelled { "cancelled" } else { "paused" }));
                return Ok(ExitCode::SUCCESS);
            }
            let Some((cell, step)) = decide(ctx, journal, &state)? else { return Ok(ended(&state)) };
            take(ctx, journal, (cell, step), &state, &cancel).await?;
        }
    })
}

/// The first (commit, variant) with something to do, and what; a cell newly left for a look is
/// journalled (once) on the way.
fn decide(
    ctx: &Context,
    journal: &Journal,
    state: &CampaignState,
) -> Result<Option<((Short, Variant), Next)>> {
    let recipes = ctx.recipes()?;
    for (key, cell) in &state.cells {
        match next(cell, state.spec.policy, |category| recipes.first_answering(category)) {
            Next::Done => {}
            Next::Leave(why) if cell.decided.as_ref() == Some(&why) => {}
            Next::Leave(why) => {
                say(&format!("{} {}: left for a look: {why}", key.0, key.1.name()));
                let (short, variant) = key.clone();
                journal.append(&Event::Decided {
                    short,
                    variant,
                    what: why,
                    at: crate::session::now_rfc3339(),
                })?;
            }
            step => return Ok(Some((key.clone(), step))),
        }
    }
    Ok(None)
}

async fn take(
    ctx: &Context,
    journal: &Journal,
    ((short, variant), step): ((Short, Variant), Next),
    state: &CampaignState,
    cancel: &Cancel,
) -> Result<()> {
    let spec = &state.spec;
    match step {
        Next::Run => launch(ctx, journal, (&short, variant), spec, cancel).await,
        Next::Retry { n, after_s } => {
            let what = format!("retry {n} in {after_s} s");
            say(&format!("{short} {}: {what}", variant.name()));
            let at = crate::session::now_rfc3339();
            journal.append(&Event::Decided { short: short.clone(), variant, what, at })?;
            waited(after_s, cancel).await;
            launch(ctx, journal, (&short, variant), spec, cancel).await
        }
        Next::PickUp(run_id) => pick_up(ctx, journal, (&short, variant), &run_id, cancel).await,
        Next::Fix(recipe) => fix(ctx, journal, (&short, variant), &recipe, &state.started_at).await,
        Next::Done | Next::Leave(_) => Ok(()),
    }
}

/// Apply `recipe`, unless the triage history says this campaign did before it stopped (the fix
/// recorded, its journal line not yet written): then the journal is told, and it is not done twice.
async fn fix(
    ctx: &Context,
    journal: &Journal,
    (short, variant): (&Short, Variant),
    recipe: &str,
    since: &str,
) -> Result<()> {
    let book = ctx.read_workspace().book;
    let Some(image) = book.fixed_since(short, variant.name(), recipe, since) else {
        return super::super::fix::campaign_fix(ctx, journal, (short, variant), recipe).await;
    };
    say(&format!("{short} {}: {recipe} was applied before the stop ({image})", variant.name()));
    let at = crate::session::now_rfc3339();
    let recipe = recipe.to_string();
    Ok(journal.append(&Event::Fixed { short: short.clone(), variant, recipe, image: Some(image), at })?)
}

/// A new run of the cell: journalled as launched before its container is made.
async fn launch(
    ctx: &Context,
    journal: &Journal,
    (short, variant): (&Short, Variant),
    spec: &CampaignSpec,
    cancel: &Cancel,
) -> Result<()> {
    let run_id = crate::cli::run::run_id();
    let at = crate::session::now_rfc3339();
    journal.append(&Event::Launched { short: short.clone(), variant, run_id: run_id.clone(), at })?;
    let Some(entry) = ctx.find(short) else {
        return unrun(journal, &run_id, "plan_error", "not in the dataset");
    };
    let book = ctx.read_workspace().book;
    let fixed = book.fixed_image(short, variant.name()).map(|i| (i, book.fixes(short, variant.name())));
    match crate::cli::run::planned(ctx, (entry, variant), &run_id, Some(spec.repeat), fixed) {
        Ok(plan) => carried(ctx, journal, &plan, None, (cancel, Start::Fresh)).await,
        Err(why) => unrun(journal, &run_id, "plan_error", &why.to_string()),
    }
}

/// A run launched before a restart: its result if it wrote one before the stop (never run twice),
/// else its container picked up from its launch record; a run with neither was lost and runs again.
async fn pick_up(
    ctx: &Context,
    journal: &Journal,
    (short, variant): (&Short, Variant),
    run_id: &RunId,
    cancel: &Cancel,
) -> Result<()> {
    if let Some(finished) = written_before(ctx, (short, variant), run_id) {
        say(&format!("{short} {}: run {run_id} had ended before the stop", variant.name()));
        return Ok(journal.append(&finished)?);
    }
    let launch = crate::jobs::launches::read(&ctx.workspace, run_id);
    match (launch, running(ctx, run_id).await) {
        (Ok(launch), Some((container, created_unix))) => {
            say(&format!("{short} {}: picking up run {run_id} from its launch record", variant.name()));
            let start = Start::Resume { container, created_unix, image_digest: launch.image_digest.clone() };
            carried(ctx, journal, &launch.plan, launch.host.as_deref(), (cancel, start)).await
        }
        (_, container) => {
            if let Some((id, _)) = container {
                remove(&id).await;
            }
            unrun(journal, run_id, LOST, "its container was gone after the stop")
        }
    }
}

/// Carry the plan out and journal how it ended.
async fn carried(
    ctx: &Context,
    journal: &Journal,
    plan: &RunPlan,
    host: Option<&str>,
    (cancel, start): (&Cancel, Start),
) -> Result<()> {
    let (events, mut quiet) = mpsc::unbounded_channel();
    tokio::spawn(async move { while quiet.recv().await.is_some() {} });
    let outcome = crate::cli::run::carry_out(ctx, plan, host, (events, cancel.clone()), start).await?;
    journal.append(&finished(ctx, &outcome)?)?;
    Ok(())
}

/// The `finished` event of an outcome, its result file written (a run stopped by a signal or a
/// set-up error writes none).
fn finished(ctx: &Context, outcome: &RunOutcome) -> Result<Event> {
    let kind = outcome.category.clone();
    let quiet = matches!(&kind, Some(k) if *k == FailureKind::Cancelled || k.is_setup_error());
    let result = match quiet {
        true => None,
        false => {
            Some(write_result(outcome, &ctx.workspace, &ctx.redactor, &crate::session::now_rfc3339(), None)?)
        }
    };
    let category = kind.as_ref().map(|k| k.name().to_string());
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
        result: result.map(|p| p.display().to_string()),
        at: crate::session::now_rfc3339(),
    })
}

/// How the policy treats the failure: the classifier's rule for it; Docker itself failing is an
/// infrastructure failure.
fn disposition(ctx: &Context, outcome: &RunOutcome) -> Option<Disposition> {
    let kind = outcome.category.as_ref()?;
    let infra = [
        FailureKind::DockerUnreachable,
        FailureKind::DockerError,
        FailureKind::Reattached,
        FailureKind::PullFailed,
    ];
    if infra.contains(kind) {
        return Some(Disposition::InfraRetry);
    }
    let named = || ctx.classifier.named(kind.name(), "").map(|v| v.disposition);
    outcome.verdict.as_ref().map(|v| v.disposition).or_else(named)
}

/// A run that never ran: journalled as ended, with why.
fn unrun(journal: &Journal, run_id: &RunId, category: &str, why: &str) -> Result<()> {
    say(&format!("run {run_id}: {category}: {why}"));
    let disposition = (category != LOST).then_some(Disposition::NeedsLook);
    Ok(journal.append(&Event::Finished {
        run_id: run_id.clone(),
        status: RunStatus::Error,
        category: Some(category.to_string()),
        disposition,
        result: None,
        at: crate::session::now_rfc3339(),
    })?)
}

/// The cell's result file, when it is this run's: the run ended before the stop.
fn written_before(ctx: &Context, (short, variant): (&Short, Variant), run_id: &RunId) -> Option<Event> {
    let path = ctx.workspace.join("results").join(format!("{short}_{}_result.json", variant.name()));
    let record: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    let ours = &record["perftriage"];
    (ours["run_id"].as_str()? == run_id.as_str()).then_some(())?;
    let status = if record["status"] == "success" { RunStatus::Success } else { RunStatus::Error };
    let category = ours["classification"]["category"].as_str().map(str::to_string);
    let disposition = serde_json::from_value(ours["classification"]["disposition"].clone()).ok();
    let result = Some(path.display().to_string());
    Some(Event::Finished {
        run_id: run_id.clone(),
        status,
        category,
        disposition,
        result,
        at: crate::session::now_rfc3339(),
    })
}

/// The running container of `run_id` on this machine's engine: its id and creation time.
async fn running(ctx: &Context, run_id: &RunId) -> Option<(String, i64)> {
    let engine = crate::docker::Engine::connect().await.ok()?;
    let ours = engine.ours(&ctx.workspace.display().to_string()).await.ok()?;
    let mine = |c: &crate::docker::Ours| {
        c.running && c.labels.get(crate::runs::LABEL_RUN).is_some_and(|r| r == run_id.as_str())
    };
    ours.into_iter().find(mine).map(|c| (c.id, c.created))
}

/// Containers a stopped perftriage left that cannot go on (a fix's, a stopped run's) are removed
/// before the campaign goes on; running runs are picked up by their cells.
async fn swept(ctx: &Context) {
    let Ok(engine) = crate::docker::Engine::connect().await else { return };
    for orphan in crate::jobs::orphans::find(&engine, &ctx.workspace.display().to_string()).await {
        say(&format!("removing {} (left by a stopped perftriage)", orphan.name));
        let _ = engine.remove(&orphan.id).await;
    }
}

async fn remove(container: &str) {
    if let Ok(engine) = crate::docker::Engine::connect().await {
        let _ = engine.remove(container).await;
    }
}

/// Wait `secs`, or less when the campaign is stopped.
async fn waited(secs: u64, cancel: &Cancel) {
    let mut cancel = cancel.clone();
    let stopped = async move { while cancel.changed().await.is_ok() && !*cancel.borrow() {} };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(secs), stopped).await;
}

/// Every cell decided: 0 when all succeeded, 3 when some were left failed.
fn ended(state: &CampaignState) -> ExitCode {
    let p = state.progress();
    say(&format!("campaign {}: {}", state.spec.name, p.tally()));
    if p.failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(3) }
}

fn say(text: &str) {
    crate::cli::out::err(&format!("perftriage: campaign: {text}"));
}
