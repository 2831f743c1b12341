//! A campaign's engine: the loop that drives it (drive.rs) — read the journal, let the policy
//! pick what each (commit, variant) needs, take those steps (steps.rs: runs through the executor,
//! fixes in fixes.rs, Slurm jobs in slurm.rs, a restart's pick-up in restart.rs) — journalling
//! every step before it is taken and its end after. `cli/campaign` parses and prints; the board
//! asks through the driver's requests. It prints its progress on stderr, one line a step.

mod drive;
mod fixes;
mod in_hand;
mod restart;
mod slurm;
mod steps;

pub use drive::drive;

use crate::campaigns::Event;

/// Why a campaign's driver stops with an error (a run or fix that fails is journalled, not this).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Journal(#[from] crate::jobs::journal::CampaignFileError),
    #[error("the recipe book: {0}")]
    Recipes(#[from] crate::fixes::RecipeError),
    #[error(transparent)]
    Fixing(#[from] crate::jobs::fixing::FixingError),
    #[error("no recipe `{0}` (see `perftriage fix list`)")]
    NoRecipe(String),
    #[error("no commit `{0}` in the dataset")]
    NotInDataset(crate::ids::Short),
    #[error(transparent)]
    Record(#[from] crate::jobs::executor::RecordError),
}

/// The journal's event for a pause or cancel (`cancel` says which).
pub fn stop_event(cancel: bool) -> Event {
    let at = crate::session::now_rfc3339();
    if cancel { Event::Cancelled { at } } else { Event::Paused { at } }
}

/// One line of the campaign's progress on stderr, sanitised (it carries error texts and names
/// read from files); a closed stderr stops the saying, not the campaign.
pub fn say(text: &str) {
    use std::io::Write;
    let mut err = crate::logs::SafeWriter::new(std::io::stderr().lock(), false);
    let _ = writeln!(err, "perftriage: campaign: {text}");
}
