//! Headless `perftriage image push SHORT --variant V` (the variant's fixed image to `[registry]`,
//! its digest recorded) and `perftriage image pull SHORT --variant V` (back by that digest, under
//! its local name, so runs use it again). Exit 0 ok, 2 nothing to push or pull, 1 tool error.

use crate::dataset::Variant;
use crate::docker::{Engine, PullEvent, registry};
use crate::session::Context;
use crate::triage::Change;
use anyhow::Result;
use std::process::ExitCode;

/// A line per finished layer, on stderr.
fn progress(verb: &'static str) -> impl FnMut(&PullEvent) {
    registry::on_layer(move |done| super::out::err(&format!("perftriage: {verb}: {done} layer(s) done")))
}

pub fn push(ctx: &Context, short: &str, variant: Variant) -> Result<ExitCode> {
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let short = entry.commit.short.clone();
    let Some(local) = ctx.read_workspace().book.fixed_image(&short, variant.name()) else {
        super::out::err(&format!(
            "perftriage: {short} {} has no fixed image to push (fix apply --commit-image makes one)",
            variant.name()
        ));
        return Ok(ExitCode::from(2));
    };
    let (remote, login) = registry::target(&ctx.config.registry, &local).map_err(anyhow::Error::msg)?;
    let reference = super::runtime()?.block_on(async {
        let engine = Engine::connect().await?;
        anyhow::Ok(engine.push(&local, &remote, login, progress("push")).await?)
    })?;
    let mut workspace = ctx.open_workspace(false)?;
    let change =
        Change::Pushed { variant: variant.name().into(), image: local, reference: reference.clone() };
    workspace.book.apply(&short, change, crate::session::now_rfc3339())?;
    workspace.store.save(&workspace.book)?;
    super::out::lines([reference.to_string()])?;
    Ok(ExitCode::SUCCESS)
}

pub fn pull(ctx: &Context, short: &str, variant: Variant) -> Result<ExitCode> {
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let short = entry.commit.short.clone();
    let Some((local, reference)) = ctx.read_workspace().book.pushed(&short, variant.name()) else {
        super::out::err(&format!(
            "perftriage: {short} {} has no pushed image (image push first)",
            variant.name()
        ));
        return Ok(ExitCode::from(2));
    };
    let (_, login) = registry::target(&ctx.config.registry, &local).map_err(anyhow::Error::msg)?;
    super::runtime()?.block_on(async {
        let engine = Engine::connect().await?;
        engine.ensure_room(&format!("pulling {reference}"), ctx.config.runs.pull_needs_bytes()).await?;
        engine.pull_as(&reference, login, progress("pull")).await?;
        anyhow::Ok(engine.tag(&reference, &local).await?)
    })?;
    super::out::lines([format!("{reference} → {local}")])?;
    Ok(ExitCode::SUCCESS)
}
