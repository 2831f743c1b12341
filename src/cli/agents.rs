//! Headless `patch SHORT --variant agent|human [--json]` and `trajectory SHORT [--json]`: what
//! the agent and the human changed, and how the agent's own run went. Exit 0; 2 when there is no
//! such commit, patch or run (the reason on stderr).

use crate::agents;
use crate::dataset::Variant;
use crate::session::Context;
use serde::Serialize;
use std::io::Write;
use std::process::ExitCode;

pub fn patch(ctx: &Context, short: &str, variant: Variant, json: bool) -> anyhow::Result<ExitCode> {
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let runs = agent_runs(ctx);
    let patch = match agents::patch(&entry.commit, variant, &runs, &ctx.config.runs) {
        Ok(patch) => patch,
        Err(why) => {
            super::out::err(&format!("perftriage: {why}"));
            return Ok(ExitCode::from(2));
        }
    };
    let mut out = super::out::stdout();
    if json {
        let row = PatchRow { variant: variant.name(), source: &patch.source, stats: &patch.stats };
        writeln!(out, "{}", super::out::json(&row)?)?;
    } else {
        out.write_all(patch.text.as_bytes())?;
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct PatchRow<'a> {
    variant: &'static str,
    source: &'a str,
    #[serde(flatten)]
    stats: &'a agents::DiffStats,
}

pub fn trajectory(ctx: &Context, short: &str, json: bool) -> anyhow::Result<ExitCode> {
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let runs = agent_runs(ctx);
    let Some(run) = runs.newest(&entry.commit.short) else {
        let dirs: Vec<String> = ctx.trajectory_dirs.iter().map(|d| d.display().to_string()).collect();
        super::out::err(&format!(
            "perftriage: no agent run of {short} under --trajectories [{}]",
            dirs.join(", ")
        ));
        return Ok(ExitCode::from(2));
    };
    let (row, _) = agents::RunSummary::read(run);
    let mut out = super::out::stdout();
    if json {
        writeln!(out, "{}", super::out::json(&row)?)?;
    } else {
        for line in row.lines() {
            writeln!(out, "{line}")?;
        }
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// The agent runs found, their folders' problems said on stderr.
fn agent_runs(ctx: &Context) -> agents::AgentRuns {
    let runs = ctx.agent_runs();
    super::warnings::print(&runs.warnings, ctx.verbose);
    runs
}

/// The report's patch rows: a row per commit with at least one patch known.
pub fn patch_rows(entries: &[crate::dataset::Entry], ctx: &Context) -> Vec<crate::report::PatchRow> {
    let runs = agent_runs(ctx);
    let stats = |entry: &crate::dataset::Entry, v: Variant| {
        agents::patch(&entry.commit, v, &runs, &ctx.config.runs).ok().map(|p| p.stats)
    };
    let mut rows = Vec::new();
    for entry in entries {
        let (human, agent) = (stats(entry, Variant::Human), stats(entry, Variant::Agent));
        if human.is_none() && agent.is_none() {
            continue;
        }
        let shared = human.as_ref().zip(agent.as_ref()).map(|(h, a)| h.shared_paths(a).len());
        rows.push(crate::report::PatchRow {
            commit: entry.commit.short.to_string(),
            human_files: human.map(|h| h.files.len()),
            agent_files: agent.map(|a| a.files.len()),
            shared_files: shared,
        });
    }
    rows
}
