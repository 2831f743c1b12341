//! The images view (`I`): our fixed images with what they fix; delete one after a confirm (never
//! another workspace's).

use crate::app::ListedImage;
use crate::app::{Action, AppState, Confirm, ConfirmAction, Effect, JobError, Level, Mode};
use crate::triage::Change;

/// `I`: open the view and ask for the list.
pub fn open(state: &mut AppState) -> Vec<Effect> {
    state.mode = Mode::Images(0);
    vec![Effect::ListImages]
}

pub fn listed(state: &mut AppState, listed: Result<Vec<ListedImage>, JobError>) -> Vec<Effect> {
    match listed {
        Ok(mut images) => {
            images.sort_by(|a, b| {
                let (a, b) = (&a.image, &b.image);
                b.created_unix.cmp(&a.created_unix).then_with(|| a.tag.cmp(&b.tag))
            });
            state.runs.images = images;
        }
        Err(why) => state.notify(Level::Error, format!("cannot list the fixed images: {why}")),
    }
    if let Mode::Images(selected) = &mut state.mode {
        *selected = (*selected).min(state.runs.images.len().saturating_sub(1));
    }
    Vec::new()
}

pub fn act(state: &mut AppState, action: Action) -> Vec<Effect> {
    let Mode::Images(selected) = state.mode else { return Vec::new() };
    let count = state.runs.images.len();
    match action {
        Action::MenuDown => state.mode = Mode::Images((selected + 1).min(count.saturating_sub(1))),
        Action::MenuUp => state.mode = Mode::Images(selected.saturating_sub(1)),
        Action::DeleteImage => ask_delete(state, selected),
        Action::PushImage => return push(state, selected),
        Action::Close => state.mode = Mode::Normal,
        _ => {}
    }
    Vec::new()
}

fn push(state: &mut AppState, selected: usize) -> Vec<Effect> {
    let Some(image) = state.runs.images.get(selected) else { return Vec::new() };
    let tag = image.image.tag.clone();
    state.notify(Level::Info, format!("pushing {tag} to the registry…"));
    vec![Effect::PushImage(tag)]
}

/// Pushed: each variant that runs in the image records where it went.
pub fn pushed(state: &mut AppState, tag: &str, reference: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for (short, variant) in state.board.variants_fixed_by(tag) {
        let change =
            Change::Pushed { variant: variant.name().into(), image: tag.into(), reference: reference.into() };
        effects.extend(state.record(&short, change));
    }
    state.notify(Level::Info, format!("pushed {tag} as {reference}"));
    effects
}

/// Removed from the engine: the variants that ran in it no longer do (recorded, so a restart
/// knows it too); their next runs go to their override or template image.
pub fn removed(state: &mut AppState, tag: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for (short, variant) in state.board.variants_fixed_by(tag) {
        let change = Change::ImageRemoved { variant: variant.name().into(), image: tag.into() };
        effects.extend(state.record(&short, change));
    }
    effects
}

fn ask_delete(state: &mut AppState, selected: usize) {
    let Some(image) = state.runs.images.get(selected) else { return };
    if let Some(why) = image.refusal() {
        state.notify(Level::Warn, format!("not removed: {why}"));
        return;
    }
    let tag = image.image.tag.clone();
    let users = state.board.fixed_by(&tag);
    let mut preview = vec![format!("Image {tag} will be removed from this Docker engine.")];
    preview.extend(users.iter().map(|u| format!("  {u}: later runs fall back to the unfixed image")));
    let action = ConfirmAction::RemoveImage { tag: tag.clone() };
    state.mode = Mode::Confirm(Confirm::new(format!("Remove {tag}?"), preview, action));
}
