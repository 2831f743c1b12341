//! Known fixes as data (recipes.toml, extendable from the operator's config): which failures a
//! recipe answers, when it applies, its steps and the verify that proves it. Pure: the runtime
//! probes containers and runs the steps.

mod check;
mod recipe;
mod target;
mod template;

pub use check::{Facts, NotApplicable, applicable, version_in_range};
pub use recipe::{Inject, Recipe, RecipeBook, RecipeError};
pub use target::{LABEL_FIXED_IN, LOCAL_REPO, Owner, commit_target};
pub use template::{ALLOWED_VARIABLES, Vars};

/// A recipe as offered for a variant's image: suggested for its failure or not, and why not
/// when it does not apply there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixOffer {
    pub id: String,
    pub title: String,
    /// It answers the failure's category.
    pub suggested: bool,
    pub why_not: Option<String>,
    /// Each exact step, as it will run.
    pub steps: Vec<String>,
}
