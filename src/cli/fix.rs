//! Headless `perftriage fix list [SHORT]` and `perftriage fix apply SHORT --variant V --recipe ID
//! [--commit-image]`. Exit codes as for `run`: 0 ok, 3 the fix or the re-run failed, 1 tool error.

use crate::dataset::{Entry, Variant};
use crate::jobs::fix::{FixJob, FixReport, apply};
use crate::jobs::lines::LinePath;
use crate::logs::Stream;
use crate::session::Context;
use crate::triage::{Change, FixOutcome};
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

/// The job for a variant: its current image (a fixed one if committed before), where a fixed image goes.
pub fn job(ctx: &Context, entry: &Entry, variant: Variant, commit_image: bool) -> Result<FixJob> {
    let c = &entry.commit;
    let book = ctx.read_workspace().book;
    let planned =
        crate::runs::plan(c, variant, &ctx.config.runs, &ctx.images, &ctx.workspace, &"fix".into())?;
    let image = book.fixed_image(&c.short, variant.name()).unwrap_or(planned.image);
    let evidence = entry.variant(variant).verdict.as_ref().map(|v| v.evidence.clone());
    let repo = commit_image.then(|| ctx.config.fixed_repo());
    let reserve = ctx.config.runs.reserve_bytes();
    Ok(FixJob::new(c, variant, image, evidence, repo.as_deref(), &ctx.workspace).reserving(reserve))
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
    let job = job(ctx, entry, variant, commit_image)?;
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
        let (printed, log) = applied(ctx, (&engine, &job), &recipe, print_lines).await?;
        match printed {
            Ok(report) => after_fix(ctx, (entry, &job), (recipe_id, &log), report, rerun_on).await,
            Err(why) => {
                super::out::err(&format!("perftriage: fix {recipe_id} not applied: {why}"));
                Ok(ExitCode::from(3))
            }
        }
    })
}

/// Apply `recipe` to the job's container on `engine`, its output taking the line path (decoded,
/// redacted, spooled as the fix's log) and each batch of lines handed to `shown`; how it went, and
/// the log's path.
async fn applied(
    ctx: &Context,
    (engine, job): (&crate::docker::Engine, &FixJob),
    recipe: &crate::fixes::Recipe,
    mut shown: impl FnMut(std::io::Result<Vec<crate::logs::Line>>),
) -> Result<(Result<FixReport, crate::jobs::fix::FixError>, String)> {
    let repo = ctx.config.runs.vllm_repo.as_deref();
    let classifier = std::sync::Arc::new(ctx.classifier.clone());
    let mut lines = LinePath::create(&job.log_path(&recipe.id), ctx.redactor.clone(), classifier)?;
    let report = apply(engine, job, recipe, repo, |bytes| shown(lines.ingest(Stream::Stdout, bytes))).await;
    shown(lines.finish());
    Ok((report, lines.path().display().to_string()))
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
    let run_id = super::run::run_id();
    let plan = super::run::planned(ctx, (entry, variant), &run_id, None, Some((image, fixes)))?;
    super::run::run_plan(ctx, plan, false, host).await
}

/// The fix in the triage history (and its output kept); the fixes the variant now has.
fn record(
    ctx: &Context,
    job: &FixJob,
    (recipe_id, log): (&str, &str),
    report: &FixReport,
) -> Result<Vec<String>> {
    let mut workspace = ctx.open_workspace(false)?;
    let change = Change::Fix {
        variant: job.variant.name().into(),
        recipe: recipe_id.into(),
        outcome: report.outcome,
        image: if job.commits_image() { report.image.clone() } else { None },
        log: Some(log.to_string()),
    };
    workspace.book.apply(&job.short, change, crate::session::now_rfc3339())?;
    workspace.store.save(&workspace.book)?;
    let how = match report.outcome {
        FixOutcome::Verified => "verified",
        FixOutcome::AlreadyApplied => "already applied",
        FixOutcome::Failed => "FAILED (fix failed; output kept)",
    };
    super::out::err(&format!(
        "perftriage: {recipe_id} on {} {}: {how}; output {log}",
        job.short,
        job.variant.name()
    ));
    let mut fixes = workspace.book.fixes(&job.short, job.variant.name());
    if !fixes.iter().any(|f| f == recipe_id) {
        fixes.push(recipe_id.to_string());
    }
    Ok(fixes)
}

