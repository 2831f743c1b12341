//! Known fixes as data (recipes.toml, extendable from the operator's config): which failures a
//! recipe answers, when it applies, its steps and the verify that proves it. Pure: the runtime
//! probes containers and runs the steps.

mod check;
mod recipe;
mod template;

pub use check::{Facts, applicable, version_in_range};
pub use recipe::{Inject, Recipe, RecipeBook, RecipeError};
pub use template::{ALLOWED_VARIABLES, Vars};
