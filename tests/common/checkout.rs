//! A vLLM-like checkout with one PR commit (dates fixed, so its hashes are the same every run),
//! a one-commit dataset naming it and a config pointing `[runs] vllm_repo` at it.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

pub struct Checkout {
    pub repo: tempfile::TempDir,
    pub dir: tempfile::TempDir,
    pub parent: String,
    pub full: String,
    pub config: PathBuf,
}

pub fn git(repo: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .env("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
        .env("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

impl Checkout {
    /// The PR changes `a.py` (+2 −1) and `csrc/k.cu` (+1 −1); `extra` goes into the config.
    pub fn new(extra: &str) -> Checkout {
        let repo = tempfile::tempdir().unwrap();
        let r = repo.path();
        git(r, &["init", "-q", "-b", "main"]);
        std::fs::create_dir_all(r.join("csrc")).unwrap();
        std::fs::write(r.join("a.py"), "one\ntwo\nthree\n").unwrap();
        std::fs::write(r.join("csrc/k.cu"), "int x;\n").unwrap();
        git(r, &["add", "."]);
        git(r, &["commit", "-qm", "parent"]);
        let parent = git(r, &["rev-parse", "HEAD"]);
        std::fs::write(r.join("a.py"), "one\n2\nthree\nfour\n").unwrap();
        std::fs::write(r.join("csrc/k.cu"), "int y;\n").unwrap();
        git(r, &["commit", "-qam", "the PR"]);
        let full = git(r, &["rev-parse", "HEAD"]);
        // The embedded row of one commit, with this checkout's hashes.
        let row = perftriage::dataset::EMBEDDED.lines().next().unwrap();
        let mut row: serde_json::Value = serde_json::from_str(row).unwrap();
        (row["short"], row["full"], row["parent"]) =
            (full[..8].into(), full.clone().into(), parent.clone().into());
        let dir = tempfile::tempdir().unwrap();
        let dataset = dir.path().join("dataset.jsonl");
        std::fs::write(&dataset, format!("{row}\n")).unwrap();
        let config = dir.path().join("config.toml");
        std::fs::write(&config, format!("dataset = {dataset:?}\n{extra}[runs]\nvllm_repo = {r:?}\n"))
            .unwrap();
        Checkout { repo, dir, parent, full, config }
    }

    pub fn short(&self) -> &str {
        &self.full[..8]
    }

    /// An agent-run folder of this commit under `root`: its summary names the PR commit.
    pub fn agent_run(&self, root: &Path, patch: &str) -> PathBuf {
        let run = root.join(self.short());
        std::fs::create_dir_all(&run).unwrap();
        let summary = format!(
            r#"{{"meta": {{"agent": "trae", "model": "gpt-5", "model_full": "gpt-5-2025-08-07"}}, "commits": {{"human": "{}"}}, "agent": {{"status": "success", "duration_s": 5936.6}}}}"#,
            self.full
        );
        std::fs::write(run.join("run_summary.json"), summary).unwrap();
        std::fs::write(run.join("model_patch.diff"), patch).unwrap();
        run
    }
}
