//! A fix applied from a headless context and recorded in the triage history — the steps `fix
//! apply` and a campaign's auto-fix share: the job for a variant, the fix applied with its output
//! on the line path, the outcome in the triage history, the engine of a `[[hosts]]` host.

use crate::dataset::{Entry, Variant};
use crate::docker::Engine;
use crate::jobs::fix::{FixError, FixJob, FixReport, apply};
use crate::jobs::lines::LinePath;
use crate::logs::{Line, Stream};
use crate::session::Context;
use crate::triage::{Change, FixOutcome};

/// Why a fix could not be set up or recorded (a fix that ran and failed is a report, not this).
#[derive(Debug, thiserror::Error)]
pub enum FixingError {
    #[error(transparent)]
    Plan(#[from] crate::runs::PlanError),
    #[error("cannot spool the fix's log: {0}")]
    Spool(#[from] std::io::Error),
    #[error(transparent)]
    Store(#[from] crate::triage::StoreError),
    #[error(transparent)]
    Triage(#[from] crate::triage::TriageError),
    #[error(transparent)]
    Docker(#[from] crate::docker::DockerError),
    #[error(transparent)]
    Place(#[from] crate::jobs::fleet::PlaceError),
}

/// The job for a variant: its current image (a fixed one if committed before), where a fixed
/// image goes (`commit_image`: the fixed-image repository).
pub fn fix_job(
    ctx: &Context,
    entry: &Entry,
    variant: Variant,
    commit_image: bool,
) -> Result<FixJob, FixingError> {
    let c = &entry.commit;
    let book = ctx.read_workspace().book;
    let planned =
        crate::runs::plan(c, variant, &ctx.config.runs, &ctx.images, &ctx.workspace, &"fix".into())?;
    // A fix builds on the newest fixed image this variant runs in, its image sibling's included:
    // the tag is theirs both, and a fix from the plain image would drop the sibling's fix (and
    // leave its image dangling).
    let fixed = |v: Variant| book.fixed_image(&c.short, v.name());
    let image = fixed(variant).or_else(|| variant.image_sibling().and_then(fixed)).unwrap_or(planned.image);
    let evidence = entry.variant(variant).verdict.as_ref().map(|v| v.evidence.clone());
    let repo = commit_image.then(|| ctx.config.fixed_repo());
    let reserve = ctx.config.runs.reserve_bytes();
    Ok(FixJob::new(c, variant, image, evidence, repo.as_deref(), &ctx.workspace).reserving(reserve))
}

/// Apply `recipe` to the job's container on `engine` until `cancel` is thrown, its output taking
/// the line path (decoded, redacted, spooled as the fix's log) and each batch of lines handed to
/// `shown`; how it went, and the log's path.
pub async fn applied(
    ctx: &Context,
    (engine, job): (&Engine, &FixJob),
    recipe: &crate::fixes::Recipe,
    mut shown: impl FnMut(std::io::Result<Vec<Line>>),
    cancel: tokio::sync::watch::Receiver<bool>,
) -> Result<(Result<FixReport, FixError>, String), FixingError> {
    let repo = ctx.config.runs.vllm_repo.as_deref();
    let classifier = std::sync::Arc::new(crate::classify::Classifier::clone(&ctx.classifier));
    let mut lines = LinePath::create(&job.log_path(&recipe.id), ctx.redactor.clone(), classifier)?;
    let sink = |bytes: &[u8]| shown(lines.ingest(Stream::Stdout, bytes));
    let report = apply(engine, job, (recipe, repo), sink, cancel).await;
    shown(lines.finish());
    Ok((report, lines.path().display().to_string()))
}

/// The fix in the triage history (its output kept at `log`): the fixes the variant now has.
pub fn record_fix(
    ctx: &Context,
    job: &FixJob,
    (recipe_id, log): (&str, &str),
    report: &FixReport,
) -> Result<Vec<String>, FixingError> {
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
    let mut fixes = workspace.book.fixes(&job.short, job.variant.name());
    if !fixes.iter().any(|f| f == recipe_id) {
        fixes.push(recipe_id.to_string());
    }
    Ok(fixes)
}

/// How a fix went, in words.
pub fn outcome_words(outcome: FixOutcome) -> &'static str {
    match outcome {
        FixOutcome::Verified => "verified",
        FixOutcome::AlreadyApplied => "already applied",
        FixOutcome::Failed => "FAILED (fix failed; output kept)",
    }
}

/// The engine of the `[[hosts]]` host `host`; this machine's without one.
pub async fn engine_of(ctx: &Context, host: Option<&str>) -> Result<Engine, FixingError> {
    let Some(name) = host else { return Ok(Engine::connect().await?) };
    Ok(crate::jobs::fleet::chosen(&ctx.config.hosts, name).await?)
}
