//! The fix menu, applying a fix from the board and what a finished fix records.

use crate::app::{
    Action, AppState, Confirm, ConfirmAction, Effect, FixDone, FixEnd, FixMenu, FixRequest, Focus, JobError,
    Level, LogId, LogKey, LogView, Mode, Prompt, PromptPurpose,
};
use crate::dataset::Variant;
use crate::fixes::FixOffer;
use crate::ids::{ImageRef, Short};
use crate::runs::RunRequest;
use crate::triage::{Change, FixOutcome};

/// The variant a fix is for: the first failing one, with its failure's category.
fn failing_variant(state: &AppState, index: usize) -> Option<(Variant, String)> {
    let v = state.board.entries[index].newest_failing()?;
    Some((v, category_of(state, index, v)))
}

pub(super) fn category_of(state: &AppState, index: usize, v: Variant) -> String {
    let entry = &state.board.entries[index];
    let verdict = entry.variant(v).verdict.as_ref().or(entry.hint.as_ref());
    verdict.map_or(crate::classify::UNCLASSIFIED.to_string(), |x| x.category.clone())
}

fn evidence(state: &AppState, short: &str, variant: Variant) -> Option<String> {
    let index = state.board.entry_index(short)?;
    state.board.entries[index].variant(variant).verdict.as_ref().map(|v| v.evidence.clone())
}

/// `f`: probe the newest failing variant's image and open the menu.
pub fn open(state: &mut AppState) -> Vec<Effect> {
    let Some(index) = state.board.selected_entry() else { return Vec::new() };
    let short = state.board.entries[index].commit.short.clone();
    let Some((variant, category)) = failing_variant(state, index) else {
        state.notify(Level::Info, format!("{short} has no failed variant to fix"));
        return Vec::new();
    };
    open_for(state, index, variant, category)
}

/// `b`/`h`/`a` in the menu: the fixes for that variant instead.
fn switch_variant(state: &mut AppState, variant: Variant) -> Vec<Effect> {
    let Some(index) = state.board.selected_entry() else { return Vec::new() };
    let category = category_of(state, index, variant);
    open_for(state, index, variant, category)
}

fn open_for(state: &mut AppState, index: usize, variant: Variant, category: String) -> Vec<Effect> {
    let short = state.board.entries[index].commit.short.clone();
    let image = state.board.book.fixed_image(&short, variant.name());
    let evidence = evidence(state, &short, variant);
    let menu = FixMenu {
        short: short.clone(),
        variant,
        category: category.clone(),
        offers: None,
        selected: 0,
        show_why: false,
    };
    state.mode = Mode::Fix(menu);
    vec![Effect::ProbeFixes { short, variant, image, category, evidence }]
}

/// A menu whose probe was refused as "not connected" probes again once Docker is (whichever of
/// the refusal and the connection the board hears first), rather than saying "not connected"
/// under a header that says connected.
pub fn probe_again(state: &mut AppState) -> Vec<Effect> {
    let connected = matches!(state.runs.docker, crate::app::DockerStatus::Connected(_));
    let Mode::Fix(FixMenu { short, variant, category, offers: Some(Err(why)), .. }) = &state.mode else {
        return Vec::new();
    };
    if !connected || !why.is_not_connected() {
        return Vec::new();
    }
    let (short, variant, category) = (short.clone(), *variant, category.clone());
    let Some(index) = state.board.entry_index(&short) else { return Vec::new() };
    open_for(state, index, variant, category)
}

/// A fix ended: recorded (and re-run if asked) when it ran to its verdict, said when it did not.
pub fn ended(state: &mut AppState, short: Short, variant: Variant, end: FixEnd) -> Vec<Effect> {
    state.runs.fixes.remove(&(short.clone(), variant));
    match end {
        FixEnd::Applied(done) => fix_done(state, short, variant, done),
        FixEnd::NotApplied { recipe, why } => {
            state.notify(Level::Error, format!("fix {recipe} not applied: {why}"));
            Vec::new()
        }
    }
}

/// The fixes that apply, for the open menu (if it is still the variant's).
pub fn offered(
    state: &mut AppState,
    short: &str,
    variant: Variant,
    offers: Result<Vec<FixOffer>, JobError>,
) -> Vec<Effect> {
    if let Mode::Fix(menu) = &mut state.mode
        && menu.short == short
        && menu.variant == variant
    {
        menu.offers = Some(offers);
        menu.selected = 0;
    }
    probe_again(state)
}

pub fn menu(state: &mut AppState, action: Action) -> Vec<Effect> {
    let Mode::Fix(menu) = &mut state.mode else { return Vec::new() };
    let count = menu.shown().len();
    match action {
        Action::MenuDown => menu.selected = (menu.selected + 1).min(count.saturating_sub(1)),
        Action::MenuUp => menu.selected = menu.selected.saturating_sub(1),
        Action::ShowWhy => {
            menu.show_why = !menu.show_why;
            menu.selected = 0;
        }
        Action::FixUnfixable => {
            let (short, category) = (menu.short.clone(), menu.category.clone());
            let text = state.board.explained_reason(&short, &category);
            state.mode = Mode::Prompt(Prompt::new(PromptPurpose::UnfixableReason, &short, text));
        }
        Action::ApplyFix | Action::ApplyFixCommit => return confirm(state, action == Action::ApplyFix),
        Action::ShowBaseline => return switch_variant(state, Variant::Baseline),
        Action::ShowHuman => return switch_variant(state, Variant::Human),
        Action::ShowAgent => return switch_variant(state, Variant::Agent),
        Action::Close => state.mode = Mode::Normal,
        _ => {}
    }
    Vec::new()
}

