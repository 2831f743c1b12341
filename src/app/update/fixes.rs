//! The fix menu, applying a fix from the board, bulk fixes and what a finished fix records.

use crate::app::{
    AppState, Confirm, ConfirmAction, Effect, FixMenu, FixOffer, Key, KeyCode, Level, LogKey, LogView, Mode,
};
use crate::dataset::{RunStatus, Variant};
use crate::triage::{Change, FixOutcome};

/// The variant a fix is for: the first failing one, else the first recorded one.
fn failing_variant(state: &AppState, index: usize) -> Option<(Variant, String)> {
    let entry = &state.entries[index];
    Variant::ALL.into_iter().find(|v| entry.variant(*v).outcome.status.is_failure()).map(|v| {
        let verdict = entry.variant(v).verdict.as_ref().or(entry.hint.as_ref());
        (v, verdict.map_or(crate::classify::UNCLASSIFIED.to_string(), |x| x.category.clone()))
    })
}

/// `f`: probe the failing variant's image and open the menu.
pub fn open(state: &mut AppState) -> Vec<Effect> {
    let Some(index) = state.selected_entry() else { return Vec::new() };
    let short = state.entries[index].commit.short.clone();
    let Some((variant, category)) = failing_variant(state, index) else {
        state.message = Some((Level::Info, format!("{short} has no failed variant to fix")));
        return Vec::new();
    };
    let image = state.book.fixed_image(&short, variant.name());
    let evidence = evidence(state, index, variant);
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

fn evidence(state: &AppState, index: usize, variant: Variant) -> Option<String> {
    state.entries[index].variant(variant).verdict.as_ref().map(|v| v.evidence.clone())
}

pub fn offers(state: &mut AppState, short: &str, variant: Variant, offers: Result<Vec<FixOffer>, String>) {
    if let Mode::Fix(menu) = &mut state.mode
        && menu.short == short
        && menu.variant == variant
    {
        menu.offers = Some(offers);
        menu.selected = 0;
    }
}

pub fn menu_key(state: &mut AppState, key: Key) -> Vec<Effect> {
    let Mode::Fix(menu) = &mut state.mode else { return Vec::new() };
    let count = menu.shown().len();
    match key.code {
        KeyCode::Char('j') | KeyCode::Down => {
            menu.selected = (menu.selected + 1).min(count.saturating_sub(1))
        }
        KeyCode::Char('k') | KeyCode::Up => menu.selected = menu.selected.saturating_sub(1),
        KeyCode::Char('w') => {
            menu.show_why = !menu.show_why;
            menu.selected = 0;
        }
        KeyCode::Char('u') => {
            let (short, category) = (menu.short.clone(), menu.category.clone());
            state.mode = Mode::Normal;
            return super::prompt::open_unfixable(state, &short, &category);
        }
        KeyCode::Enter | KeyCode::Char('c') => return confirm(state, key.code == KeyCode::Char('c')),
        KeyCode::Esc | KeyCode::Char('q') => state.mode = Mode::Normal,
        _ => {}
    }
    Vec::new()
}

fn confirm(state: &mut AppState, commit_image: bool) -> Vec<Effect> {
    let Mode::Fix(menu) = &state.mode else { return Vec::new() };
    let Some(offer) = menu.current().cloned() else { return Vec::new() };
    if let Some(why) = &offer.why_not {
        state.message = Some((Level::Warn, format!("{} does not apply here: {why}", offer.id)));
        return Vec::new();
    }
    let (short, variant) = (menu.short.clone(), menu.variant);
    let mut preview: Vec<String> = vec![format!("In a container from {short}'s {} image:", variant.name())];
    preview.extend(offer.steps.iter().map(|s| format!("  {s}")));
    preview.push(if commit_image {
        "then commit it as the fixed image for this variant and use it from now on.".into()
    } else {
        format!("then re-run {} in the fixed environment; the result names the fix.", variant.name())
    });
    let title = format!("Apply {} to {short} {}?", offer.id, variant.name());
    let action = ConfirmAction::ApplyFix { short, variant, recipe: offer.id, commit_image };
    state.mode = Mode::Confirm(Confirm { title, preview, action, yes_focused: false });
    Vec::new()
}

/// Queue a fix; its output streams into the log pane.
pub fn apply(
    state: &mut AppState,
    short: &str,
    variant: Variant,
    recipe: &str,
    commit_image: bool,
) -> Vec<Effect> {
    let image = state.book.fixed_image(short, variant.name());
    let evidence = state.entry_index(short).and_then(|i| evidence(state, i, variant));
    let log = LogKey { short: short.into(), variant, run: format!("fix-{recipe}") };
    let title = format!("fix {recipe} · {short} {}", variant.name());
    state.log = Some(LogView::new(log.clone(), title, state.log_ring));
    state.focus_run = None;
    state.message = Some((Level::Info, format!("applying {recipe} to {short} {}…", variant.name())));
    vec![Effect::ApplyFix {
        short: short.into(),
        variant,
        recipe: recipe.into(),
        commit_image,
        image,
        evidence,
        log,
    }]
}

/// Record the fix; a verified fix without a committed image is re-run at once.
pub fn done(state: &mut AppState, done: FixDoneArgs) -> Vec<Effect> {
    let FixDoneArgs { short, variant, recipe, outcome, image, log, commit_image } = done;
    let recorded = if commit_image { image.clone() } else { None };
    let change = Change::Fix {
        variant: variant.name().into(),
        recipe: recipe.clone(),
        outcome,
        image: recorded,
        log: log.clone(),
    };
    let mut effects = super::triage::record_change(state, &short, change);
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
    state.message = Some(message);
    if outcome != FixOutcome::Failed && !commit_image {
        let mut fixes = state.book.fixes(&short, variant.name());
        if !fixes.contains(&recipe) {
            fixes.push(recipe);
        }
        effects.extend(super::runs::start_with(state, &short, &[variant], image, fixes));
    }
    effects
}

pub struct FixDoneArgs {
    pub short: String,
    pub variant: Variant,
    pub recipe: String,
    pub outcome: FixOutcome,
    pub image: Option<String>,
    pub log: Option<String>,
    pub commit_image: bool,
}

/// Space: pick the selected commit for a bulk fix.
pub fn pick(state: &mut AppState) -> Vec<Effect> {
    if let Some(short) = state.selected_short().map(str::to_string)
        && !state.picked.remove(&short)
    {
        state.picked.insert(short);
    }
    super::board::move_by(state, 1)
}

/// `F`: one recipe for the picked commits (else all shown), chosen from what their failures suggest.
pub fn open_bulk(state: &mut AppState, recipes: &[(String, String, Vec<String>)]) -> Vec<Effect> {
    let shorts: Vec<String> = if state.picked.is_empty() {
        state.visible.iter().map(|&i| state.entries[i].commit.short.clone()).collect()
    } else {
        state.picked.iter().cloned().collect()
    };
    let categories: Vec<String> = shorts
        .iter()
        .filter_map(|s| state.entry_index(s))
        .filter(|&i| {
            state.entries[i]
                .variants
                .iter()
                .any(|v| v.outcome.status == RunStatus::Error || v.outcome.status == RunStatus::Timeout)
        })
        .map(|i| state.entries[i].category().to_string())
        .collect();
    let offered: Vec<(String, String)> = recipes
        .iter()
        .filter(|(_, _, answers)| answers.iter().any(|a| categories.contains(a)))
        .map(|(id, title, _)| (id.clone(), title.clone()))
        .collect();
    if offered.is_empty() {
        state.message = Some((Level::Info, "no known fix answers the failures of these commits".into()));
        return Vec::new();
    }
    state.mode = Mode::BulkFix { shorts, recipes: offered, selected: 0 };
    Vec::new()
}

pub fn bulk_key(state: &mut AppState, key: Key) -> Vec<Effect> {
    let Mode::BulkFix { shorts, recipes, selected } = &mut state.mode else { return Vec::new() };
    match key.code {
        KeyCode::Char('j') | KeyCode::Down => {
            *selected = (*selected + 1).min(recipes.len().saturating_sub(1))
        }
        KeyCode::Char('k') | KeyCode::Up => *selected = selected.saturating_sub(1),
        KeyCode::Enter => {
            let (recipe, shorts) = (recipes[*selected].0.clone(), shorts.clone());
            let mut preview = vec![format!("{recipe} on {} commit(s), one at a time:", shorts.len())];
            preview.push(format!("  {}", shorts.join(" ")));
            preview.push(
                "each in a container from its failing variant's image; verified fixes are committed as"
                    .into(),
            );
            preview.push("that variant's fixed image (press r later to run them).".into());
            let title = format!("Bulk-apply {recipe}?");
            state.mode = Mode::Confirm(Confirm {
                title,
                preview,
                action: ConfirmAction::BulkFix { shorts, recipe },
                yes_focused: false,
            });
        }
        _ => state.mode = Mode::Normal,
    }
    Vec::new()
}

pub fn apply_bulk(state: &mut AppState, shorts: &[String], recipe: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for short in shorts {
        let Some(index) = state.entry_index(short) else { continue };
        let Some((variant, _)) = failing_variant(state, index) else { continue };
        effects.extend(apply(state, short, variant, recipe, true));
    }
    state.picked.clear();
    state.message = Some((Level::Info, format!("{} fix(es) queued", effects.len())));
    effects
}
