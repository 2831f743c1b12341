//! Fixes from the board in a real terminal, on the real engine with the mock vLLM images: a bulk
//! fix plans per (commit, variant) and skips what the recipe already fixed; after a fix with its
//! re-run the panes follow the re-run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::engine::{Setup, perftriage, ready, run, setup, text};
use common::tmux_board::{Board, row_has};

const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --num-prompts 5";
const RECIPE: &str = "aimv2_exist_ok";

/// The triage file's fix records of `variant`: (recipe, outcome) in order.
fn fixes_of(s: &Setup, variant: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(s.root.join("ws/triage.json")).unwrap_or_default();
    let Ok(book) = serde_json::from_str::<serde_json::Value>(&text) else { return Vec::new() };
    let mut out = Vec::new();
    for entries in book["commits"].as_object().into_iter().flat_map(|c| c.values()) {
        for h in entries.as_array().into_iter().flatten() {
            if h["action"] == "fix" && h["variant"] == variant {
                out.push((h["recipe"].as_str().unwrap().into(), h["outcome"].as_str().unwrap().into()));
            }
        }
    }
    out
}

/// The commit's baseline and then its human fail with aimv2 (the human is the newer failure);
/// the human is fixed headlessly. `F Enter y` on the board fixes the baseline and skips the human
/// — it applied the fix to the human again ("already applied") and left the baseline failing.
#[test]
#[cfg_attr(not(all(has_docker, has_tmux)), ignore = "needs a Docker engine, busybox-static and tmux")]
fn a_bulk_fix_fixes_each_failing_variant_and_skips_the_one_already_fixed() {
    let Some((_rt, _engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:aimv2", SERVING, "");
    for variant in ["baseline", "human"] {
        let out = run(&s, variant);
        assert!(text(&out).contains("aimv2"), "{variant} fails with aimv2: {}", text(&out));
    }
    let args = ["fix", "apply", &s.short, "--variant", "human", "--recipe", RECIPE, "--commit-image"];
    let out = perftriage(&s, &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(fixes_of(&s, "human").len(), 1, "the human fixed once");
    let board = Board::start(&s.config, &s.root.join("ws"), "bulk-fix", 200);
    let short = &s.short[..8];
    board.until("the failed row", 60, |t| row_has(t, short, "✗"));
    board.keys("F");
    board.until("the recipe picker", 30, |t| t.contains(RECIPE));
    board.keys("Enter");
    let confirm = board.until("the bulk confirm", 30, |t| t.contains("Bulk-apply"));
    assert!(confirm.contains(&format!("{short} baseline (aimv2)")), "{confirm}");
    assert!(confirm.contains(&format!("{short} human    skipped: already fixed with {RECIPE}")), "{confirm}");
    board.keys("y");
    let fixed = common::wait::poll(std::time::Duration::from_secs(180), || {
        let fixes = fixes_of(&s, "baseline");
        if fixes.is_empty() { Err(board.screen()) } else { Ok(fixes) }
    });
    let fixed = fixed.unwrap_or_else(|screen| board.timed_out("the baseline's fix recorded", 180, &screen));
    assert_eq!(fixed, [(RECIPE.to_string(), "verified".to_string())], "{}", board.screen());
    assert_eq!(fixes_of(&s, "human").len(), 1, "the human is not fixed again");
}

/// `f Enter y` on a failed human: the fix's output shows while it runs, then the re-run's server
/// and benchmark panes take its place (the pane stayed on the fix's output; `L` twice was needed).
#[test]
#[cfg_attr(not(all(has_docker, has_tmux)), ignore = "needs a Docker engine, busybox-static and tmux")]
fn after_a_fix_from_the_board_the_panes_follow_its_rerun() {
    let Some((_rt, _engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:aimv2", SERVING, "");
    assert!(text(&run(&s, "human")).contains("aimv2"));
    let board = Board::start(&s.config, &s.root.join("ws"), "fix-rerun", 200);
    let short = &s.short[..8];
    board.until_connected("the failed row, Docker connected", 60, |t| row_has(t, short, "✗"));
    board.keys("f");
    board.until("the fix menu", 60, |t| t.contains("failed with aimv2") && t.contains(RECIPE));
    board.keys("Enter");
    board.until("the fix confirm", 30, |t| t.contains(&format!("Apply {RECIPE} to {short} human?")));
    board.keys("y");
    let server = format!("server · {short} human · run");
    let screen = board.until("the re-run's panes", 180, |t| t.contains(&server));
    assert!(screen.contains(&format!("benchmark · {short} human · run")), "{screen}");
    assert!(!screen.contains(&format!("fix {RECIPE} · {short} human")), "the fix's output behind: {screen}");
    let done = board.until("the re-run's end", 180, |t| row_has(t, short, "✓"));
    assert!(done.contains(&server), "the panes stay on the re-run: {done}");
}
