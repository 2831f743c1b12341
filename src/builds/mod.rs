//! Baseline builds (vLLM from source at the parent commit): what a build's log says about its
//! progress. Pure; the executor and the build pane come with the build command.

mod progress;

pub use progress::{BuildProgress, Step};
