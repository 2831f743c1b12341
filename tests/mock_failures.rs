//! The archive's own failures on the mock engine (issue 58 item 1): each starts as the real image
//! fails, in the archive's own words, from state in the image that the real recipe's real commands
//! change — so the classifier sees real text and only the fix makes the run pass. Real engine, mock
//! vLLM images.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::engine::{perftriage, ready, result_of, text};

/// LogitsWarper: transformers 4.48 under an lm-format-enforcer before 0.10 fails at start with the
/// ImportError the archive's 6ce01f30 human shows; perftriage classifies it `logitswarper`, and a
/// campaign with `--auto-fix` applies the first recipe answering it (`transformers==4.44.2`, a real
/// `pip install` that changes the version the start checks), and the re-run measures.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn logitswarper_fails_as_the_archive_shows_and_its_recipe_fixes_it() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["logitswarper", "ok"], "");
    let short = &shorts[0];
    let failed = perftriage(&s, &["run", short, "--variant", "baseline"]);
    assert_ne!(failed.status.code(), Some(0), "{}", text(&failed));
    let result = result_of(&s, short, "baseline");
    assert_eq!(result["perftriage"]["classification"]["category"], "logitswarper", "{result:#}");
    let raw = result["raw_output"].as_str().unwrap_or_default();
    assert!(raw.contains(
        "ImportError: cannot import name 'LogitsWarper' from 'transformers.generation.logits_process'"
    ));
    let args = ["campaign", "start", "--name", "lw", "--variants", "b", "--auto-fix", "--commits", short];
    let out = perftriage(&s, &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let fixed = result_of(&s, short, "baseline");
    assert_eq!(fixed["status"], "success", "{fixed:#}");
    assert_eq!(fixed["perftriage"]["fixes"], serde_json::json!(["transformers_4_44_2"]));
}
