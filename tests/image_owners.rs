//! A fixed image belongs to the workspace that made it (issue 57 item 6): two workspaces fixing one
//! commit's variant commit two images under two tags, neither retagging nor removing the other's;
//! each image names its workspace in a label; `image list` says whose each is and `image rm` refuses
//! another workspace's image, saying whose and which of its commits run in it. Real engine, mock
//! vLLM images.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::engine::{Setup, docker, ready, setup, text};
use std::process::Output;

const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --num-prompts 5";

/// `perftriage ARGS` on the setup's commits in workspace `ws` (a folder of the setup's root).
fn in_workspace(s: &Setup, ws: &str, args: &[&str]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"));
    command.arg("--config").arg(&s.config).arg("--workspace").arg(s.root.join(ws)).args(args);
    command.output().unwrap()
}

/// The aimv2 commit's baseline fixed with its image committed in workspace `ws`; the fixed tag.
fn fixed_in(s: &Setup, ws: &str) -> String {
    let args =
        ["fix", "apply", &s.short, "--variant", "baseline", "--recipe", "aimv2_exist_ok", "--commit-image"];
    let out = in_workspace(s, ws, &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let words = String::from_utf8_lossy(&out.stdout).into_owned();
    let tag = words.split_whitespace().find(|w| w.starts_with("perftriage-fixed:")).map(String::from);
    tag.unwrap_or_else(|| panic!("no fixed tag in: {}", text(&out)))
}

fn image_id(tag: &str) -> String {
    docker(&["image", "inspect", "-f", "{{.Id}}", tag])
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn two_workspaces_fixing_one_parent_keep_two_images_each_labelled_with_its_workspace() {
    let Some(_ready) = ready() else { return };
    let s = setup("perftriage-test/vllm:aimv2", SERVING, "");
    let first = fixed_in(&s, "ws");
    let first_id = image_id(&first);
    let second = fixed_in(&s, "ws-b");
    assert_ne!(first, second, "one tag per workspace");
    assert_eq!(image_id(&first), first_id, "the first workspace's tag still names its image");
    for (tag, ws) in [(&first, "ws"), (&second, "ws-b")] {
        let label =
            docker(&["image", "inspect", "-f", "{{index .Config.Labels \"perftriage.fixed-in\"}}", tag]);
        assert_eq!(label, s.root.join(ws).display().to_string());
    }
    assert_eq!(
        first,
        common::engine::fixed_tag(&s, perftriage::dataset::Variant::Baseline, Some("perftriage-fixed"))
    );
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn image_rm_refuses_another_workspaces_image_and_removes_its_own() {
    let Some(_ready) = ready() else { return };
    let s = setup("perftriage-test/vllm:aimv2", SERVING, "");
    let (ours, theirs) = (fixed_in(&s, "ws"), fixed_in(&s, "ws-b"));
    let short = &s.short[..8];
    let listed = in_workspace(&s, "ws", &["image", "list"]);
    let listed = text(&listed);
    let their_line = listed.lines().find(|l| l.starts_with(&theirs)).unwrap_or_else(|| panic!("{listed}"));
    let whose = format!("workspace {}'s", s.root.join("ws-b").display());
    assert!(their_line.contains(&whose) && their_line.contains(&format!("{short} baseline")), "{listed}");
    let refused = in_workspace(&s, "ws", &["image", "rm", &theirs]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    let said = format!("not removed: {theirs} is {whose} (its results name it: {short} baseline)");
    assert!(text(&refused).contains(&said), "{}", text(&refused));
    assert!(!image_id(&theirs).is_empty(), "their image stays");
    let removed = in_workspace(&s, "ws", &["image", "rm", &ours]);
    assert_eq!(removed.status.code(), Some(0), "{}", text(&removed));
    assert!(
        text(&removed).contains(&format!("{short} baseline: later runs fall back")),
        "{}",
        text(&removed)
    );
    assert!(docker(&["images", "-q", &ours]).is_empty(), "ours is gone");
    let json = in_workspace(&s, "ws", &["image", "list", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    let theirs_row = rows.iter().find(|r| r["image"] == theirs.as_str()).unwrap();
    assert_eq!(theirs_row["ours"], false);
    assert!(rows.iter().all(|r| r["image"] != ours.as_str()), "{rows:?}");
}
