//! Where a commit's two patches come from: the agent's from its newest run folder
//! (`--trajectories`) or the `[runs] patches` folder, the human's from `git diff parent commit`
//! in the `[runs] vllm_repo` checkout.

use super::diff::{self, DiffError, DiffStats};
use super::runs::AgentRuns;
use crate::dataset::{Commit, Variant};
use crate::ids::Short;
use crate::runs::RunConfig;
use std::path::Path;

/// A patch and what it changes.
#[derive(Debug, Clone, PartialEq)]
pub struct Patch {
    pub variant: Variant,
    /// The file it was read from, or the git command that made it.
    pub source: String,
    pub text: String,
    pub stats: DiffStats,
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("no agent patch for {short}: no agent run under --trajectories names it, and {why}")]
    NoAgentPatch { short: Short, why: crate::runs::PlanError },
    #[error("no human patch for {0}: set [runs] vllm_repo to a vLLM checkout")]
    NoRepo(Short),
    #[error("{0} has no parent commit in the dataset")]
    NoParent(Short),
    #[error("`{0}` is not a hex commit id; refusing to pass it to git")]
    NotACommit(String),
    #[error("cannot run git in {repo}: {why}")]
    GitSpawn { repo: String, why: String },
    #[error("git diff {parent} {commit} in {repo}: {why}")]
    GitFailed { parent: String, commit: String, repo: String, why: String },
    #[error("{path}: cannot read: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path}: {source}")]
    Diff { path: String, source: DiffError },
    #[error("only the agent and the human have patches, not the {0}")]
    NoPatchOf(&'static str),
}

pub fn patch(
    commit: &Commit,
    variant: Variant,
    runs: &AgentRuns,
    config: &RunConfig,
) -> Result<Patch, SourceError> {
    match variant {
        Variant::Agent => agent_patch(commit, runs, config),
        Variant::Human => human_patch(commit, config.vllm_repo.as_deref()),
        Variant::Baseline => Err(SourceError::NoPatchOf("baseline")),
    }
}

fn agent_patch(commit: &Commit, runs: &AgentRuns, config: &RunConfig) -> Result<Patch, SourceError> {
    let from_run = runs.newest(&commit.short).and_then(|run| run.patch());
    let path = match from_run {
        Some(path) => path,
        None => crate::runs::find_patch(commit, config)
            .map_err(|why| SourceError::NoAgentPatch { short: commit.short.clone(), why })?,
    };
    let read = std::fs::read(&path);
    let shown = path.display().to_string();
    let bytes = read.map_err(|source| SourceError::Read { path: shown.clone(), source })?;
    read_patch(Variant::Agent, shown, String::from_utf8_lossy(&bytes).into_owned())
}

fn human_patch(commit: &Commit, repo: Option<&Path>) -> Result<Patch, SourceError> {
    let repo = repo.ok_or_else(|| SourceError::NoRepo(commit.short.clone()))?;
    let parent = commit.parent.as_deref().ok_or_else(|| SourceError::NoParent(commit.short.clone()))?;
    let text = git_diff(repo, parent, &commit.full)?;
    read_patch(Variant::Human, format!("git -C {} diff {parent} {}", repo.display(), commit.full), text)
}

fn read_patch(variant: Variant, source: String, text: String) -> Result<Patch, SourceError> {
    let stats = diff::parse(&text).map_err(|e| SourceError::Diff { path: source.clone(), source: e })?;
    Ok(Patch { variant, source, text, stats })
}

/// `git diff parent commit`, both checked to be commit ids and given after `--end-of-options`.
fn git_diff(repo: &Path, parent: &str, commit: &str) -> Result<String, SourceError> {
    let (parent, commit) = (commit_id(parent)?, commit_id(commit)?);
    let shown = || repo.display().to_string();
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["diff", "--no-color", "--no-ext-diff", "--end-of-options", parent, commit])
        .output()
        .map_err(|e| SourceError::GitSpawn { repo: shown(), why: e.to_string() })?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        let (parent, commit) = (parent.to_string(), commit.to_string());
        return Err(SourceError::GitFailed { parent, commit, repo: shown(), why });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn commit_id(text: &str) -> Result<&str, SourceError> {
    if crate::dataset::is_commit_id(text) { Ok(text) } else { Err(SourceError::NotACommit(text.into())) }
}
