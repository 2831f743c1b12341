//! What a run was launched with — the exact plan, the image's digest, the host, the time — written
//! when its container is created and read back whenever the run is picked up again (a restarted
//! board, a daemon or host back, a Slurm job followed again). Nothing about a running run is
//! rebuilt from today's config. Pure: reading and writing the file is the caller's.

use super::{RunId, RunPlan};
use crate::ids::Short;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The record's schema; a record of another one is refused, not guessed at.
pub const LAUNCH_SCHEMA: u32 = 1;
/// The container label that holds the record's path.
pub const LABEL_LAUNCH: &str = "perftriage.launch";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Launch {
    pub schema: u32,
    /// The plan as it ran: image, fixes, command, GPUs, repeats, warm-ups, timeouts.
    pub plan: RunPlan,
    /// The digest of `plan.image` when the container was created from it.
    pub image_digest: Option<String>,
    /// The `[[hosts]]` engine it runs on; `None`: this machine's.
    pub host: Option<String>,
    /// When its container was created (RFC 3339, UTC).
    pub created: String,
}

/// Why a run's launch record cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("run id `{}` is not a plain name (letters, digits, `-`, `_`, `.`): no launch record is read for it", .0.escape_debug())]
    BadRunId(RunId),
    #[error("the container has no launch record (no {LABEL_LAUNCH} label: started before records were kept)")]
    NoLabel,
    #[error("launch record: {0}")]
    Unreadable(crate::files::RegularError),
    #[error("the launch record {} is corrupt: {source}", path.display())]
    Corrupt { path: PathBuf, source: serde_json::Error },
    #[error("the launch record {} has schema {found}, not {LAUNCH_SCHEMA}", path.display())]
    Schema { path: PathBuf, found: u32 },
    #[error("the launch record {} is of run {found}, not {expected}", path.display())]
    OtherRun { path: PathBuf, found: RunId, expected: RunId },
}

impl LaunchError {
    /// Whether there is no record at all (as opposed to one that cannot be used).
    pub fn is_missing(&self) -> bool {
        matches!(self, LaunchError::Unreadable(e) if e.is_missing())
    }
}

impl Launch {
    pub fn new(
        plan: &RunPlan,
        image_digest: Option<String>,
        host: Option<String>,
        created: String,
    ) -> Launch {
        Launch { schema: LAUNCH_SCHEMA, plan: plan.clone(), image_digest, host, created }
    }

    /// The repeats it was launched with, as a request says them.
    pub fn repeat_plan(&self) -> super::RepeatPlan {
        match &self.plan.auto {
            Some(auto) => super::RepeatPlan::Auto(auto.clone()),
            None => super::RepeatPlan::Times(self.plan.repeat),
        }
    }

    /// `<workspace>/runs/<run id>/launch.json`.
    pub fn path(workspace: &Path, run_id: &RunId) -> PathBuf {
        workspace.join("runs").join(run_id).join("launch.json")
    }

    pub fn to_json(&self) -> Vec<u8> {
        // A plan is strings, numbers and maps with string keys: it always serialises.
        serde_json::to_vec_pretty(self).unwrap_or_default()
    }

    /// The record of run `run_id` from the bytes read at `path`.
    pub fn parse(path: &Path, bytes: &[u8], run_id: &RunId) -> Result<Launch, LaunchError> {
        let path = path.to_path_buf();
        let schema = serde_json::from_slice::<SchemaOnly>(bytes)
            .map_err(|source| LaunchError::Corrupt { path: path.clone(), source })?;
        if schema.schema != LAUNCH_SCHEMA {
            return Err(LaunchError::Schema { path, found: schema.schema });
        }
        let launch: Launch = serde_json::from_slice(bytes)
            .map_err(|source| LaunchError::Corrupt { path: path.clone(), source })?;
        if launch.plan.run_id != *run_id {
            let (found, expected) = (launch.plan.run_id.clone(), run_id.clone());
            return Err(LaunchError::OtherRun { path, found, expected });
        }
        Ok(launch)
    }
}

#[derive(Deserialize)]
struct SchemaOnly {
    schema: u32,
}

/// A running container of ours found after a restart (or a host back): where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundRun {
    pub run_id: RunId,
    pub short: Short,
    pub variant: crate::dataset::Variant,
    pub container: String,
    /// When it was created (unix seconds): its time limit counts from then.
    pub created: i64,
    /// The `[[hosts]]` engine it runs on (`None`: `DOCKER_HOST`'s).
    pub host: Option<String>,
}
