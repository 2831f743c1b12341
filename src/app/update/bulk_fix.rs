//! `F`: one recipe over many commits, planned per (commit, variant) from each variant's own
//! failure; variants the recipe already fixed are skipped with the reason, and the confirm lists
//! every variant it will touch.

use super::fixes::{apply, category_of};
use crate::app::{Action, AppState, BulkPicker, BulkTarget, Confirm, ConfirmAction, Effect, Level, Mode};
use crate::dataset::Variant;
use crate::ids::Short;

/// Above this many variants a bulk fix asks twice.
pub const BULK_SECOND_CONFIRM: usize = 10;

/// What a bulk fix of one recipe would do over some commits.
#[derive(Debug, Default)]
struct Plan {
    targets: Vec<BulkTarget>,
    /// A variant the recipe already fixed, and the line that says so.
    skipped: Vec<String>,
    /// Failing variants whose failure the recipe does not answer.
    other_failures: usize,
}

/// Each failing variant of the commits, with its own failure's category.
fn failing_variants(state: &AppState, shorts: &[Short]) -> Vec<(Short, Variant, String)> {
    let board = &state.board;
    let mut out = Vec::new();
    for short in shorts {
        let Some(index) = board.entry_index(short) else { continue };
        let entry = &board.entries[index];
        for v in Variant::ALL.into_iter().filter(|v| entry.variant(*v).outcome.status.is_failure()) {
            out.push((short.clone(), v, category_of(state, index, v)));
        }
    }
    out
}

fn answers(state: &AppState, recipe: &str) -> Vec<String> {
    state.session.recipes.iter().filter(|r| r.id == recipe).flat_map(|r| r.answers.clone()).collect()
}

fn plan(state: &AppState, shorts: &[Short], recipe: &str) -> Plan {
    let answers = answers(state, recipe);
    let mut plan = Plan::default();
    for (short, variant, category) in failing_variants(state, shorts) {
        if !answers.contains(&category) {
            plan.other_failures += 1;
        } else if state.board.book.fixes(&short, variant.name()).iter().any(|r| r == recipe) {
            plan.skipped.push(already_fixed(state, &short, variant, recipe));
        } else {
            plan.targets.push(BulkTarget { short, variant, category });
        }
    }
    plan
}

fn already_fixed(state: &AppState, short: &Short, variant: Variant, recipe: &str) -> String {
    let image = state.board.book.fixed_image(short, variant.name());
    let runs_in = image.map_or_else(String::new, |i| format!(", runs in {i}"));
    format!("  {short} {:<8} skipped: already fixed with {recipe}{runs_in} (r re-runs it)", variant.name())
}

/// `F`: the recipes that answer a failing variant of the picked commits (else all shown).
pub fn open(state: &mut AppState) -> Vec<Effect> {
    let shorts = state.board.picked_or_shown();
    let categories: Vec<String> = failing_variants(state, &shorts).into_iter().map(|(.., c)| c).collect();
    let recipes: Vec<(String, String)> = state
        .session
        .recipes
        .iter()
        .filter(|r| r.answers.iter().any(|a| categories.contains(a)))
        .map(|r| (r.id.clone(), r.title.clone()))
        .collect();
    if recipes.is_empty() {
        state.notify(Level::Info, "no known fix answers the failures of these commits");
        return Vec::new();
    }
    state.mode = Mode::BulkFix(BulkPicker { shorts, recipes, selected: 0 });
    Vec::new()
}

pub fn picker(state: &mut AppState, action: Action) -> Vec<Effect> {
    let Mode::BulkFix(picker) = &mut state.mode else { return Vec::new() };
    match action {
        Action::MenuDown => {
            picker.selected = (picker.selected + 1).min(picker.recipes.len().saturating_sub(1))
        }
        Action::MenuUp => picker.selected = picker.selected.saturating_sub(1),
        Action::Choose => {
            let (recipe, shorts) = (picker.recipes[picker.selected].0.clone(), picker.shorts.clone());
            let plan = plan(state, &shorts, &recipe);
            confirm(state, plan, recipe, false);
        }
        Action::Close => state.mode = Mode::Normal,
        _ => {}
    }
    Vec::new()
}

fn confirm(state: &mut AppState, plan: Plan, recipe: String, again: bool) {
    let Plan { targets, skipped, other_failures } = plan;
    let mut preview =
        vec![format!("{recipe} on {} failing variant(s) it answers, one at a time:", targets.len())];
    preview.extend(targets.iter().map(|t| format!("  {} {:<8} ({})", t.short, t.variant.name(), t.category)));
    preview.extend(skipped);
    if other_failures > 0 {
        preview.push(format!(
            "({other_failures} other failing variant(s) left out: {recipe} does not answer them)"
        ));
    }
    preview.push("each in a container from that variant's image; verified fixes are committed as".into());
    preview.push("the variant's fixed image (press r later to run them).".into());
    let title = if again {
        format!("{} variants: really bulk-apply {recipe}?", targets.len())
    } else {
        format!("Bulk-apply {recipe}?")
    };
    let action = ConfirmAction::BulkFix { targets, recipe, again };
    state.mode = Mode::Confirm(Confirm::new(title, preview, action));
}

/// Yes on a bulk confirm: a large batch is asked about once more, then applied.
pub fn confirmed(state: &mut AppState, targets: Vec<BulkTarget>, recipe: String, again: bool) -> Vec<Effect> {
    if targets.len() > BULK_SECOND_CONFIRM && !again {
        let plan = Plan { targets, ..Plan::default() };
        confirm(state, plan, recipe, true);
        return Vec::new();
    }
    let mut effects = Vec::new();
    for t in &targets {
        effects.extend(apply(state, &t.short, t.variant, &recipe, true));
    }
    state.board.picked.clear();
    state.notify(Level::Info, format!("{} fix(es) queued", effects.len()));
    effects
}
