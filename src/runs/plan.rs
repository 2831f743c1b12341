//! From a commit, a variant and the config to a complete run plan. Every command is an argv
//! list; dataset fields are never pasted into a shell string.

use super::rewrite::benchmark_argv;
use super::{ContainerSpec, GpuRequest, LABEL_COMMIT, LABEL_RUN, LABEL_VARIANT, LABEL_WORKSPACE, RunId};
use crate::dataset::{BenchKind, Commit, ImageTemplates, Variant, Workload};
use crate::ids::{ImageRef, Short};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// Server argv template; `{model}` is the only variable.
    pub server: String,
    /// `auto` (the commit's GPU count), `all`, `none`, or a number.
    pub gpus: String,
    #[serde(deserialize_with = "crate::checked::positive")]
    pub shm_gb: u32,
    /// Host directory mounted at /root/.cache/huggingface.
    pub hf_cache: Option<PathBuf>,
    #[serde(deserialize_with = "crate::checked::positive")]
    pub ready_timeout_s: u64,
    #[serde(deserialize_with = "crate::checked::positive")]
    pub run_timeout_s: u64,
    /// A vLLM git checkout; each run's `benchmarks/` comes from it at the run's commit.
    pub vllm_repo: Option<PathBuf>,
    /// Agent patches: `{short}.patch`, `{short}.diff` or `<item_id>/model_patch.diff`.
    pub patches: Option<PathBuf>,
    /// A ShareGPT-style dataset path inside the container; without it serving runs use random prompts.
    pub dataset_path: Option<String>,
    /// Runs at a time on this host.
    #[serde(deserialize_with = "crate::checked::positive")]
    pub concurrency: usize,
    /// Per-commit image overrides: short → image, for every variant (the agent's patch goes on the
    /// image its baseline runs in).
    pub image_overrides: HashMap<String, crate::checked::CheckedImage>,
    /// What a pull is assumed to need on disk when its size is not known (ISO-Bench images: 17–22 GB).
    #[serde(deserialize_with = "crate::checked::gib")]
    pub pull_estimate_gb: f64,
    /// Free space a pull, commit or build must leave under the Docker data root.
    #[serde(deserialize_with = "crate::checked::gib")]
    pub disk_reserve_gb: f64,
    /// Times the benchmark runs against one server start (`--repeat`, a number or `auto`); more
    /// than one gives each variant a mean with a 95 % confidence interval.
    pub repeat: super::Repeat,
    /// Benchmark runs before the counted ones of a `--repeat auto` run (recorded, not counted).
    #[serde(deserialize_with = "crate::checked::at_most_100")]
    pub warmup: u32,
}

impl RunConfig {
    /// Free disk a pull of an image of unknown size needs: its estimate and the reserve.
    pub fn pull_needs_bytes(&self) -> u64 {
        bytes_of_gib(self.pull_estimate_gb + self.disk_reserve_gb)
    }

    /// Free disk a pull, commit or build must leave.
    pub fn reserve_bytes(&self) -> u64 {
        bytes_of_gib(self.disk_reserve_gb)
    }
}

/// Bytes in `gib` GiB (a negative value means none).
fn bytes_of_gib(gib: f64) -> u64 {
    // Whole bytes well inside u64.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let bytes = (gib.max(0.0) * 1024.0 * 1024.0 * 1024.0) as u64;
    bytes
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            server: "python3 -m vllm.entrypoints.openai.api_server --model {model} --port 8000 --max-model-len 4096 --disable-log-requests".into(),
            gpus: "auto".into(),
            shm_gb: 16,
            hf_cache: None,
            ready_timeout_s: 600,
            run_timeout_s: 3600,
            vllm_repo: None,
            patches: None,
            dataset_path: None,
            concurrency: 1,
            image_overrides: HashMap::new(),
            pull_estimate_gb: 22.0,
            disk_reserve_gb: 5.0,
            repeat: super::Repeat::Times(1),
            warmup: 1,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunPlan {
    pub run_id: RunId,
    pub short: Short,
    pub full: String,
    pub parent: Option<String>,
    pub variant: Variant,
    pub kind: BenchKind,
    pub model: String,
    pub image: ImageRef,
    pub container: ContainerSpec,
    pub server_argv: Option<Vec<String>>,
    pub bench_argv: Vec<String>,
    pub bench_env: Vec<String>,
    /// The commit whose `benchmarks/` the run uses (the PR commit for human, the parent otherwise).
    pub scripts_commit: String,
    pub patch: Option<PathBuf>,
    pub ready_timeout_s: u64,
    pub run_timeout_s: u64,
    /// The command as finally run, for the result file.
    pub final_command: String,
    /// Fix recipes applied to this variant's environment (recorded in the triage state).
    pub fixes: Vec<String>,
    /// The image a fixed image stands in for: run in it, unfixed, if the fixed one is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unfixed: Option<ImageRef>,
    /// Free disk a pull of the image needs (estimate and reserve).
    pub pull_needs_bytes: u64,
    /// Benchmark runs against the one server start (with `auto`: the fewest).
    pub repeat: u32,
    /// `--repeat auto`: more runs while the pair's interval crosses a verdict boundary.
    pub auto: Option<super::AutoRepeat>,
    /// Benchmark runs before the counted ones, recorded but not counted.
    pub warmup: u32,
    /// What the run measures: the same for all three variants of a commit by construction
    /// (nothing in it depends on the variant), recorded in its result.
    pub workload: Workload,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum PlanError {
    #[error("{0} has no benchmark command in the dataset")]
    NoCommand(Short),
    #[error("{0} has no parent commit, so there is no baseline image")]
    NoParent(Short),
    #[error("no agent patch for {short} in {dir} ({tried})")]
    NoPatch { short: Short, dir: String, tried: String },
    #[error("the agent patch {patch} leads out of the patch folder {dir}; refusing to read it")]
    PatchOutside { patch: String, dir: String },
    #[error("no patches directory configured: set [runs] patches = \"DIR\" in the config")]
    NoPatchDir,
    #[error("config [runs] gpus = `{0}`: use auto, all, none or a number")]
    BadGpus(String),
}

/// What a launch asks for beyond its commit and variant: the fixed image a fix made and the fixes
/// that made it (the triage history's), and its repeats.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchAsk {
    pub fixed: Option<(ImageRef, Vec<String>)>,
    pub repeat: super::RepeatPlan,
}

/// Where plans come from: the config, the image templates, the workspace.
#[derive(Debug, Clone, Copy)]
pub struct Planning<'a> {
    pub config: &'a RunConfig,
    pub images: &'a ImageTemplates,
    pub workspace: &'a Path,
}