/// A campaign's fix of a variant on `host` (where its failed run ran; none: this machine's
/// engine): applied and committed as its fixed image there (its output spooled, not printed),
/// recorded in the triage history and in the campaign's journal.
pub async fn campaign_fix(
    ctx: &Context,
    journal: &crate::jobs::journal::Journal,
    (short, variant): (&crate::ids::Short, Variant),
    recipe_id: &str,
    host: Option<&str>,
) -> Result<()> {
    let recipe = ctx.recipes()?.get(recipe_id).cloned();
    let recipe =
        recipe.ok_or_else(|| anyhow::anyhow!("no recipe `{recipe_id}` (see `perftriage fix list`)"))?;
    let entry = ctx.find(short).ok_or_else(|| anyhow::anyhow!("no commit `{short}` in the dataset"))?;
    let job = job(ctx, entry, variant, true)?;
    let engine = engine_of(ctx, host).await?;
    // Its output is spooled as the fix's log, not printed.
    let (applied, log) = applied(ctx, (&engine, &job), &recipe, drop).await?;
    let image = match applied {
        Ok(report) => {
            recorded(ctx, &job, (recipe_id, &log), &report);
            report.image.filter(|_| report.outcome != FixOutcome::Failed)
        }
        Err(why) => {
            super::out::err(&format!("perftriage: campaign: fix {recipe_id} on {short} not applied: {why}"));
            None
        }
    };
    let at = crate::session::now_rfc3339();
    let (short, recipe, host) = (short.clone(), recipe_id.into(), host.map(str::to_string));
    let fixed = crate::campaigns::Event::Fixed { short, variant, recipe, image, host, at };
    Ok(journal.append(&fixed)?)
}

/// A campaign's fix of a variant whose image its sibling shares (baseline and agent run in the
/// parent's image) and whose sibling this recipe already fixed into `image`: that image is the
/// variant's too, recorded in the triage history and the journal, nothing applied again (a
/// second commit would take the tag from under the sibling's result).
pub fn campaign_shared_fix(
    ctx: &Context,
    journal: &crate::jobs::journal::Journal,
    (short, variant): (&crate::ids::Short, Variant),
    (recipe_id, image): (&str, crate::ids::ImageRef),
    host: Option<&str>,
) -> Result<()> {
    let entry = ctx.find(short).ok_or_else(|| anyhow::anyhow!("no commit `{short}` in the dataset"))?;
    let job = job(ctx, entry, variant, true)?;
    let report =
        FixReport { outcome: FixOutcome::AlreadyApplied, image: Some(image.clone()), output: String::new() };
    recorded(ctx, &job, (recipe_id, "(shared with the variant that made it)"), &report);
    let (short, recipe, host) = (short.clone(), recipe_id.into(), host.map(str::to_string));
    let at = crate::session::now_rfc3339();
    Ok(journal.append(&crate::campaigns::Event::Fixed {
        short,
        variant,
        recipe,
        image: Some(image),
        host,
        at,
    })?)
}

/// A campaign's fix recorded in the triage history where the workspace lets it: a board holding
/// the workspace records it from the journal instead (its runs take the journal's image).
fn recorded(ctx: &Context, job: &FixJob, (recipe_id, log): (&str, &str), report: &FixReport) {
    if let Err(why) = record(ctx, job, (recipe_id, log), report) {
        super::out::err(&format!(
            "perftriage: campaign: {recipe_id} on {} {} not in the triage history yet ({why}); the campaign's journal keeps it",
            job.short,
            job.variant.name()
        ));
    }
}

/// The engine of the `[[hosts]]` host `host`; this machine's without one.
pub(super) async fn engine_of(ctx: &Context, host: Option<&str>) -> Result<crate::docker::Engine> {
    let Some(name) = host else { return Ok(crate::docker::Engine::connect().await?) };
    Ok(crate::jobs::fleet::chosen(&ctx.config.hosts, name).await?)
}
