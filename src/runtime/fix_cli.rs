//! Headless `perftriage fix list [SHORT]` and `perftriage fix apply SHORT --variant V --recipe ID
//! [--commit-image]`. Exit codes as for `run`: 0 ok, 3 the fix or the re-run failed, 1 tool error.

use super::Context;
use super::fix::{FixJob, apply};
use crate::dataset::{Entry, Variant};
use crate::docker::Engine;
use crate::fixes::RecipeBook;
use crate::triage::{Change, FixOutcome};
use anyhow::Result;
use std::process::ExitCode;

pub fn recipes(ctx: &Context) -> Result<RecipeBook> {
    Ok(match &ctx.config.recipes {
        Some(path) => RecipeBook::with_file(path)?,
        None => RecipeBook::embedded()?,
    })
}

pub fn list(ctx: &Context, short: Option<&str>) -> Result<ExitCode> {
    let book = recipes(ctx)?;
    let Some(short) = short else {
        for r in &book.recipes {
            println!("{:<28} answers {:<36} {}", r.id, r.answers.join(","), r.title);
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
        println!("{} {:<8} {:<20} {list}", entry.commit.short, v.name(), verdict.category);
    }
    Ok(ExitCode::SUCCESS)
}

/// The job for a variant: its current image (a fixed one if committed before), where a fixed image goes.
pub fn job(ctx: &Context, entry: &Entry, variant: Variant, commit_image: bool) -> Result<FixJob> {
    let c = &entry.commit;
    let book = ctx.read_workspace().book;
    let planned = crate::runs::plan(c, variant, &ctx.config.runs, &ctx.images, &ctx.workspace, "fix")?;
    let image = book.fixed_image(&c.short, variant.name()).unwrap_or(planned.image);
    let evidence = entry.variant(variant).verdict.as_ref().map(|v| v.evidence.clone());
    let repo = commit_image.then(|| ctx.config.fixed_repo());
    Ok(FixJob::new(c, variant, image, evidence, repo.as_deref(), &ctx.workspace))
}

pub fn apply_cli(
    ctx: &Context,
    short: &str,
    variant: Variant,
    recipe_id: &str,
    commit_image: bool,
) -> Result<ExitCode> {
    let book = recipes(ctx)?;
    let Some(recipe) = book.get(recipe_id).cloned() else {
        eprintln!("perftriage: no recipe `{recipe_id}` (see `perftriage fix list`)");
        return Ok(ExitCode::from(2));
    };
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let job = job(ctx, entry, variant, commit_image)?;
    let mut workspace = ctx.open_workspace(false)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let engine = Engine::connect().await?;
        eprintln!("perftriage: applying {recipe_id} to {} {} in {}", job.short, variant.name(), job.image);
        let report =
            apply(&engine, &job, &recipe, ctx.config.runs.vllm_repo.as_deref(), |t| print!("{t}")).await;
        let report = match report {
            Ok(r) => r,
            Err(why) => {
                eprintln!("perftriage: fix {recipe_id} not applied: {why}");
                return Ok(ExitCode::from(3));
            }
        };
        let log = job.save_output(recipe_id, &report.output);
        let recorded_image = if commit_image { report.image.clone() } else { None };
        let change = Change::Fix {
            variant: variant.name().into(),
            recipe: recipe_id.into(),
            outcome: report.outcome,
            image: recorded_image,
            log: log.clone(),
        };
        workspace.book.apply(&job.short, change, super::now_rfc3339())?;
        workspace.store.save(&workspace.book)?;
        let how = match report.outcome {
            FixOutcome::Verified => "verified",
            FixOutcome::AlreadyApplied => "already applied",
            FixOutcome::Failed => "FAILED (fix failed; output kept)",
        };
        eprintln!(
            "perftriage: {recipe_id} on {} {}: {how}; output {}",
            job.short,
            variant.name(),
            log.unwrap_or_default()
        );
        if report.outcome == FixOutcome::Failed {
            return Ok(ExitCode::from(3));
        }
        if commit_image {
            eprintln!(
                "perftriage: {} {} now runs in {}",
                job.short,
                variant.name(),
                report.image.unwrap_or_default()
            );
            return Ok(ExitCode::SUCCESS);
        }
        // Re-run the variant in the fixed environment, with every fix recorded for it.
        let image = report.image.unwrap_or(job.image.clone());
        let mut fixes = workspace.book.fixes(&job.short, variant.name());
        if !fixes.contains(&recipe_id.to_string()) {
            fixes.push(recipe_id.to_string());
        }
        drop(workspace);
        let plan = crate::runs::plan(
            &entry.commit,
            variant,
            &ctx.config.runs,
            &ctx.images,
            &ctx.workspace,
            &super::run_cli::run_id(),
        )?;
        super::run_cli::run_plan(ctx, plan.with_fixed_image(image, fixes), false).await
    })
}
