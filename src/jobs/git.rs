//! The operator's vLLM checkout, read with git. Revisions come from data: each is checked to be
//! a hex commit id and passed after `--end-of-options`, so nothing in a dataset row becomes a git
//! option (`--output=…` would write a file anywhere).

use std::path::Path;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum GitError {
    #[error("`{0}` is not a hex commit id; refusing to pass it to git")]
    NotACommit(String),
    #[error("cannot run git in {repo}: {why}")]
    Spawn { repo: String, why: String },
    #[error("git {what} in {repo}: {why}")]
    Failed { what: String, repo: String, why: String },
}

/// A commit id as data may give it: 7 to 40 lower-case hex digits.
fn checked(commit: &str) -> Result<&str, GitError> {
    if crate::dataset::is_commit_id(commit) { Ok(commit) } else { Err(GitError::NotACommit(commit.into())) }
}

async fn git(repo: &Path, what: &str, args: &[&str]) -> Result<Vec<u8>, GitError> {
    let out = tokio::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .await
        .map_err(|e| GitError::Spawn { repo: repo.display().to_string(), why: e.to_string() })?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(GitError::Failed { what: what.into(), repo: repo.display().to_string(), why });
    }
    Ok(out.stdout)
}

/// `git archive` of `path` at `commit`, every entry under `prefix`, as a tar.
pub async fn archive(repo: &Path, commit: &str, path: &str, prefix: &str) -> Result<Vec<u8>, GitError> {
    let commit = checked(commit)?;
    let prefix = format!("--prefix={prefix}");
    let args = ["archive", "--format=tar", &prefix, "--end-of-options", commit, path];
    git(repo, &format!("archive {commit} {path}"), &args).await
}

/// The file `path` as it is at `commit`.
pub async fn show(repo: &Path, commit: &str, path: &str) -> Result<Vec<u8>, GitError> {
    let spec = format!("{}:{path}", checked(commit)?);
    git(repo, &format!("show {spec}"), &["show", "--end-of-options", &spec]).await
}
