//! A run as a Slurm batch job: the script `sbatch` gets. It asks for the commit's GPUs
//! (`--gres=gpu:N`, or `--gpus=N`), a time limit from the run's own timeouts, writes its output
//! into the shared directory the nodes see, and its payload is perftriage's headless `run` on the
//! allocated node (`exec`, so `scancel`'s SIGTERM reaches the runner, which removes its container).

use super::{GpuRequest, RunPlan};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// `[slurm]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SlurmConfig {
    pub partition: Option<String>,
    pub account: Option<String>,
    /// A directory every node sees: each run's output, workspace and result under `<dir>/<run id>`.
    #[serde(default, deserialize_with = "crate::checked::absolute_dir")]
    pub shared_dir: Option<PathBuf>,
    /// perftriage on the nodes (default: this binary's path, for a shared install).
    #[serde(default, deserialize_with = "crate::checked::some_path")]
    pub perftriage: Option<PathBuf>,
    /// `gres` (`--gres=gpu:N`, the default) or `gpus` (`--gpus=N`).
    #[serde(default, deserialize_with = "crate::checked::gpu_flag")]
    pub gpu_flag: Option<String>,
    /// The board's runs become Slurm jobs (otherwise `[slurm]` serves `perftriage slurm` only).
    pub board: bool,
}

/// Minutes beyond the run's own timeouts for pulling and starting the container.
const SETUP_MINUTES: u64 = 15;

/// Why no batch script (or no job state) could be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SlurmError {
    #[error("set [slurm] shared_dir: a directory the nodes see")]
    NoSharedDir,
    #[error("[slurm] {what} `{value}`: letters, digits, - _ . : only")]
    NotPlain { what: &'static str, value: String },
    #[error("[slurm] gpu_flag `{0}`: gres or gpus")]
    GpuFlag(String),
    #[error(
        "[slurm] shared_dir `{0}`: sbatch reads an #SBATCH path up to its first space and takes % for a pattern; \
         choose a directory without whitespace, quotes, backslashes or %"
    )]
    SbatchPath(String),
    #[error("squeue --json: {0}")]
    Squeue(String),
}

/// The global flags that shaped the operator's view (theme aside), for the payload to run with
/// the same: as absolute paths, since the job runs in the shared directory, maybe on another node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ViewFlags {
    pub config: Option<PathBuf>,
    pub dataset: Option<PathBuf>,
    pub results: Vec<PathBuf>,
}

impl ViewFlags {
    pub fn new(config: Option<&Path>, dataset: Option<&Path>, results: &[PathBuf]) -> ViewFlags {
        // A path that cannot be made absolute (no current directory) is kept as given.
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        ViewFlags {
            config: config.map(absolute),
            dataset: dataset.map(absolute),
            results: results.iter().map(|p| absolute(p)).collect(),
        }
    }

    /// `--config PATH --dataset PATH --results PATH…`, each path shell-quoted.
    fn words(&self) -> String {
        self.flags().map(|(flag, path)| format!(" {flag} {}", quoted(&path.to_string_lossy()))).collect()
    }

    /// `perftriage` with these flags and `--workspace`, each path shell-quoted: a command that
    /// reaches the same view and workspace when pasted.
    pub fn perftriage(&self, workspace: &Path) -> String {
        let workspace = std::path::absolute(workspace).unwrap_or_else(|_| workspace.to_path_buf());
        format!("perftriage{} --workspace {}", self.words(), quoted(&workspace.to_string_lossy()))
    }

    /// The same flags as a process's arguments.
    pub fn argv(&self) -> Vec<std::ffi::OsString> {
        self.flags().flat_map(|(flag, path)| [flag.into(), path.as_os_str().to_owned()]).collect()
    }

    fn flags(&self) -> impl Iterator<Item = (&'static str, &PathBuf)> {
        let flags = self.config.iter().map(|p| ("--config", p));
        let flags = flags.chain(self.dataset.iter().map(|p| ("--dataset", p)));
        flags.chain(self.results.iter().map(|p| ("--results", p)))
    }
}

/// One shell word whatever `value` holds (`'`, `$()`, backticks, newlines): single-quoted unless
/// it is only letters, digits and `-_=/,.+` (shell-escape's rule).
pub fn quoted(value: &str) -> String {
    shell_escape::unix::escape(value.into()).into_owned()
}

/// A Slurm word from the config: no spaces, quotes or shell characters.
fn plain(what: &'static str, value: &str) -> Result<String, SlurmError> {
    let ok = !value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c));
    ok.then(|| value.to_string()).ok_or_else(|| SlurmError::NotPlain { what, value: value.to_string() })
}

/// A path sbatch reads from an `#SBATCH` line as it is (it cuts at whitespace and expands `%`).
fn sbatch_path(dir: &Path) -> Result<String, SlurmError> {
    let text = dir.to_string_lossy();
    let bad = |c: char| c.is_whitespace() || c.is_control() || "'\"\\%".contains(c);
    if text.chars().any(bad) {
        return Err(SlurmError::SbatchPath(text.into_owned()));
    }
    Ok(text.into_owned())
}

