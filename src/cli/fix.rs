//! Headless `perftriage fix list [SHORT]` and `perftriage fix apply SHORT --variant V --recipe ID
//! [--commit-image]`. Exit codes as for `run`: 0 ok, 3 the fix or the re-run failed, 1 tool error.

use crate::dataset::{Entry, Variant};
use crate::jobs::fix::{FixJob, FixReport};
use crate::jobs::fixing::{applied, fix_job, outcome_words, record_fix};
use crate::session::Context;
use crate::triage::FixOutcome;
use anyhow::Result;
use std::io::Write;
use std::process::ExitCode;

pub fn list(ctx: &Context, short: Option<&str>) -> Result<ExitCode> {
    let book = ctx.recipes()?;
    let mut out = super::out::stdout();
    let Some(short) = short else {
        for r in &book.recipes {
            writeln!(out, "{:<28} answers {:<36} {}", r.id, r.answers.join(","), r.title)?;
        }
        return Ok(ExitCode::SUCCESS);
    };
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    for v in Variant::ALL {
        let state = entry.variant(v);
        let Some(verdict) =
            state.verdict.as_ref().or(entry.hint.as_ref().filter(|_| state.outcome.status.is_failure()))
        else {
            continue;
        };
        let suggested: Vec<&str> = book.answering(&verdict.category).map(|r| r.id.as_str()).collect();
        let list = if suggested.is_empty() { "no known fix".to_string() } else { suggested.join(", ") };
        writeln!(out, "{} {:<8} {:<20} {list}", entry.commit.short, v.name(), verdict.category)?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn apply_cli(
    ctx: &Context,
    short: &str,
    variant: Variant,
    recipe_id: &str,
    commit_image: bool,
    host: Option<&str>,
) -> Result<ExitCode> {
    let book = ctx.recipes()?;
    let Some(recipe) = book.get(recipe_id).cloned() else {
        super::out::err(&format!("perftriage: no recipe `{recipe_id}` (see `perftriage fix list`)"));
        return Ok(ExitCode::from(2));
    };
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let job = fix_job(ctx, entry, variant, commit_image)?;
    super::runtime()?.block_on(async {
        // With [[hosts]], the fix and its re-run happen on one host (a local fixed tag is only there).
        let workspace = ctx.workspace.display().to_string();
        let hosts = &ctx.config.hosts;
        let claims = crate::jobs::fleet::Claims::default();
        let placed = crate::jobs::fleet::engine_for(crate::jobs::fleet::Placement {
            hosts,
            chosen: host,
            need: &crate::runs::GpuRequest::None,
            workspace: &workspace,
            claims: &claims,
            run_id: &"fix".into(),
        })
        .await;
        let (host, engine) = placed?;
        let rerun_on = (!hosts.is_empty()).then_some(host.as_str());
        super::out::err(&format!(
            "perftriage: applying {recipe_id} to {} {} in {} on host {host}",
            job.short,
            variant.name(),
            job.image
        ));
        let (cancel_tx, cancel) = tokio::sync::watch::channel(false);
        let stopped = crate::jobs::signals::cancel_on_stop(&cancel_tx);
        let (printed, log) = applied(ctx, (&engine, &job), &recipe, print_lines, cancel).await?;
        match printed {
            Ok(report) => after_fix(ctx, (entry, &job), (recipe_id, &log), report, rerun_on).await,
            Err(why) => {
                super::out::err(&format!("perftriage: fix {recipe_id} not applied: {why}"));
                // Stopped by a signal: 128 + its number, as `run` ends.
                let signal = stopped.lock().ok().and_then(|s| *s);
                Ok(signal.map_or(ExitCode::from(3), |(_, n)| ExitCode::from(128 + n)))
            }
        }
    })
}

/// A fix's lines on stdout, as they come (a closed stdout stops the printing, not the fix).
fn print_lines(lines: std::io::Result<Vec<crate::logs::Line>>) {
    let mut out = super::out::stdout();
    for line in lines.unwrap_or_default() {
        if writeln!(out, "{}", line.text()).is_err() {
            return;
        }
    }
}

/// Record the fix (its output kept at `log`); then, unless its image was committed, re-run the
/// variant in it.
async fn after_fix(
    ctx: &Context,
    (entry, job): (&Entry, &FixJob),
    (recipe_id, log): (&str, &str),
    report: FixReport,
    host: Option<&str>,
) -> Result<ExitCode> {
    let fixes = record(ctx, job, (recipe_id, log), &report)?;
    let variant = job.variant;
    if report.outcome == FixOutcome::Failed {
        return Ok(ExitCode::from(3));
    }
    if job.commits_image() {
        let image = report.image.unwrap_or_default();
        super::out::err(&format!("perftriage: {} {} now runs in {image}", job.short, variant.name()));
        return Ok(ExitCode::SUCCESS);
    }
    let image = report.image.unwrap_or(job.image.clone());
    let run_id = crate::jobs::planned::new_run_id();
    let plan = crate::jobs::planned::planned(ctx, (entry, variant), &run_id, None, Some((image, fixes)))?;
    super::run::run_plan(ctx, plan, false, host).await
}

/// The fix in the triage history (and its output kept), said on stderr; the fixes the variant
/// now has.
fn record(
    ctx: &Context,
    job: &FixJob,
    (recipe_id, log): (&str, &str),
    report: &FixReport,
) -> Result<Vec<String>> {
    let fixes = record_fix(ctx, job, (recipe_id, log), report)?;
    let how = outcome_words(report.outcome);
    super::out::err(&format!(
        "perftriage: {recipe_id} on {} {}: {how}; output {log}",
        job.short,
        job.variant.name()
    ));
    Ok(fixes)
}
