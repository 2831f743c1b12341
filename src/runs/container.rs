//! The container a run needs, as data: named `perftriage-{short}-{variant}-{run}` and labelled
//! so a restarted board finds it again.

use super::RunId;
use crate::ids::{ImageRef, Short};
use std::collections::HashMap;

pub const LABEL_COMMIT: &str = "perftriage.commit";
pub const LABEL_VARIANT: &str = "perftriage.variant";
pub const LABEL_RUN: &str = "perftriage.run";
pub const LABEL_WORKSPACE: &str = "perftriage.workspace";
/// The process that started the container: when it is gone, nobody will remove the container.
pub const LABEL_PID: &str = "perftriage.pid";
/// A build container's label (its parent): one whose perftriage is gone cannot be picked up again.
pub const LABEL_BUILD: &str = "perftriage.build";
/// The GPUs a container of ours asked for (`all`, or a count), for placement on its host.
pub const LABEL_GPUS: &str = "perftriage.gpus";
/// The campaign whose run it is: that campaign's driver (or its resume) is the container's owner.
pub const LABEL_CAMPAIGN: &str = "perftriage.campaign";
/// The labels that mark a container as ours (an image committed from one must not pass them on).
pub const CONTAINER_LABELS: [&str; 8] = [
    LABEL_COMMIT,
    LABEL_VARIANT,
    LABEL_RUN,
    LABEL_WORKSPACE,
    LABEL_PID,
    LABEL_BUILD,
    LABEL_GPUS,
    LABEL_CAMPAIGN,
];

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum GpuRequest {
    None,
    All,
    Count(u32),
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContainerSpec {
    pub name: String,
    pub image: ImageRef,
    /// The long-running command (the server, or `sleep` for offline runs that exec into it).
    pub cmd: Vec<String>,
    pub env: Vec<String>,
    pub labels: HashMap<String, String>,
    /// Container port to publish on an ephemeral 127.0.0.1 port.
    pub publish: Option<u16>,
    pub gpus: GpuRequest,
    pub shm_bytes: i64,
    pub binds: Vec<String>,
    /// A memory limit (swap included, so the kernel's OOM killer acts at it); none by default.
    pub memory_bytes: Option<i64>,
}

/// A container of ours left behind by a process that is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    pub id: String,
    pub name: String,
    pub run_id: RunId,
    pub short: Short,
    pub variant: String,
    pub running: bool,
}