/// `Enter`: apply, commit the fixed image and re-run in it; `c`: apply and commit only.
fn confirm(state: &mut AppState, rerun: bool) -> Vec<Effect> {
    let Mode::Fix(menu) = &state.mode else { return Vec::new() };
    let Some(offer) = menu.current().cloned() else { return Vec::new() };
    if let Some(why) = &offer.why_not {
        state.notify(Level::Warn, format!("{} does not apply here: {why}", offer.id));
        return Vec::new();
    }
    let (short, variant) = (menu.short.clone(), menu.variant);
    let mut preview: Vec<String> = vec![format!("In a container from {short}'s {} image:", variant.name())];
    preview.extend(offer.steps.iter().map(|s| format!("  {s}")));
    let owner = state.session.owner.as_ref();
    let tag = state.board.entry_index(&short).zip(owner).map(|(i, owner)| {
        let commit = &state.board.entries[i].commit;
        let (repo, tag) =
            crate::fixes::commit_target(commit, variant, Some(&state.session.fixed_repo), owner);
        format!("{repo}:{tag}")
    });
    let tag = tag.unwrap_or_else(|| "the fixed image".into());
    preview.push(format!("then commit it as {tag}, the fixed image for this variant; later runs use it."));
    if rerun {
        preview.push(format!("then re-run {} in that image; the result names the fix.", variant.name()));
    }
    let title = format!("Apply {} to {short} {}?", offer.id, variant.name());
    let action = ConfirmAction::ApplyFix { short, variant, recipe: offer.id, commit_image: true, rerun };
    state.mode = Mode::Confirm(Confirm::new(title, preview, action));
    Vec::new()
}

/// Queue a fix; its output streams into the log pane, which takes focus.
pub fn apply(
    state: &mut AppState,
    short: &str,
    variant: Variant,
    recipe: &str,
    commit_image: bool,
) -> Vec<Effect> {
    let image = state.board.book.fixed_image(short, variant.name());
    let evidence = evidence(state, short, variant);
    let log = LogKey { short: short.into(), variant, log: LogId::Fix { recipe: recipe.to_string() } };
    let title = format!("fix {recipe} · {short} {}", variant.name());
    state.logs.show(LogView::new(log.clone(), title, state.logs.ring));
    state.focus = Focus::Log;
    let (short, recipe) = (Short::from(short), recipe.to_string());
    state.runs.fixes.insert((short.clone(), variant), recipe.clone());
    let started = format!("applying {recipe} to {short} {}…", variant.name());
    let request = FixRequest { short, variant, recipe, commit_image, image, evidence, log };
    super::waiting::when_connected(state, Effect::ApplyFix(request), started)
}

/// Record the fix; a verified fix without a committed image is re-run at once.
fn fix_done(state: &mut AppState, short: Short, variant: Variant, done: FixDone) -> Vec<Effect> {
    let FixDone { recipe, outcome, image, log, commit_image } = done;
    let recorded = if commit_image { image.clone() } else { None };
    let change = Change::Fix {
        variant: variant.name().into(),
        recipe: recipe.clone(),
        outcome,
        image: recorded,
        log: log.clone(),
    };
    let effects = state.record(&short, change);
    let message = match outcome {
        FixOutcome::Failed => (
            Level::Error,
            format!("fix {recipe} on {short} FAILED its verify; output in {}", log.unwrap_or_default()),
        ),
        FixOutcome::Verified | FixOutcome::AlreadyApplied if commit_image => (
            Level::Info,
            format!("{short} {} now runs in {}", variant.name(), image.clone().unwrap_or_default()),
        ),
        _ => (Level::Info, format!("{recipe} verified on {short}; re-running {}", variant.name())),
    };
    state.notify(message.0, message.1);
    let rerun = state.board.rerun_after_fix.remove(&(short.clone(), variant)) || !commit_image;
    if outcome == FixOutcome::Failed {
        return effects;
    }
    if let Some(index) = state.board.entry_index(&short) {
        state.board.rebuild_row(index);
    }
    if rerun {
        rerun_in(state, short, variant, recipe, image);
    }
    effects
}

/// The re-run of a fixed variant, in the image the fix made; its panes take the fix's output's
/// place where that is shown.
fn rerun_in(state: &mut AppState, short: Short, variant: Variant, recipe: String, image: Option<ImageRef>) {
    let fix_log = LogKey { short: short.clone(), variant, log: LogId::Fix { recipe: recipe.clone() } };
    let mut fixes = state.board.book.fixes(&short, variant.name());
    if !fixes.contains(&recipe) {
        fixes.push(recipe);
    }
    let repeat = state.repeat_plan(&short, variant, state.runs.repeat);
    let run = state.queue_run(RunRequest { short, variant, image, fixes, host: None, repeat });
    state.logs.follow_rerun(&fix_log, run);
    state.refresh_live_cells();
}