/// The job's name: the commit and variant, anything but letters, digits, `-` and `_` made `_`.
fn job_name(plan: &RunPlan) -> String {
    let name = format!("perftriage-{}-{}", plan.short, plan.variant.name());
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

fn gpu_line(config: &SlurmConfig, gpus: &GpuRequest, commit_gpus: u32) -> Result<Option<String>, SlurmError> {
    let n = match gpus {
        GpuRequest::None => return Ok(None),
        GpuRequest::All => commit_gpus.max(1),
        GpuRequest::Count(n) => *n,
    };
    match config.gpu_flag.as_deref().unwrap_or("gres") {
        "gres" => Ok(Some(format!("#SBATCH --gres=gpu:{n}"))),
        "gpus" => Ok(Some(format!("#SBATCH --gpus={n}"))),
        other => Err(SlurmError::GpuFlag(other.to_string())),
    }
}

/// The `#SBATCH` lines: name, time, output and directory, partition, account, GPUs.
fn sbatch_lines(
    config: &SlurmConfig,
    plan: &RunPlan,
    dir: &str,
    commit_gpus: u32,
) -> Result<Vec<String>, SlurmError> {
    let minutes = (plan.ready_timeout_s + plan.run_timeout_s).div_ceil(60) + SETUP_MINUTES;
    let mut lines = vec![
        format!("#SBATCH --job-name={}", job_name(plan)),
        format!("#SBATCH --time={minutes}"),
        format!("#SBATCH --output={dir}/slurm-%j.out"),
        format!("#SBATCH --chdir={dir}"),
    ];
    if let Some(p) = &config.partition {
        lines.push(format!("#SBATCH --partition={}", plain("partition", p)?));
    }
    if let Some(a) = &config.account {
        lines.push(format!("#SBATCH --account={}", plain("account", a)?));
    }
    lines.extend(gpu_line(config, &plan.container.gpus, commit_gpus)?);
    Ok(lines)
}

/// The batch script for `plan`; `view`: the flags the payload runs with. Every value in the
/// payload's line is one quoted shell word.
pub fn job_script(
    config: &SlurmConfig,
    plan: &RunPlan,
    commit_gpus: u32,
    view: &ViewFlags,
) -> Result<String, SlurmError> {
    let shared = config.shared_dir.as_ref().ok_or(SlurmError::NoSharedDir)?;
    let dir = sbatch_path(&shared.join(&plan.run_id))?;
    let binary =
        config.perftriage.clone().or_else(|| std::env::current_exe().ok()).unwrap_or("perftriage".into());
    let mut lines = vec!["#!/bin/bash".to_string()];
    lines.extend(sbatch_lines(config, plan, &dir, commit_gpus)?);
    lines.push(
        "# The payload: perftriage's own headless run (same runner, redaction, result, cleanup).".into(),
    );
    lines.push(format!(
        "exec {}{} --workspace {} run {} --variant {}{} --json",
        quoted(&binary.to_string_lossy()),
        view.words(),
        quoted(&format!("{dir}/ws")),
        quoted(&plan.short),
        plan.variant.name(),
        plan.repeat_arg().map(|r| format!(" --repeat {r}")).unwrap_or_default()
    ));
    Ok(lines.join("\n") + "\n")
}

/// One job as `squeue --json` lists it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SlurmJobState {
    pub job_id: u64,
    /// `PENDING`, `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, `TIMEOUT`, …
    pub job_state: String,
    #[serde(default)]
    pub state_reason: String,
    #[serde(default)]
    pub nodes: String,
    #[serde(default)]
    pub exit_code: Option<i64>,
}

impl SlurmJobState {
    /// The job will not change any more.
    pub fn finished(&self) -> bool {
        !matches!(self.job_state.as_str(), "PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING" | "SUSPENDED")
    }

    /// `PENDING (Resources)`, `RUNNING on node1`, `COMPLETED (exit 0)`.
    pub fn describe(&self) -> String {
        match self.job_state.as_str() {
            "PENDING" => format!("PENDING ({})", self.state_reason),
            "RUNNING" | "COMPLETING" => format!("{} on {}", self.job_state, self.nodes),
            state => format!("{state} (exit {})", self.exit_code.map_or("?".into(), |c| c.to_string())),
        }
    }
}

/// Job `id` in `squeue --json`'s output (its filters are ignored with `--json`: filtered here).
pub fn job_in_squeue(json: &str, id: u64) -> Result<Option<SlurmJobState>, SlurmError> {
    #[derive(Deserialize)]
    struct Listing {
        jobs: Vec<serde_json::Value>,
    }
    let listing: Listing = serde_json::from_str(json).map_err(|e| SlurmError::Squeue(e.to_string()))?;
    let found = listing.jobs.into_iter().find(|j| j["job_id"].as_u64() == Some(id));
    let read = |j| serde_json::from_value(j).map_err(|e| SlurmError::Squeue(format!("job {id}: {e}")));
    found.map(read).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squeue_json_is_read_for_our_job_only() {
        let json = r#"{"jobs":[{"job_id":3,"job_state":"RUNNING","state_reason":"None","nodes":"vm"},
            {"job_id":4,"job_state":"PENDING","state_reason":"Resources","nodes":""},
            {"job_id":5,"job_state":"FAILED","state_reason":"NonZeroExitCode","nodes":"vm","exit_code":3}]}"#;
        let job = |id| job_in_squeue(json, id).unwrap_or_default();
        assert_eq!(job(4).map(|j| (j.describe(), j.finished())), Some(("PENDING (Resources)".into(), false)));
        assert_eq!(job(3).map(|j| j.describe()), Some("RUNNING on vm".into()));
        assert_eq!(job(5).map(|j| (j.describe(), j.finished())), Some(("FAILED (exit 3)".into(), true)));
        assert_eq!(job(6), None, "gone from the queue");
        assert!(job_in_squeue("not json", 1).is_err_and(|e| e.to_string().starts_with("squeue --json")));
    }
}
