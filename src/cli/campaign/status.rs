//! `campaign status [NAME] [--json]`: how a campaign stands, from its journal alone (the newest
//! campaign of the workspace when no name is given).

use crate::campaigns::{CampaignState, Headline, Liveness, MorningRow};
use crate::ids::RunId;
use crate::jobs::journal::Journal;
use crate::session::Context;
use anyhow::Result;
use serde_json::json;
use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;

/// How `campaign status` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Text,
    Json,
    Csv,
}

pub fn status(ctx: &Context, name: Option<&str>, form: Form) -> Result<ExitCode> {
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
    let cells = morning(ctx, &state, &words)?;
    let outcome = crate::campaigns::outcome(&state, |short| super::usable(ctx, short));
    let mut out = crate::cli::out::stdout();
    match form {
        Form::Json => {
            let mut summary = summary(&state, &cells);
            summary["outcome"] = serde_json::to_value(&outcome)?;
            summary["driver"] = driver_json(&liveness);
            summary["stopped"] = headline.stopped.clone().into();
            writeln!(out, "{}", crate::cli::out::json(&summary)?)?
        }
        Form::Csv => write!(out, "{}", crate::report::morning_csv(&cells))?,
        Form::Text => print_text(&mut out, (&headline, &liveness), &cells, &outcome, &ctx.workspace)?,
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

/// Each cell the morning after (`campaigns::morning`); a run in flight whose driver is gone
/// (`left`: what its container does) says `stopped`.
pub fn morning(
    ctx: &Context,
    state: &CampaignState,
    left: &HashMap<RunId, String>,
) -> Result<Vec<MorningRow>> {
    let mut rows = crate::jobs::cell_document::morning_rows(&ctx.workspace, state, &ctx.recipes()?);
    for row in &mut rows {
        let flying = row.runs.last().filter(|_| row.state == "running");
        if let Some((run_id, word)) = flying.and_then(|r| Some((r, left.get(r)?))) {
            (row.state, row.why) = ("stopped", Some(format!("run {run_id} stopped mid-run: {word}")));
        }
    }
    Ok(rows)
}

fn summary(state: &CampaignState, cells: &[MorningRow]) -> serde_json::Value {
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
    let cells = morning(ctx, state, &HashMap::new())?;
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
    (headline, liveness): (&Headline, &Liveness),
    cells: &[MorningRow],
    outcome: &crate::campaigns::Outcome,
    workspace: &std::path::Path,
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
    for line in cells.iter().flat_map(|c| c.lines(Some(workspace))) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
