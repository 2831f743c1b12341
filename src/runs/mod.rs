//! Runs as data: what a baseline/human/agent run of a commit will do (image, server command,
//! the benchmark command rewritten for the container, labels), and the phases it goes through.
//! Pure: the runtime carries plans out against Docker.

pub mod auto;
mod claim;
pub use claim::{CreatedAs, Disagreement, LABEL_PLAN, check as check_claim};
mod container;
mod describe;
pub use auto::{AutoRepeat, Next, Repeat, RepeatPlan};
pub use describe::one_workload;
mod failure;
mod fixed;
pub use crate::ids::RunId;
mod launch;
pub use launch::{FoundRun, LABEL_LAUNCH, LAUNCH_SCHEMA, Launch, LaunchError};
mod phase;
mod placement;
mod plan;
mod request;
mod rewrite;
mod slurm;

pub use container::{
    CONTAINER_LABELS, ContainerSpec, GpuRequest, LABEL_BUILD, LABEL_CAMPAIGN, LABEL_COMMIT, LABEL_GPUS,
    LABEL_PID, LABEL_RUN, LABEL_VARIANT, LABEL_WORKSPACE, Orphan,
};
pub use failure::{Failure, FailureKind};
pub use phase::{Pane, RunPhase};
pub use placement::{HostSlot, Misfit, NoHostFits, place};
pub use plan::{
    LaunchAsk, PlanError, Planning, RunConfig, RunPlan, container_name, find_patch, launch_plan, plan,
};
pub use request::RunRequest;
pub use rewrite::{benchmark_argv, split_env};
pub use slurm::{SlurmConfig, SlurmError, SlurmJobState, ViewFlags, job_in_squeue, job_script, quoted};

/// The number of hunks in a unified diff, or why it is no patch at all (empty, or no file header
/// and `@@` hunk): `patch` would apply such a file as "nothing to do", and the agent run would
/// silently measure the baseline.
pub fn patch_hunks(diff: &str) -> Result<usize, PatchError> {
    if diff.trim().is_empty() {
        return Err(PatchError::Empty);
    }
    let headers = diff.lines().filter(|l| l.starts_with("+++ ")).count();
    let hunks = diff.lines().filter(|l| l.starts_with("@@ ")).count();
    match (headers, hunks) {
        (0, _) | (_, 0) => Err(PatchError::NotADiff),
        (_, hunks) => Ok(hunks),
    }
}

/// Why an agent patch cannot be applied before it is tried.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatchError {
    #[error("the agent patch is empty")]
    Empty,
    #[error("the agent patch has no file header and hunk: it is not a unified diff")]
    NotADiff,
}
