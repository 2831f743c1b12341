//! A run as a Slurm batch job: the script `sbatch` gets. It asks for the commit's GPUs
//! (`--gres=gpu:N`, or `--gpus=N`), a time limit from the run's own timeouts, writes its output
//! into the shared directory the nodes see, and its payload is perftriage's headless `run` on the
//! allocated node (`exec`, so `scancel`'s SIGTERM reaches the runner, which removes its container).

use super::{GpuRequest, RunPlan};
use serde::Deserialize;
use std::path::PathBuf;

/// `[slurm]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SlurmConfig {
    pub partition: Option<String>,
    pub account: Option<String>,
    /// A directory every node sees: each run's output, workspace and result under `<dir>/<run id>`.
    pub shared_dir: Option<PathBuf>,
    /// perftriage on the nodes (default: this binary's path, for a shared install).
    pub perftriage: Option<PathBuf>,
    /// `gres` (`--gres=gpu:N`, the default) or `gpus` (`--gpus=N`).
    pub gpu_flag: Option<String>,
    /// The board's runs become Slurm jobs (otherwise `[slurm]` serves `perftriage slurm` only).
    pub board: bool,
}

/// Minutes beyond the run's own timeouts for pulling and starting the container.
const SETUP_MINUTES: u64 = 15;

/// A Slurm word from the config: no spaces, quotes or shell characters.
fn plain(what: &str, value: &str) -> Result<String, String> {
    let ok = !value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c));
    ok.then(|| value.to_string()).ok_or(format!("[slurm] {what} `{value}`: letters, digits, - _ . : only"))
}

fn gpu_line(config: &SlurmConfig, gpus: &GpuRequest, commit_gpus: u32) -> Result<Option<String>, String> {
    let n = match gpus {
        GpuRequest::None => return Ok(None),
        GpuRequest::All => commit_gpus.max(1),
        GpuRequest::Count(n) => *n,
    };
    match config.gpu_flag.as_deref().unwrap_or("gres") {
        "gres" => Ok(Some(format!("#SBATCH --gres=gpu:{n}"))),
        "gpus" => Ok(Some(format!("#SBATCH --gpus={n}"))),
        other => Err(format!("[slurm] gpu_flag `{other}`: gres or gpus")),
    }
}

/// The batch script for `plan`; `config_file`: the config the payload reads on the node.
pub fn job_script(
    config: &SlurmConfig,
    plan: &RunPlan,
    commit_gpus: u32,
    config_file: Option<&std::path::Path>,
) -> Result<String, String> {
    let shared = config.shared_dir.as_ref().ok_or("set [slurm] shared_dir: a directory the nodes see")?;
    let dir = shared.join(&plan.run_id);
    let binary =
        config.perftriage.clone().or_else(|| std::env::current_exe().ok()).unwrap_or("perftriage".into());
    let minutes = (plan.ready_timeout_s + plan.run_timeout_s).div_ceil(60) + SETUP_MINUTES;
    let mut lines = vec![
        "#!/bin/bash".to_string(),
        format!("#SBATCH --job-name=perftriage-{}-{}", plan.short, plan.variant.name()),
        format!("#SBATCH --time={minutes}"),
        format!("#SBATCH --output={}/slurm-%j.out", dir.display()),
        format!("#SBATCH --chdir={}", dir.display()),
    ];
    if let Some(p) = &config.partition {
        lines.push(format!("#SBATCH --partition={}", plain("partition", p)?));
    }
    if let Some(a) = &config.account {
        lines.push(format!("#SBATCH --account={}", plain("account", a)?));
    }
    lines.extend(gpu_line(config, &plan.container.gpus, commit_gpus)?);
    lines.push(
        "# The payload: perftriage's own headless run (same runner, redaction, result, cleanup).".into(),
    );
    let config_arg = config_file.map(|c| format!(" --config '{}'", c.display())).unwrap_or_default();
    lines.push(format!(
        "exec '{}'{config_arg} --workspace '{}/ws' run {} --variant {} --json",
        binary.display(),
        dir.display(),
        plan.short,
        plan.variant.name()
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
pub fn job_in_squeue(json: &str, id: u64) -> Result<Option<SlurmJobState>, String> {
    #[derive(Deserialize)]
    struct Listing {
        jobs: Vec<serde_json::Value>,
    }
    let listing: Listing = serde_json::from_str(json).map_err(|e| format!("squeue --json: {e}"))?;
    let found = listing.jobs.into_iter().find(|j| j["job_id"].as_u64() == Some(id));
    found.map(|j| serde_json::from_value(j).map_err(|e| format!("squeue --json, job {id}: {e}"))).transpose()
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
        assert!(job_in_squeue("not json", 1).is_err_and(|e| e.starts_with("squeue --json")));
    }
}