/// The one plan of a launch — the board's runs, `perftriage run`, the re-run after `fix apply`
/// (and what its launch record keeps): the config's plan of the variant, in its fixed image where
/// a fix made one, repeated as asked.
pub fn launch_plan(
    (commit, variant): (&Commit, Variant),
    run_id: &RunId,
    on: Planning<'_>,
    ask: LaunchAsk,
) -> Result<RunPlan, PlanError> {
    let mut plan = plan(commit, variant, on.config, on.images, on.workspace, run_id)?;
    plan.repeating(ask.repeat, on.config.warmup);
    Ok(match ask.fixed {
        Some((image, fixes)) => plan.with_fixed_image(image, fixes),
        None => plan,
    })
}

pub fn plan(
    commit: &Commit,
    variant: Variant,
    config: &RunConfig,
    images: &ImageTemplates,
    workspace: &Path,
    run_id: &RunId,
) -> Result<RunPlan, PlanError> {
    let command =
        commit.perf_command.effective().ok_or_else(|| PlanError::NoCommand(commit.short.clone()))?;
    let kind = commit.kind();
    let no_parent = || PlanError::NoParent(commit.short.clone());
    let image = match config.image_overrides.get(commit.short.as_str()) {
        Some(fixed) => fixed.reference().clone(),
        None => images.image_for(commit, variant).ok_or_else(no_parent)?,
    };
    let scripts_commit = match variant {
        Variant::Human => commit.full.clone(),
        _ => commit.parent.clone().ok_or_else(no_parent)?,
    };
    let patch = if variant == Variant::Agent { Some(find_patch(commit, config)?) } else { None };
    let model = model_of(command).or(commit.model.clone()).unwrap_or_else(|| "facebook/opt-125m".into());
    let (bench_argv, bench_env) = benchmark_argv(command, kind, config.dataset_path.as_deref());
    let server_argv = (kind == BenchKind::Serving)
        .then(|| config.server.split_whitespace().map(|w| w.replace("{model}", &model)).collect::<Vec<_>>());
    let final_command = match &server_argv {
        Some(server) => format!("{}  &&  {}", server.join(" "), bench_argv.join(" ")),
        None => bench_argv.join(" "),
    };
    let target = Target { commit, variant, config, workspace, run_id };
    let container = target.container(&image, server_argv.is_some())?;
    let workload = run_workload(&bench_argv, &model, &container.gpus);
    Ok(RunPlan {
        run_id: run_id.clone(),
        short: commit.short.clone(),
        full: commit.full.clone(),
        parent: commit.parent.clone(),
        variant,
        kind,
        model,
        image,
        container,
        server_argv,
        bench_argv,
        bench_env,
        scripts_commit,
        patch,
        ready_timeout_s: config.ready_timeout_s,
        run_timeout_s: config.run_timeout_s,
        final_command,
        fixes: Vec::new(),
        unfixed: None,
        pull_needs_bytes: config.pull_needs_bytes(),
        repeat: 1,
        auto: None,
        warmup: 0,
        workload,
    })
}

/// The workload of a run of ours: the rewritten command, the model, the GPUs it asks for.
fn run_workload(bench_argv: &[String], model: &str, gpus: &super::GpuRequest) -> Workload {
    let mut w = Workload::from_command(&bench_argv.join(" "));
    let mut ours = Workload::default();
    ours.set("model", model);
    ours.set("harness", "perftriage");
    ours.set("rewrite", super::rewrite::RULES);
    ours.set("gpu", super::describe::gpu_words(gpus));
    w.fill_from(&ours);
    w
}

