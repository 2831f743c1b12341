//! A commit's build job from the settings both the command and the board hold: the human image
//! it starts from, the image baseline runs use as its target, the knobs for this commit and this
//! machine, the disk it needs, and what the confirm says (steps, expected time, disk).

use super::build::{BuildJob, BuildReport};
use crate::builds::history::{self, BuildRecord};
use crate::builds::{BuildConfig, BuildPlan, KnobSet, Machine};
use crate::dataset::{Commit, ImageTemplates, Variant};
use crate::ids::{ImageRef, Short};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a build is planned from.
#[derive(Debug, Clone)]
pub struct BuildSettings {
    pub build: BuildConfig,
    pub images: ImageTemplates,
    /// `[runs] image_overrides`: a commit's human image where the template does not name it.
    pub overrides: HashMap<String, String>,
    pub checkout: Option<PathBuf>,
    pub workspace: PathBuf,
    /// Disk left free after the build (`[runs] disk_reserve_gb`).
    pub reserve_bytes: u64,
}

impl BuildSettings {
    pub fn from_config(
        config: &crate::config::Config,
        images: &ImageTemplates,
        workspace: &Path,
    ) -> BuildSettings {
        BuildSettings::new(&config.build, &config.runs, images, workspace)
    }

    pub fn new(
        build: &BuildConfig,
        runs: &crate::runs::RunConfig,
        images: &ImageTemplates,
        workspace: &Path,
    ) -> BuildSettings {
        BuildSettings {
            build: build.clone(),
            images: images.clone(),
            overrides: runs
                .image_overrides
                .iter()
                .map(|(k, v)| (k.clone(), v.reference().to_string()))
                .collect(),
            checkout: runs.vllm_repo.clone(),
            workspace: workspace.to_path_buf(),
            reserve_bytes: runs.reserve_bytes(),
        }
    }

    /// The build of `commit` with `changes` over its knobs, or why it cannot be built.
    pub fn job(
        &self,
        commit: &Commit,
        changes: &KnobSet,
        machine: Machine,
    ) -> Result<BuildJob, BuildJobError> {
        let parent = commit.parent.clone().ok_or_else(|| BuildJobError::NoParent(commit.short.clone()))?;
        let checkout = self.checkout.clone().ok_or(BuildJobError::NoCheckout)?;
        let from = match self.overrides.get(commit.short.as_str()) {
            Some(image) => ImageRef::from(image),
            None => self.images.image_for(commit, Variant::Human).ok_or(BuildJobError::NoImage("human"))?,
        };
        let target =
            self.images.image_for(commit, Variant::Baseline).ok_or(BuildJobError::NoImage("baseline"))?;
        let parent12 = parent.get(..12).unwrap_or(&parent);
        let knobs = self.build.knobs_for(&commit.short, parent12, changes, machine);
        let (records, _) = history::read(&self.workspace);
        let expected = history::expected_size(&records, crate::builds::gib_bytes(self.build.expected_gb));
        Ok(BuildJob {
            plan: BuildPlan::new(&commit.short, &parent, &from, &target, &self.build.dir, knobs),
            checkout,
            workspace: self.workspace.display().to_string(),
            stall_s: self.build.stall_s,
            memory_bytes: self.build.memory_limit(),
            needs_bytes: expected + self.reserve_bytes,
            machine_memory: machine.memory_bytes,
        })
    }

    /// What the confirm and `build --plan` show: the steps, then jobs, time and disk.
    pub fn describe(&self, job: &BuildJob, changes: &KnobSet, machine: Machine) -> Vec<String> {
        let mut lines =
            vec![format!("build {} (parent {}) → {}", job.plan.short, job.plan.parent, job.plan.image)];
        lines.extend(job.plan.describe(&job.checkout.display().to_string()));
        lines.push(self.jobs_line(job, changes, machine));
        let (records, _) = history::read(&self.workspace);
        lines.push(match history::expected_duration(&records) {
            Some((s, n)) => format!(
                "expected time: {} (median of {n} build(s) on this machine)",
                crate::builds::duration(s)
            ),
            None => "expected time: unknown (no build on this machine yet)".into(),
        });
        lines.push(format!(
            "disk: needs {} free under the Docker data root (image growth + reserve); checked before it starts",
            crate::builds::human_bytes(job.needs_bytes)
        ));
        lines
    }

