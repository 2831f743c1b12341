//! `campaign status [NAME] [--json]`: how a campaign stands, from its journal alone (the newest
//! campaign of the workspace when no name is given).

use crate::campaigns::{CampaignState, Cell, Headline, Liveness, Next, next};
use crate::ids::RunId;
use crate::jobs::journal::Journal;
use crate::session::Context;
use anyhow::Result;
use serde_json::json;
use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;

pub fn status(ctx: &Context, name: Option<&str>, json: bool) -> Result<ExitCode> {
    let journal = match name {
        Some(name) => super::existing(ctx, name),
        None => crate::jobs::journal::newest(&ctx.workspace).map(|name| Journal::of(&ctx.workspace, &name)),
    };
    let Some(journal) = journal else {
        if name.is_none() {
            crate::cli::out::err("perftriage: no campaign in this workspace");
        }
        return Ok(ExitCode::from(2));
    };
    let name = journal.name.clone();
    let parsed = journal.read()?;
    super::said(&parsed, "it is left out (the driver drops it when it goes on)");
    let state = journal.fold(&parsed)?;
    let liveness = crate::jobs::driver::liveness(&ctx.workspace, &name);
    let perftriage = ctx.view.perftriage(&ctx.workspace);
    let headline = state.snapshot().with_liveness(liveness.clone(), &perftriage).headline;
    let words = match (&liveness, headline.stopped.is_some()) {
        (Liveness::Gone(_), true) => left_running(ctx, &state)?,
        _ => HashMap::new(),
    };
    let cells = cells_json(ctx, &state, &words)?;
    let outcome = crate::campaigns::outcome(&state, |short| super::usable(ctx, short));
    let mut out = crate::cli::out::stdout();
    match json {
        true => {
            let mut summary = summary(&state, &cells);
            summary["outcome"] = serde_json::to_value(&outcome)?;
            summary["driver"] = driver_json(&liveness);
            summary["stopped"] = headline.stopped.clone().into();
            writeln!(out, "{}", crate::cli::out::json(&summary)?)?
        }
        false => print_text(&mut out, &headline, &liveness, &cells, &outcome)?,
    }
    // As the README says: 0 none left failed, 3 some.
    Ok(if outcome.left.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(3) })
}

/// What the containers of the runs in flight do, their driver gone.
fn left_running(ctx: &Context, state: &CampaignState) -> Result<HashMap<RunId, String>> {
    let runs: Vec<RunId> = state.runs_in_flight().into_iter().collect();
    let asked = crate::jobs::left_running::container_words(&ctx.workspace, &ctx.config.hosts, &runs);
    Ok(crate::cli::runtime()?.block_on(asked))
}

/// Each cell as `--json` gives it; a run in flight whose driver is gone (`left`: what its
/// container does) says `stopped`.
fn cells_json(
    ctx: &Context,
    state: &CampaignState,
    left: &HashMap<RunId, String>,
) -> Result<Vec<serde_json::Value>> {
    let recipes = ctx.recipes()?;
    let cell_json = |((short, variant), cell): (&(crate::ids::Short, crate::dataset::Variant), &Cell)| {
        let mut standing = standing(cell, next(cell, state.spec.policy, |c| recipes.first_answering(c)));
        if let Some((run_id, word)) = cell.in_flight().and_then(|r| Some((r, left.get(r)?))) {
            standing = ("stopped", Some(format!("run {run_id} stopped mid-run: {word}")));
        }
        let runs: Vec<&str> = cell.attempts.iter().map(|a| a.run_id.as_str()).collect();
        let category = cell.last_finish().and_then(|f| f.category.clone());
        let (word, why) = standing;
        json!({ "short": short, "variant": variant, "state": word, "why": why, "runs": runs, "category": category })
    };
    Ok(state.cells.iter().map(cell_json).collect())
}

/// A cell's state in a word, and why where it matters.
fn standing(cell: &Cell, next: Next) -> (&'static str, Option<String>) {
    match next {
        Next::Done => ("ok", None),
        Next::Leave(why) => ("left", Some(why)),
        Next::PickUp(run_id) => ("running", Some(format!("run {run_id}"))),
        Next::Fix(recipe) => ("to fix", Some(recipe)),
        Next::Retry { n, after_s } => ("to retry", Some(format!("retry {n} after {after_s} s"))),
        Next::Run if cell.attempts.is_empty() => ("queued", None),
        Next::Run => ("to run again", None),
    }
}

fn summary(state: &CampaignState, cells: &[serde_json::Value]) -> serde_json::Value {
    let p = state.progress();
    json!({
        "name": state.spec.name, "repeat": state.spec.repeat, "policy": state.spec.policy,
        "total": p.total, "ended": p.ended, "ok": p.ok, "failed": p.failed, "again": p.again,
        "paused": state.paused, "cancelled": state.cancelled, "cells": cells,
    })
}

/// The campaign's summary as `status --json` gives it, for `--notify` (its driver has just ended,
/// so no run of it is left running).
pub(super) fn summary_json(ctx: &Context, state: &CampaignState) -> Result<serde_json::Value> {
    let cells = cells_json(ctx, state, &HashMap::new())?;
    let mut summary = summary(state, &cells);
    summary["outcome"] = serde_json::to_value(crate::campaigns::outcome(state, |s| super::usable(ctx, s)))?;
    Ok(summary)
}

/// `{state: running|stopped|unknown, pid, host, since}`.
fn driver_json(liveness: &Liveness) -> serde_json::Value {
    let mut out = json!({ "state": liveness.word() });
    if let Some(d) = liveness.driver() {
        (out["pid"], out["host"], out["since"]) =
            (d.pid.into(), d.host.clone().into(), d.since.clone().into());
    }
    out
}

fn print_text(
    out: &mut impl Write,
    headline: &Headline,
    liveness: &Liveness,
    cells: &[serde_json::Value],
    outcome: &crate::campaigns::Outcome,
) -> std::io::Result<()> {
    let mode = match (headline.state, &headline.stopped, liveness) {
        ("", Some(stopped), _) => format!(" ({stopped})"),
        ("", None, Liveness::Driving(driver)) => format!(" (running: {driver})"),
        ("", None, _) => String::new(),
        (state, _, _) => format!(" ({state})"),
    };
    writeln!(out, "campaign {}{mode}: {}", headline.name, headline.progress.tally())?;
    for line in outcome.lines() {
        writeln!(out, "  {line}")?;
    }
    for c in cells {
        let why = c["why"].as_str().map(|w| format!("  {w}")).unwrap_or_default();
        let short = c["short"].as_str().unwrap_or("");
        writeln!(
            out,
            "{short:<9} {:<8} {:<12}{why}",
            c["variant"].as_str().unwrap_or(""),
            c["state"].as_str().unwrap_or("")
        )?;
    }
    Ok(())
}