/// What a run's container is made for.
struct Target<'a> {
    commit: &'a Commit,
    variant: Variant,
    config: &'a RunConfig,
    workspace: &'a Path,
    run_id: &'a RunId,
}

impl Target<'_> {
    fn container(&self, image: &str, serving: bool) -> Result<ContainerSpec, PlanError> {
        let (commit, config) = (self.commit, self.config);
        Ok(ContainerSpec {
            name: container_name(&commit.short, self.variant, self.run_id),
            image: image.into(),
            // The container only stays up; server and benchmark run as execs so their output is kept apart.
            cmd: vec!["sleep".into(), "2000000".into()],
            env: token_env(),
            labels: self.labels(),
            publish: serving.then_some(8000),
            gpus: gpus(&config.gpus, commit.gpu_count())?,
            shm_bytes: i64::from(config.shm_gb) << 30,
            binds: config
                .hf_cache
                .iter()
                .map(|p| format!("{}:/root/.cache/huggingface", p.display()))
                .collect(),
            memory_bytes: None,
        })
    }

    fn labels(&self) -> HashMap<String, String> {
        HashMap::from([
            (LABEL_COMMIT.to_string(), self.commit.short.to_string()),
            (LABEL_VARIANT.to_string(), self.variant.name().to_string()),
            (LABEL_RUN.to_string(), self.run_id.to_string()),
            (LABEL_WORKSPACE.to_string(), self.workspace.display().to_string()),
        ])
    }
}

impl RunPlan {
    /// Runs against the one server start as decided: a count, or `auto`'s fewest with its
    /// question and `warmup` runs before them.
    pub fn repeating(&mut self, how: super::RepeatPlan, warmup: u32) {
        (self.repeat, self.auto, self.warmup) = match how {
            super::RepeatPlan::Times(n) => (n.max(1), None, 0),
            super::RepeatPlan::Auto(question) => (super::auto::AUTO_MIN, Some(question), warmup),
        };
    }

    /// `--repeat` for a payload that runs this plan again; `None` for a single run.
    pub fn repeat_arg(&self) -> Option<super::Repeat> {
        match &self.auto {
            Some(question) => Some(super::Repeat::Auto { max: question.max }),
            None => (self.repeat > 1).then_some(super::Repeat::Times(self.repeat)),
        }
    }
}

/// The name a run's container gets: `perftriage-{short}-{variant}-{run}`.
pub fn container_name(short: &str, variant: Variant, run_id: &RunId) -> String {
    format!("perftriage-{short}-{}-{run_id}", variant.name())
}

fn model_of(command: &str) -> Option<String> {
    let words: Vec<&str> = command.split_whitespace().collect();
    words.iter().enumerate().find_map(|(i, w)| match w.strip_prefix("--model=") {
        Some(m) => Some(m.trim_matches(['"', '\'']).to_string()),
        None if *w == "--model" => words.get(i + 1).map(|m| m.trim_matches(['"', '\'']).to_string()),
        None => None,
    })
}

/// The operator's HF token, passed through under both names the images read.
fn token_env() -> Vec<String> {
    let token = std::env::var("HF_TOKEN").or_else(|_| std::env::var("HUGGING_FACE_HUB_TOKEN")).ok();
    token.map(|t| vec![format!("HF_TOKEN={t}"), format!("HUGGING_FACE_HUB_TOKEN={t}")]).unwrap_or_default()
}

fn gpus(setting: &str, commit_gpus: u32) -> Result<GpuRequest, PlanError> {
    match setting {
        "auto" => Ok(GpuRequest::Count(commit_gpus.max(1))),
        "all" => Ok(GpuRequest::All),
        "none" | "0" => Ok(GpuRequest::None),
        n => n.parse().map(GpuRequest::Count).map_err(|_| PlanError::BadGpus(n.to_string())),
    }
}

pub fn find_patch(commit: &Commit, config: &RunConfig) -> Result<PathBuf, PlanError> {
    let dir = config.patches.as_ref().ok_or(PlanError::NoPatchDir)?;
    let mut tried =
        vec![dir.join(format!("{}.patch", commit.short)), dir.join(format!("{}.diff", commit.short))];
    if let Some(item) = commit.item_id.as_deref().filter(|i| crate::dataset::is_plain_name(i)) {
        tried.push(dir.join(item).join("model_patch.diff"));
    }
    match tried.iter().find(|p| p.is_file()) {
        Some(found) => inside(dir, found),
        None => Err(PlanError::NoPatch {
            short: commit.short.clone(),
            dir: dir.display().to_string(),
            tried: tried
                .iter()
                .filter_map(|p| p.file_name()?.to_str().map(str::to_string))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// The patch, if it really lies in the patch folder: a link that leads out of it is refused.
fn inside(dir: &Path, patch: &Path) -> Result<PathBuf, PlanError> {
    let outside =
        || PlanError::PatchOutside { patch: patch.display().to_string(), dir: dir.display().to_string() };
    let (dir, real) =
        (dir.canonicalize().map_err(|_| outside())?, patch.canonicalize().map_err(|_| outside())?);
    if real.starts_with(&dir) { Ok(real) } else { Err(outside()) }
}
