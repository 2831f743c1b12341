//! Baseline builds (vLLM from source at the parent commit): the recipe as exact steps with its
//! knobs, what the log says about progress and failure, and this machine's build history. Pure;
//! the executor is `jobs::build`.

mod failure;
pub mod history;
mod knobs;
mod plan;
mod progress;
mod units;
mod watch;

pub use failure::{Failure, FailureKind, FailureScan, suggest_max_jobs};
pub use knobs::{BuildConfig, KnobSet, Knobs, Machine, describe_knobs, gib_bytes, parse_knobs};
pub use plan::{Action, BuildPlan, BuildStep, Phase};
pub use progress::{BuildProgress, Step};
pub use units::{duration, human_bytes, whole_secs};
pub use watch::BuildWatch;
