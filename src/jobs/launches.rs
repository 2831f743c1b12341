//! Launch records on disk: written atomically when a run is launched (a container created, a
//! Slurm job submitted), read back whenever it is picked up again. The record's shape is
//! `runs::Launch`'s; this file only reads and writes it.

use crate::runs::{Launch, LaunchError, RunPlan};
use std::path::{Path, PathBuf};

/// Write `plan`'s record in `workspace`; its path.
pub fn write(
    workspace: &Path,
    plan: &RunPlan,
    digest: Option<String>,
    host: Option<String>,
) -> Result<PathBuf, WriteError> {
    let launch = Launch::new(plan, digest, host, crate::session::now_rfc3339());
    let path = Launch::path(workspace, &plan.run_id);
    match crate::files::write_atomic(&path, &launch.to_json()) {
        Ok(()) => Ok(path),
        Err(source) => Err(WriteError { path, source }),
    }
}

/// A launch record is a few KB; this is a thousand times that (a bigger one was not written by
/// perftriage).
const MAX_LAUNCH: u64 = 4 * 1024 * 1024;

/// Run `run_id`'s record in `workspace` (an id read from a container's label that would lead out
/// of the workspace's `runs/` is refused).
pub fn read(workspace: &Path, run_id: &crate::runs::RunId) -> Result<Launch, LaunchError> {
    if !run_id.is_plain() {
        return Err(LaunchError::BadRunId(run_id.clone()));
    }
    let path = Launch::path(workspace, run_id);
    let bytes = crate::files::read_regular(&path, MAX_LAUNCH).map_err(LaunchError::Unreadable)?;
    Launch::parse(&path, &bytes, run_id)
}

/// A record that could not be written: the run is not launched.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the launch record {}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    pub source: std::io::Error,
}
