//! `campaign status [NAME] [--json]`: how a campaign stands, from its journal alone (the newest
//! campaign of the workspace when no name is given).

use crate::campaigns::{CampaignState, Cell, Headline, Liveness, Next, next};
use crate::ids::CampaignName;
use crate::jobs::journal::Journal;
use crate::session::Context;
use anyhow::Result;
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;

pub fn status(ctx: &Context, name: Option<&str>, json: bool) -> Result<ExitCode> {
    let Some(name) = name.map(CampaignName::from).or_else(|| crate::jobs::journal::newest(&ctx.workspace))
    else {
        crate::cli::out::err("perftriage: no campaign in this workspace");
        return Ok(ExitCode::from(2));
    };
    let journal = Journal::of(&ctx.workspace, &name);
    super::said(&journal.read()?, "it is left out (the driver drops it when it goes on)");
    let state = journal.state()?;
    let liveness = crate::jobs::driver::liveness(&ctx.workspace, &name);
    let perftriage = ctx.view.perftriage(&ctx.workspace);
    let headline = state.snapshot().with_liveness(liveness.clone(), &perftriage).headline;
    let recipes = ctx.recipes()?;
    let cells: Vec<serde_json::Value> = state
        .cells
        .iter()
        .map(|((short, variant), cell)| {
            let (word, why) = standing(cell, next(cell, state.spec.policy, |category| recipes.first_answering(category)));
            let runs: Vec<&str> = cell.attempts.iter().map(|a| a.run_id.as_str()).collect();
            let category = cell.last_finish().and_then(|f| f.category.clone());
            json!({ "short": short, "variant": variant, "state": word, "why": why, "runs": runs, "category": category })
        })
        .collect();
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
    Ok(ExitCode::SUCCESS)
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
