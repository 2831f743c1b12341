//! The realistic tier: each known failure reproduced in a real Debian image with real packages
//! from PyPI and vLLM's real Python files, classified from the real traceback, fixed by its recipe
//! with real pip/sed/copy, verified by the real import, and re-run green. Images are built once
//! per recipe (minutes on a fresh machine) and reused after.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::engine::{engine, perftriage, result, run, runtime, setup_with, text};
use common::real::{Scenario, image};
use common::scenarios;

const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --num-prompts 5";

/// A server's readiness and a run's limit, as the real vLLM tier has them.
const REAL_TIMEOUTS: &str = "ready_timeout_s = 1500\nrun_timeout_s = 1800";

/// What a scenario must show: the category and words of its real failure, the recipe offered
/// first, and the one applied (they differ where the first cannot work here).
struct Expect {
    category: &'static str,
    evidence: &'static str,
    first: &'static str,
    recipe: &'static str,
}

/// Fails with the expected category from the real traceback, the expected recipe comes first in
/// the fix list, the applied one verifies, and the re-run in the fixed container is green.
fn fails_then_is_fixed(scenario: &Scenario, expect: Expect) {
    let Expect { category, evidence, first, recipe } = expect;
    let rt = runtime();
    let Some(engine) = engine(&rt) else { return };
    let Some(tag) = image(&rt, &engine, scenario) else { return };
    let fa_utils = scenario
        .then
        .contains("fa_utils")
        .then(|| common::real::file_of(&tag, "/opt/vllm-src/vllm/vllm_flash_attn/fa_utils.py"));
    // A real Python's imports before the mock takes over: the mock's 60 s to be ready was passed
    // on a from-nothing CI run with four spinning processes beside it (two scenarios ended
    // `server_timeout` instead of their category); a limit bounds a hang, it is no budget.
    let s = setup_with(&tag, SERVING, REAL_TIMEOUTS, fa_utils.as_deref());
    let failed = run(&s, "human");
    assert_eq!(failed.status.code(), Some(3), "{} fails first: {}", scenario.name, text(&failed));
    let r = result(&s, "human");
    assert_eq!(r["perftriage"]["classification"]["category"], category, "{r:#}");
    let raw = r.to_string();
    assert!(raw.contains(evidence), "the real words `{evidence}`: {r:#}");
    let listed = text(&perftriage(&s, &["fix", "list", &s.short]));
    // `<short> human <category> <first recipe>, <others>`
    let offered = listed.lines().find(|l| l.contains(" human ")).unwrap_or_default();
    let words: Vec<&str> = offered.split_whitespace().collect();
    assert!(words.len() > 3, "{listed}");
    assert_eq!(
        (words[2], words[3].trim_end_matches(',')),
        (category, first),
        "{first} offered first: {listed}"
    );
    assert!(offered.contains(recipe), "{recipe} offered: {listed}");
    let out = perftriage(&s, &["fix", "apply", &s.short, "--variant", "human", "--recipe", recipe]);
    assert_eq!(out.status.code(), Some(0), "{}: {}", scenario.name, text(&out));
    assert!(text(&out).contains(&format!("{recipe}: verified")), "{}", text(&out));
    assert!(!text(&out).contains("already applied"), "the verify failed before the fix: {}", text(&out));
    let r = result(&s, "human");
    assert_eq!(r["status"], "success", "{}: {r:#}", scenario.name);
    assert_eq!(r["perftriage"]["fixes"], serde_json::json!([recipe]));
    let server = std::fs::read_to_string(r["perftriage"]["logs"]["server"].as_str().unwrap()).unwrap();
    for left in [evidence, "Ignoring invalid distribution"] {
        assert!(!server.contains(left), "the re-run is free of `{left}`: {server}");
    }
}

#[test]
#[cfg_attr(not(has_mmdebstrap), ignore = "needs mmdebstrap and a Docker engine for the real Debian images")]
fn real_aimv2_from_transformers_4_56_and_vllm_0_9_1_ovis() {
    let scenario = scenarios::AIMV2;
    fails_then_is_fixed(
        &scenario,
        Expect {
            category: "aimv2",
            evidence: "'aimv2' is already used by a Transformers config",
            first: "aimv2_exist_ok",
            recipe: "aimv2_exist_ok",
        },
    );
}

#[test]
#[cfg_attr(not(has_mmdebstrap), ignore = "needs mmdebstrap and a Docker engine for the real Debian images")]
fn real_numpy2_under_torch_2_2_built_against_numpy_1() {
    let scenario = scenarios::NUMPY2;
    fails_then_is_fixed(
        &scenario,
        Expect {
            category: "numpy2",
            evidence: "compiled using NumPy 1.x cannot be run in",
            first: "numpy_lt_2",
            recipe: "numpy_lt_2",
        },
    );
}

#[test]
#[cfg_attr(not(has_mmdebstrap), ignore = "needs mmdebstrap and a Docker engine for the real Debian images")]
fn real_broken_transformers_half_removed_by_pip() {
    let scenario = scenarios::TF_BROKEN;
    fails_then_is_fixed(
        &scenario,
        Expect {
            category: "tf_utils_missing",
            evidence: "No module named 'transformers.utils'",
            first: "transformers_cleanup",
            recipe: "transformers_cleanup",
        },
    );
    pip_warns_of_the_stash(&scenario);
}

/// Real pip in the broken image names the stash, and that line alone is a broken install.
fn pip_warns_of_the_stash(scenario: &Scenario) {
    let rt = runtime();
    let Some(engine) = engine(&rt) else { return };
    let Some(tag) = image(&rt, &engine, scenario) else { return };
    let out = std::process::Command::new("docker")
        .args(["run", "--rm", &tag, "python3", "-m", "pip", "list"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("Ignoring invalid distribution ~ransformers"), "{said}");
    let classifier = perftriage::classify::Classifier::embedded().unwrap();
    assert_eq!(classifier.classify(&said).unwrap().category, "tf_broken_import", "{said}");
}

#[test]
#[cfg_attr(not(has_mmdebstrap), ignore = "needs mmdebstrap and a Docker engine for the real Debian images")]
fn real_logitswarper_from_lm_format_enforcer_0_9_and_transformers_4_56() {
    let scenario = scenarios::LOGITSWARPER;
    fails_then_is_fixed(
        &scenario,
        Expect {
            category: "logitswarper",
            evidence: "cannot import name 'LogitsWarper'",
            first: "transformers_4_44_2",
            recipe: "transformers_4_44_2",
        },
    );
}

#[test]
#[cfg_attr(not(has_mmdebstrap), ignore = "needs mmdebstrap and a Docker engine for the real Debian images")]
fn real_pyairports_placeholder_under_outlines_0_0_46() {
    let scenario = scenarios::PYAIRPORTS;
    fails_then_is_fixed(
        &scenario,
        Expect {
            category: "pyairports",
            evidence: "No module named 'pyairports'",
            first: "pyairports_git",
            recipe: "outlines_pin",
        },
    );
}

#[test]
#[cfg_attr(not(has_mmdebstrap), ignore = "needs mmdebstrap and a Docker engine for the real Debian images")]
fn real_fa_utils_missing_from_vllm_0_8_4() {
    let scenario = scenarios::FA_UTILS;
    fails_then_is_fixed(
        &scenario,
        Expect {
            category: "fa_utils",
            evidence: "No module named 'vllm.vllm_flash_attn.fa_utils'",
            first: "fa_utils_inject",
            recipe: "fa_utils_inject",
        },
    );
}
