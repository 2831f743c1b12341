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

/// Whether a unified diff touches C/C++/CUDA sources (an editable install does not rebuild them).
pub fn patch_touches_native(diff: &str) -> bool {
    diff.lines().filter_map(|l| l.strip_prefix("+++ ")).any(|path| {
        [".cu", ".cuh", ".cpp", ".cc", ".c", ".h", ".hpp"].iter().any(|ext| path.trim_end().ends_with(ext))
    })
}
