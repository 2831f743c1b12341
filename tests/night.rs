//! Twelve commits of the public archive's night, replayed on the real engine with the mock vLLM
//! (`tests/common/night.rs`; the whole night is `tests/benches/night.sh`): one campaign with
//! `--auto-fix --retries 2` makes exactly the commits usable that the rule table's dispositions
//! say it should — a state a recipe fixes (NumPy 2, a broken transformers, pyairports, missing
//! pandas, LogitsWarper), an infrastructure failure once or twice, an image the registry does not
//! have, failures that stay (an undefined symbol, a gated model, pydantic, an unclassified one).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::engine::{perftriage, text};
use common::night;

/// The slice: `status --json` lines of the archive (fixtures/night/slice.jsonl, trimmed).
fn slice() -> Vec<night::ArchiveCommit> {
    night::read_status(&std::fs::read_to_string("fixtures/night/slice.jsonl").unwrap())
}

/// Seven of the twelve, stated from the categories alone: the archive measured one.
#[test]
fn the_slices_expected_count_comes_from_the_categories_alone() {
    let commits = slice();
    assert_eq!(commits.len(), 12);
    assert_eq!(night::usable_before(&commits), 1);
    assert_eq!(night::expected(&commits, 2), 7);
    assert_eq!(night::expected(&commits, 1), 6, "the missing wheel lasts two runs");
    assert_eq!(night::expected(&commits, 0), 4, "no retries: the three infrastructure failures stay");
}

#[test]
#[cfg_attr(not(has_registry), ignore = "needs Debian's docker-registry, busybox-static and a Docker engine")]
fn one_campaign_over_a_slice_of_the_archives_night_reaches_the_expected_count() {
    // The night's own images only: not the mock's five.
    let rt = common::engine::runtime();
    let Some(engine) = common::engine::engine(&rt) else { return };
    let commits = slice();
    let n = night::night(&commits);
    let s = &n.setup;
    let list = n.shorts.join(",");
    let args =
        ["campaign", "start", "--name", "night", "--variants", "b,h,a", "--auto-fix", "--retries", "2"];
    let args = [&args[..], &["--retry-wait", "1", "--concurrency", "4", "--commits", &list]].concat();
    let out = perftriage(s, &args);
    assert_eq!(out.status.code(), Some(3), "some are left: {}", text(&out));
    let status = perftriage(s, &["campaign", "status", "night", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let outcome = &status["outcome"];
    assert_eq!(outcome["usable_now"].as_u64(), Some(night::expected(&commits, 2) as u64), "{outcome:#}");
    let wrong = night::mismatches(&commits, &n.shorts, &status, (2, &[]));
    assert!(wrong.is_empty(), "cells that ended otherwise:\n{}\n{status:#}", wrong.join("\n"));
    let journal = std::fs::read_to_string(s.root.join("ws/campaigns/night/journal.jsonl")).unwrap();
    assert_eq!(night::launched_twice(&journal), Vec::<String>::new());
    let ours = rt.block_on(engine.ours(&s.root.join("ws").display().to_string())).unwrap();
    assert!(ours.is_empty(), "containers left behind: {ours:?}");
}

/// A parent whose baseline fails on NumPy 2 and whose agent on a broken transformers: both fixes
/// go into the one tag the two share, the second built on the first. (A fix from the plain image
/// dropped the first fix — the baseline's next run failed on NumPy 2 again — and left the first
/// fixed image dangling while a run used it: the night's 96 × 3 found it.)
#[test]
#[cfg_attr(not(has_registry), ignore = "needs Debian's docker-registry, busybox-static and a Docker engine")]
fn the_baselines_and_the_agents_fixes_accumulate_in_the_image_they_share() {
    let rt = common::engine::runtime();
    let Some(_engine) = common::engine::engine(&rt) else { return };
    let n = night::night(&night::read_status(&format!("{}\n", numpy2_and_broken_transformers())));
    let (s, short) = (&n.setup, n.shorts[0].as_str());
    for (variant, recipe) in [("baseline", "numpy_lt_2"), ("agent", "transformers_cleanup")] {
        let out = perftriage(
            s,
            &["fix", "apply", short, "--variant", variant, "--recipe", recipe, "--commit-image"],
        );
        assert_eq!(out.status.code(), Some(0), "{variant}: {}", text(&out));
    }
    assert_eq!(shared_image_probe(s, NUMPY_1), Some(0), "numpy_lt_2 kept");
    assert_eq!(shared_image_probe(s, TRANSFORMERS), Some(0), "transformers_cleanup in");
}

/// The same parent in one campaign while another process holds the workspace's triage history
/// (so no fix reaches it): the agent's fix still builds on the baseline's, from the journal.
/// (It built on the plain image: the night's 96 × 3 left an agent's broken transformers in an
/// image whose NumPy fix had replaced its own.)
#[test]
#[cfg_attr(not(has_registry), ignore = "needs Debian's docker-registry, busybox-static and a Docker engine")]
fn a_campaigns_second_fix_of_a_parent_builds_on_the_first_from_its_journal() {
    let rt = common::engine::runtime();
    let Some(_engine) = common::engine::engine(&rt) else { return };
    let n = night::night(&night::read_status(&format!("{}\n", numpy2_and_broken_transformers())));
    let (s, short) = (&n.setup, n.shorts[0].as_str());
    let held = perftriage::triage::TriageStore::open(&s.root.join("ws")).unwrap();
    let args =
        ["campaign", "start", "--name", "night", "--variants", "b,a", "--auto-fix", "--commits", short];
    let out = perftriage(s, &args);
    drop(held);
    assert_eq!(out.status.code(), Some(0), "both fixed and measured: {}", text(&out));
    assert_eq!(shared_image_probe(s, NUMPY_1), Some(0), "numpy_lt_2 kept");
    assert_eq!(shared_image_probe(s, TRANSFORMERS), Some(0), "transformers_cleanup in");
}

const NUMPY_1: &str = "import numpy, sys; sys.exit(0 if numpy.__version__ < '2' else 1)";
const TRANSFORMERS: &str = "from transformers.utils import logging";

/// An archive line: the baseline on NumPy 2, the agent on a broken transformers, the human fine
/// (the evidence the archive has for each).
fn numpy2_and_broken_transformers() -> serde_json::Value {
    let record = |category: &str, evidence: &str| serde_json::json!({ "status": "fail", "category": category, "evidence": evidence });
    let numpy2 = record("numpy2", "A module that was compiled using NumPy 1.x cannot be run in");
    let broken = "ImportError: cannot import name 'PretrainedConfig' from 'transformers' (unknown location)";
    let variants = serde_json::json!({
        "baseline": numpy2, "human": { "status": "ok" }, "agent": record("tf_broken_import", broken) });
    serde_json::json!({ "short": "1234abcd", "variants": variants })
}

/// `python3 -c CODE`'s exit in the fixed image the setup's baseline and agent share.
fn shared_image_probe(s: &common::engine::Setup, code: &str) -> Option<i32> {
    let tag = common::engine::fixed_tag(s, perftriage::dataset::Variant::Agent, Some("perftriage-fixed"));
    let out = std::process::Command::new("docker")
        .args(["run", "--rm", "--entrypoint", "python3", &tag, "-c", code])
        .output()
        .unwrap();
    eprintln!("{code}: {}", text(&out));
    out.status.code()
}
