//! Slurm through its command line on this machine: `sbatch --parsable` a run's script, follow the
//! job with `squeue --json` (state, pending reason, node) while its output file in the shared
//! directory is streamed, `scancel` it. The payload writes the result under the shared directory.

use crate::runs::{SlurmJobState, job_in_squeue};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A submitted run: its job id and where its files are.
#[derive(Debug, Clone, PartialEq)]
pub struct Submitted {
    pub job_id: u64,
    pub dir: PathBuf,
}

/// What went wrong talking to Slurm: a missing client, a refusal in its own words, a file of
/// the job's that could not be written, an answer that is not what it should be.
#[derive(Debug, thiserror::Error)]
pub enum SlurmCommandError {
    #[error("cannot run {program}: {source} (is Slurm's client installed here?)")]
    Missing { program: &'static str, source: std::io::Error },
    #[error("{program}: {said}")]
    Refused { program: &'static str, said: String },
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error("sbatch answered `{0}`, not a job id")]
    NotAJobId(String),
    #[error(transparent)]
    Squeue(#[from] crate::runs::SlurmError),
}

async fn command(program: &'static str, args: &[&str]) -> Result<String, SlurmCommandError> {
    let out = tokio::process::Command::new(program)
        .args(args)
        .output()
        .await
        .map_err(|source| SlurmCommandError::Missing { program, source })?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(SlurmCommandError::Refused { program, said });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Write the script into `<shared>/<run id>/job.sh` and submit it.
pub async fn submit(dir: &Path, script: &str) -> Result<Submitted, SlurmCommandError> {
    let ws = dir.join("ws");
    crate::files::private_dir(&ws).map_err(|source| SlurmCommandError::Write { path: ws, source })?;
    let path = dir.join("job.sh");
    if let Err(source) = crate::files::write(&path, script.as_bytes()) {
        return Err(SlurmCommandError::Write { path, source });
    }
    let out = command("sbatch", &["--parsable", &path.display().to_string()]).await?;
    let id = out.trim().split(';').next().unwrap_or_default();
    let job_id = id.parse().map_err(|_| SlurmCommandError::NotAJobId(out.trim().to_string()))?;
    Ok(Submitted { job_id, dir: dir.to_path_buf() })
}

impl Submitted {
    /// Copy the payload's result file for `short`'s `variant` from the shared directory into
    /// `workspace`'s results: where it was looked for, and the copy (or why there is none).
    pub fn copy_result(
        &self,
        short: &str,
        variant: crate::dataset::Variant,
        workspace: &Path,
    ) -> (PathBuf, std::io::Result<PathBuf>) {
        let name = format!("{short}_{}_result.json", variant.name());
        let (found, copy) = (self.dir.join("ws/results").join(&name), workspace.join("results").join(&name));
        let copied =
            std::fs::read(&found).and_then(|bytes| crate::files::write(&copy, &bytes)).map(|()| copy);
        (found, copied)
    }
}

pub async fn state(job_id: u64) -> Result<Option<SlurmJobState>, SlurmCommandError> {
    Ok(job_in_squeue(&command("squeue", &["--json"]).await?, job_id)?)
}

pub async fn cancel(job_id: u64) -> Result<(), SlurmCommandError> {
    command("scancel", &[&job_id.to_string()]).await.map(drop)
}

/// How often a followed job's state is asked: each ask is a `squeue --json` of the whole queue,
/// which the controller answers for every run followed (twice a second each was 1,047 of them,
/// 21 CPU-s, in one run of the suite).
const SQUEUE_PACE: Duration = Duration::from_secs(1);

/// Follow a job until it is finished (or gone from the queue): each new state once to `on_state`,
/// each new piece of its output file to `on_output`. The last state seen.
pub async fn follow(
    job: &Submitted,
    mut on_state: impl FnMut(&SlurmJobState),
    mut on_output: impl FnMut(&[u8]),
) -> Result<Option<SlurmJobState>, SlurmCommandError> {
    let output = job.dir.join(format!("slurm-{}.out", job.job_id));
    let (mut read, mut last): (u64, Option<SlurmJobState>) = (0, None);
    loop {
        let now = state(job.job_id).await?;
        read += stream_new(&output, read, &mut on_output);
        if let Some(s) = &now
            && last.as_ref().is_none_or(|l| l.describe() != s.describe())
        {
            on_state(s);
        }
        let done = now.as_ref().is_none_or(SlurmJobState::finished);
        last = now.or(last);
        if done {
            stream_new(&output, read, &mut on_output);
            return Ok(last);
        }
        tokio::time::sleep(SQUEUE_PACE).await;
    }
}

/// What the file holds past `from`, handed on; how many bytes that was.
fn stream_new(path: &Path, from: u64, on_output: &mut impl FnMut(&[u8])) -> u64 {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = std::fs::File::open(path) else { return 0 };
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(from)).is_err() || file.read_to_end(&mut bytes).is_err() {
        return 0;
    }
    if !bytes.is_empty() {
        on_output(&bytes);
    }
    bytes.len() as u64
}
