//! Why a run ended without a result: one of the tool's own kinds, or a failure signature the
//! classifier named from the run's output (a rule id of `classify/rules.toml`).

use serde::{Serialize, Serializer};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureKind {
    Cancelled,
    Timeout,
    ServerTimeout,
    ServerCrash,
    ToolError,
    DockerError,
    DockerUnreachable,
    ImageMissing,
    /// The registry did not answer the pull this time (refused, timed out).
    PullFailed,
    GpuRuntimeMissing,
    PatchFail,
    ScriptsMissing,
    NoVllm,
    PlanError,
    /// A container found after a restart stopped before this board saw its result.
    Reattached,
    /// Too little disk under the Docker data root for a pull, commit or build.
    NoRoom,
    /// A campaign's run stopped on request (the board's `x`, `campaign cancel --run`): its cell is
    /// left, not run again.
    CancelledOnRequest,
    /// A campaign's run launched before a stop that left neither a container nor a result: it
    /// never ran, and runs again.
    LostInARestart,
    /// A campaign's Slurm job that could not be submitted or followed, or ended without a result
    /// (a node failure): an infrastructure failure, retried.
    SlurmLost,
    /// A launch record that disagrees with its container (labels, name, image, plan): the run is
    /// refused, its container left for a look and nothing recorded.
    LaunchMismatch,
    /// A classifier rule id (`aimv2`, `numpy2`, …).
    Signature(String),
}

/// The tool's own kinds and their names (the names match the classifier's where both exist).
const NAMES: &[(FailureKind, &str)] = &[
    (FailureKind::Cancelled, "cancelled"),
    (FailureKind::Timeout, "timeout"),
    (FailureKind::ServerTimeout, "server_timeout"),
    (FailureKind::ServerCrash, "server_crash"),
    (FailureKind::ToolError, "tool_error"),
    (FailureKind::DockerError, "docker_error"),
    (FailureKind::DockerUnreachable, "docker_unreachable"),
    (FailureKind::ImageMissing, "manifest_unknown"),
    (FailureKind::PullFailed, "pull_failed"),
    (FailureKind::GpuRuntimeMissing, "gpu_runtime_missing"),
    (FailureKind::PatchFail, "patch_fail"),
    (FailureKind::ScriptsMissing, "scripts_missing"),
    (FailureKind::NoVllm, "no_vllm"),
    (FailureKind::PlanError, "plan_error"),
    (FailureKind::Reattached, "reattached"),
    (FailureKind::NoRoom, "no_room"),
    (FailureKind::CancelledOnRequest, "cancelled_on_request"),
    (FailureKind::LostInARestart, "lost_in_a_restart"),
    (FailureKind::SlurmLost, "slurm_lost"),
    (FailureKind::LaunchMismatch, "launch_mismatch"),
];

impl FailureKind {
    pub fn name(&self) -> &str {
        match self {
            FailureKind::Signature(id) => id,
            kind => NAMES.iter().find(|(k, _)| k == kind).map_or("", |(_, n)| n),
        }
    }

    /// A category as the classifier or a result file names it.
    pub fn from_name(name: &str) -> FailureKind {
        NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map_or_else(|| FailureKind::Signature(name.into()), |(k, _)| k.clone())
    }

    /// The run never got to measure anything because this host's set-up is wrong (the vLLM
    /// checkout lacks the commit, the plan cannot be made): not a result of the commit.
    pub fn is_setup_error(&self) -> bool {
        matches!(
            self,
            FailureKind::ScriptsMissing
                | FailureKind::PlanError
                | FailureKind::NoRoom
                | FailureKind::LaunchMismatch
        )
    }

    /// Says nothing specific: a named signature in the output explains the failure better.
    pub fn is_generic(&self) -> bool {
        matches!(self, FailureKind::ServerCrash | FailureKind::ToolError | FailureKind::DockerError)
    }
}

impl Serialize for FailureKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Any name reads: one the tool does not know is a classifier's signature.
impl<'de> serde::Deserialize<'de> for FailureKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FailureKind, D::Error> {
        Ok(FailureKind::from_name(&String::deserialize(d)?))
    }
}

impl std::fmt::Display for FailureKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A run step that failed: what kind of failure, and the words that say so.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
}

impl Failure {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure { kind, message: message.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A journal's categories are kinds: the campaign's own read back as themselves, a classifier's
    /// signature as a signature, each written as the name it was read from.
    #[test]
    fn every_kind_reads_back_from_the_name_it_is_written_as() {
        for (kind, name) in NAMES {
            let read: FailureKind = serde_json::from_value(serde_json::json!(name)).unwrap();
            assert_eq!(&read, kind, "{name}");
            assert_eq!(serde_json::to_value(&read).unwrap(), serde_json::json!(name));
        }
        let signature: FailureKind = serde_json::from_str("\"aimv2\"").unwrap();
        assert_eq!(signature, FailureKind::Signature("aimv2".into()));
        assert_eq!(FailureKind::from_name("slurm_lost"), FailureKind::SlurmLost);
    }
}