    fn jobs_line(&self, job: &BuildJob, changes: &KnobSet, machine: Machine) -> String {
        let k = &job.plan.knobs;
        let origin = if changes.max_jobs.is_some() || self.build.max_jobs.is_some() {
            "as set".to_string()
        } else {
            format!(
                "from the daemon: {} at {} GiB a job, {} CPUs",
                crate::builds::human_bytes(machine.memory_bytes),
                self.build.gib_per_job,
                machine.cpus
            )
        };
        format!(
            "MAX_JOBS={} ({origin}), NVCC_THREADS={}, timeout {}, stall marked after {}",
            k.max_jobs,
            k.nvcc_threads,
            crate::builds::duration(k.timeout_s as f64),
            crate::builds::duration(self.build.stall_s as f64)
        )
    }
}

/// The record of a finished build, for the history.
pub fn record(job: &BuildJob, report: &super::build::BuildReport) -> BuildRecord {
    BuildRecord {
        short: job.plan.short.clone(),
        parent: job.plan.parent.clone(),
        image: job.plan.image.clone(),
        outcome: report
            .outcome
            .as_ref()
            .map_or_else(|f| format!("{:?}", f.kind).to_lowercase(), |_| "built".into()),
        duration_s: report.duration_s,
        max_jobs: job.plan.knobs.max_jobs,
        peak_bytes: report.peak_bytes,
        size_bytes: report.size_bytes,
        at: crate::session::now_rfc3339(),
    }
}

/// The build host's size: the daemon's, else (no daemon, or it does not say) this machine's.
pub async fn machine_of(engine: Option<&crate::docker::Engine>) -> Machine {
    match engine {
        Some(engine) => engine.machine().await.unwrap_or_else(local_machine),
        None => local_machine(),
    }
}

/// This machine, when no daemon says: its CPUs and `/proc/meminfo`'s total.
pub fn local_machine() -> Machine {
    let cpus = std::thread::available_parallelism().map_or(1, |n| u32::try_from(n.get()).unwrap_or(1));
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let kib = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or(0);
    Machine { cpus, memory_bytes: kib * 1024 }
}

/// `<workspace>/builds/<short>-<time>.log`.
pub fn log_path(job: &BuildJob) -> PathBuf {
    Path::new(&job.workspace).join("builds").join(format!(
        "{}-{}.log",
        job.plan.short,
        crate::session::now_compact()
    ))
}

/// The triage history's entry for a finished build.
pub fn change(
    job: &BuildJob,
    report: &BuildReport,
    record: &BuildRecord,
    log: Option<String>,
) -> crate::triage::Change {
    crate::triage::Change::Built {
        outcome: record.outcome.clone(),
        image: report.outcome.as_ref().ok().map(ImageRef::from),
        duration_s: crate::builds::whole_secs(report.duration_s),
        max_jobs: job.plan.knobs.max_jobs,
        log,
    }
}

/// How it went, in words: the image, or the failure with its evidence and what to change.
pub fn outcome_lines(job: &BuildJob, report: &BuildReport) -> Vec<String> {
    let took = crate::builds::duration(report.duration_s);
    let peak = crate::builds::human_bytes(report.peak_bytes);
    match &report.outcome {
        Ok(image) => vec![format!(
            "built {image} in {took} (peak memory {peak}, {} warnings); `import {}` works",
            report.warnings,
            job.plan.knobs.imports.join(", ")
        )],
        Err(f) => {
            let at = f.at.as_deref().map(|a| format!(" at {a}")).unwrap_or_default();
            let mut lines = vec![format!("build FAILED after {took}: {}{at}: {}", f.kind.name(), f.evidence)];
            if let Some((jobs, why)) = &report.suggestion {
                lines.push(format!("suggestion: {why}"));
                lines.push(format!(
                    "re-run: perftriage build {} --max-jobs {jobs} (or b on the board)",
                    job.plan.short
                ));
            }
            lines
        }
    }
}

/// Why a baseline build cannot be planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildJobError {
    #[error("{0} has no parent commit to build")]
    NoParent(Short),
    #[error("a build archives the parent from the vLLM checkout: set [runs] vllm_repo")]
    NoCheckout,
    #[error("no {0} image name")]
    NoImage(&'static str),
}
