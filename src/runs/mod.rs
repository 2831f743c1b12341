//! Runs as data: what a baseline/human/agent run of a commit will do (image, server command,
//! the benchmark command rewritten for the container, labels), and the phases it goes through.
//! Pure: the runtime carries plans out against Docker.

mod container;
mod phase;
mod plan;
mod redact;
mod rewrite;

pub use container::{ContainerSpec, GpuRequest, LABEL_COMMIT, LABEL_RUN, LABEL_VARIANT, LABEL_WORKSPACE};
pub use phase::{Pane, RunPhase};
pub use plan::{PlanError, RunConfig, RunPlan, plan};
pub use redact::Redactor;
pub use rewrite::{benchmark_argv, split_env};
