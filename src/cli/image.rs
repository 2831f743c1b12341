//! Headless `perftriage image push SHORT --variant V` (the variant's fixed image to `[registry]`,
//! its digest recorded) and `perftriage image pull SHORT --variant V` (back by that digest, under
//! its local name, so runs use it again), `perftriage image list [--json]` and `perftriage image rm
//! IMAGE` (never another workspace's image). Exit 0 ok, 2 nothing to push, pull or remove (or the
//! image is another workspace's), 1 tool error.

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

/// This workspace's view of the local fixed and built images, with the engine that holds them.
fn listed(ctx: &Context) -> Result<(Engine, Vec<crate::app::ListedImage>)> {
    let repos = crate::jobs::images::our_repos(&ctx.config.fixed_repo(), &ctx.images.baseline);
    let owner = crate::fixes::Owner::of(&ctx.workspace);
    super::runtime()?.block_on(async {
        let engine = Engine::connect().await?;
        let listed = crate::jobs::images::listed(&engine, &repos, &owner).await?;
        anyhow::Ok((engine, listed))
    })
}

/// One image per line (tag, size, made, whose and what runs in it), or one JSON array.
pub fn list(ctx: &Context, json: bool) -> Result<ExitCode> {
    let (_, images) = listed(ctx)?;
    let book = ctx.read_workspace().book;
    let rows: Vec<ImageRow> = images.iter().map(|i| ImageRow::of(i, &book)).collect();
    if json {
        super::out::lines([super::out::json(&rows)?])?;
    } else {
        super::out::lines(rows.iter().map(ImageRow::line))?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(serde::Serialize)]
struct ImageRow {
    image: String,
    size_bytes: i64,
    created_unix: i64,
    /// The workspace that made it; none for one made before images were labelled.
    workspace: Option<String>,
    /// `short variant` pairs that run in it (this workspace's, or the other's when it is theirs).
    runs_in_it: Vec<String>,
    ours: bool,
}

impl ImageRow {
    fn of(listed: &crate::app::ListedImage, book: &crate::triage::TriageBook) -> ImageRow {
        let image = &listed.image;
        let ours = || book.naming(&image.tag).into_iter().map(|(s, v)| format!("{s} {}", v.name())).collect();
        let runs_in_it = listed.elsewhere.as_ref().map_or_else(ours, |e| e.naming.clone());
        ImageRow {
            image: image.tag.clone(),
            size_bytes: image.size_bytes,
            created_unix: image.created_unix,
            workspace: image.fixed_in.clone(),
            runs_in_it,
            ours: listed.elsewhere.is_none(),
        }
    }

    fn line(&self) -> String {
        let whose = match (&self.workspace, self.ours) {
            (Some(w), false) => format!("workspace {w}'s"),
            (None, _) => "unlabelled".into(),
            (Some(_), true) => "this workspace's".into(),
        };
        let size = crate::builds::human_bytes(u64::try_from(self.size_bytes).unwrap_or(0));
        let runs =
            if self.runs_in_it.is_empty() { "no run uses it".into() } else { self.runs_in_it.join(", ") };
        format!("{}  {size}  {whose}  {runs}", self.image)
    }
}

/// Remove a fixed image of this workspace; the variants that ran in it fall back (recorded).
pub fn rm(ctx: &Context, image: &crate::ids::ImageRef) -> Result<ExitCode> {
    let (engine, images) = listed(ctx)?;
    let Some(found) = images.iter().find(|i| i.image.tag == image.as_str()) else {
        super::out::err(&format!(
            "perftriage: {image} is not a fixed or built image of perftriage here (image list)"
        ));
        return Ok(ExitCode::from(2));
    };
    if let Some(why) = found.refusal() {
        super::out::err(&format!("perftriage: not removed: {why}"));
        return Ok(ExitCode::from(2));
    }
    // The workspace first: an image removed must be recorded (a board holding it refuses both).
    let mut workspace = ctx.open_workspace(false)?;
    super::runtime()?.block_on(engine.remove_image(image))?;
    let fallen = workspace.book.naming(image);
    for (short, variant) in &fallen {
        let change = Change::ImageRemoved { variant: variant.name().into(), image: image.clone() };
        workspace.book.apply(short, change, crate::session::now_rfc3339())?;
    }
    workspace.store.save(&workspace.book)?;
    let mut lines = vec![format!("removed {image}")];
    let fell = |(short, v): &(String, Variant)| {
        format!("  {short} {}: later runs fall back to the unfixed image", v.name())
    };
    lines.extend(fallen.iter().map(fell));
    super::out::lines(lines)?;
    Ok(ExitCode::SUCCESS)
}
