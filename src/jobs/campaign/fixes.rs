//! A campaign's fixes: a verified recipe applied and committed as the cell's fixed image on the
//! host its failed run ran on, or the image its sibling's fix made taken over; each recorded in
//! the triage history (where the workspace lets it) and in the journal.

use super::{EngineError, say};
use crate::dataset::Variant;
use crate::jobs::fix::{FixJob, FixReport};
use crate::jobs::fixing::{applied, engine_of, fix_job, outcome_words, record_fix};
use crate::session::Context;
use crate::triage::FixOutcome;

/// A campaign's fix of a variant on `host` (where its failed run ran; none: this machine's
/// engine): applied and committed as its fixed image there (its output spooled, not printed),
/// recorded in the triage history and in the campaign's journal.
pub async fn campaign_fix(
    ctx: &Context,
    journal: &crate::jobs::journal::Journal,
    (short, variant): (&crate::ids::Short, Variant),
    recipe_id: &str,
    host: Option<&str>,
) -> Result<(), EngineError> {
    let recipe = ctx.recipes()?.get(recipe_id).cloned();
    let recipe = recipe.ok_or_else(|| EngineError::NoRecipe(recipe_id.to_string()))?;
    let entry = ctx.find(short).ok_or_else(|| EngineError::NotInDataset(short.clone()))?;
    let mut job = fix_job(ctx, entry, variant, true)?;
    // The journal is the campaign's word on the image the variant and its image sibling share
    // now (the triage history may not have a fix yet: its writer was busy).
    if let Some(image) = shared_fixed_image(journal, short, variant) {
        job.image = image;
    }
    let engine = engine_of(ctx, host).await?;
    // Its output is spooled as the fix's log, not printed.
    // Never thrown: a campaign stopped mid-fix lets the fix end (its journal then says how).
    let (_keep, never) = tokio::sync::watch::channel(false);
    let (applied, log) = applied(ctx, (&engine, &job), &recipe, drop, never).await?;
    let image = match applied {
        Ok(report) => {
            recorded(ctx, &job, (recipe_id, &log), &report);
            report.image.filter(|_| report.outcome != FixOutcome::Failed)
        }
        Err(why) => {
            say(&format!("fix {recipe_id} on {short} not applied: {why}"));
            None
        }
    };
    let at = crate::session::now_rfc3339();
    let (short, recipe, host) = (short.clone(), recipe_id.into(), host.map(str::to_string));
    let fixed = crate::campaigns::Event::Fixed { short, variant, recipe, image, host, at };
    Ok(journal.append(&fixed)?)
}

/// The newest fixed image the journal names for `variant` or its image sibling, read now.
fn shared_fixed_image(
    journal: &crate::jobs::journal::Journal,
    short: &crate::ids::Short,
    variant: Variant,
) -> Option<crate::ids::ImageRef> {
    let state = journal.state().ok()?;
    let of = |v: Variant| {
        state.cells.get(&(short.clone(), v)).and_then(|cell| cell.fixed()).map(|(image, _)| image)
    };
    of(variant).or_else(|| variant.image_sibling().and_then(of))
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
) -> Result<(), EngineError> {
    let entry = ctx.find(short).ok_or_else(|| EngineError::NotInDataset(short.clone()))?;
    let job = fix_job(ctx, entry, variant, true)?;
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
    let (short, variant) = (&job.short, job.variant.name());
    match record_fix(ctx, job, (recipe_id, log), report) {
        Ok(_) => {
            say(&format!("{recipe_id} on {short} {variant}: {}; output {log}", outcome_words(report.outcome)))
        }
        Err(why) => say(&format!(
            "{recipe_id} on {short} {variant} not in the triage history yet ({why}); the campaign's journal keeps it"
        )),
    }
}
