//! A campaign's setup: a dataset of commits on a chain in a vLLM checkout, each in its flavour's
//! mock image (`ok`, `aimv2`, `numpy2`, or `pull`: behind a registry that refuses), every agent
//! patch applying but the last commit's. Shared by the campaign tests and the campaign benchmark.

use super::engine::{Setup, setup};
use std::path::Path;
use std::process::Command;

const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --dataset-name sharegpt --num-prompts 5";

/// The image of a flavour for `short`: the mock's, or the one behind port 1 of this machine,
/// where nothing listens (its tag names the commit: the setup removes it at the end).
pub fn image_of(flavour: &str, short: &str) -> String {
    match flavour {
        "pull" => format!("127.0.0.1:1/perftriage-test/vllm:{short}"),
        flavour => format!("perftriage-test/vllm:{flavour}"),
    }
}

fn patch(old: &str, new: &str) -> String {
    format!("--- a/vllm/__init__.py\n+++ b/vllm/__init__.py\n@@ -1 +1 @@\n-{old}\n+{new}\n")
}

/// A setup whose dataset holds one commit per flavour, on a chain in its checkout, each in its
/// flavour's image; every agent patch applies but the last commit's.
pub fn campaign_setup(flavours: &[&str]) -> (Setup, Vec<String>) {
    campaign_setup_with(flavours, "")
}

/// `campaign_setup`, `extra` in the config's `[runs]` (and what follows it: `[[hosts]]`).
pub fn campaign_setup_with(flavours: &[&str], extra: &str) -> (Setup, Vec<String>) {
    let mut s = setup("perftriage-test/vllm:ok", SERVING, extra);
    let dataset = s.root.join("dataset.jsonl");
    let template: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&dataset).unwrap().lines().next().unwrap()).unwrap();
    let (mut rows, mut overrides, mut shorts) = (String::new(), String::new(), Vec::new());
    let mut parent = template["full"].as_str().unwrap().to_string();
    for (i, flavour) in flavours.iter().enumerate() {
        let full = commit(&s.root.join("vllm"), i);
        let short = full[..8].to_string();
        let mut row = template.clone();
        (row["short"], row["full"], row["parent"]) =
            (short.clone().into(), full.clone().into(), parent.into());
        row["item_id"] = format!("vllm_core-{i}").into();
        rows.push_str(&format!("{row}\n"));
        overrides.push_str(&format!("\"{short}\" = \"{}\"\n", image_of(flavour, &short)));
        let applies = i + 1 < flavours.len();
        let old = if applies { "__version__ = '0.9.2.dev0+mock'" } else { "__version__ = 'not this'" };
        let diff = patch(old, "__version__ = '0.9.2.dev0+agent'");
        std::fs::write(s.root.join("patches").join(format!("{short}.patch")), diff).unwrap();
        s.owns(&short);
        (parent, shorts) = (full, [shorts, vec![short]].concat());
    }
    std::fs::write(&dataset, rows).unwrap();
    let config = std::fs::read_to_string(&s.config).unwrap();
    let head = config.split("[runs.image_overrides]").next().unwrap();
    std::fs::write(&s.config, format!("{head}[runs.image_overrides]\n{overrides}")).unwrap();
    (s, shorts)
}

/// A new commit on the checkout's chain; its full hash.
fn commit(repo: &Path, i: usize) -> String {
    let git = |args: &[&str]| {
        let out = Command::new("git").arg("-C").arg(repo).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    std::fs::write(repo.join("CAMPAIGN"), format!("commit {i}\n")).unwrap();
    git(&["add", "-A"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", &format!("campaign {i}")]);
    git(&["rev-parse", "HEAD"])
}
