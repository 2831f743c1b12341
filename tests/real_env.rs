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

/// torch as the ISO-Bench images of early 2024 had it (built against NumPy 1.x); one shared layer.
const TORCH: &str = "torch==2.2.2";
const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --num-prompts 5";

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
    let s = setup_with(&tag, SERVING, "", fa_utils.as_deref());
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
    let scenario = Scenario {
        name: "aimv2",
        pip: &["transformers==4.56.0"],
        vllm: Some(("0.9.1", &["transformers_utils/", "envs.py", "logger.py", "logging_utils/"])),
        then: "",
        imports: "import vllm.transformers_utils.configs",
    };
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
    let scenario = Scenario {
        name: "numpy2",
        pip: &[TORCH],
        vllm: None,
        // Upgraded afterwards, as happens in the wild: torch 2.2 was built against NumPy 1.x.
        then: "pip install -q numpy==2.2.6",
        imports: "import torch\ntorch.zeros(1).numpy()",
    };
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
    // What an interrupted `pip uninstall` leaves: the package half gone, its metadata stashed as
    // `~ransformers` (pip's own name for it), and pip warning about it on every call. vLLM's
    // import fails on it, so the fix must find vLLM's site-packages without importing vLLM: a
    // stash left behind would keep pip warning in the re-run.
    let scenario = Scenario {
        name: "tf-broken",
        pip: &["transformers==4.44.2"],
        vllm: None,
        then: "cd /usr/local/lib/python3.11/dist-packages && rm -rf transformers/utils && mv transformers-4.44.2.dist-info ~ransformers-4.44.2.dist-info",
        imports: "import subprocess\nsubprocess.run([sys.executable, '-m', 'pip', 'list'], stdout=subprocess.DEVNULL)\nfrom transformers.utils import logging",
    };
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
    let scenario = Scenario {
        name: "logitswarper",
        // Real torch (CPU only here): transformers' logits_process imports it first.
        // numpy<2 as the images of that time had it (torch 2.2 was built against NumPy 1.x).
        pip: &[TORCH, "transformers==4.56.0 lm-format-enforcer==0.9.8 'numpy<2'"],
        vllm: None,
        then: "",
        imports: "import lmformatenforcer.integrations.transformers",
    };
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
    let scenario = Scenario {
        name: "pyairports",
        // pyarrow of that time (newer ones want NumPy 2, which outlines 0.0.46 excludes).
        pip: &[TORCH, "outlines==0.0.46 pyairports==0.0.1 pyarrow==16.1.0"],
        vllm: None,
        then: "",
        imports: "import outlines",
    };
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
    let scenario = Scenario {
        name: "fa-utils",
        pip: &[],
        vllm: Some(("0.8.4", &["envs.py", "logger.py", "logging_utils/", "vllm_flash_attn/"])),
        then: "cd /usr/local/lib/python3.11/dist-packages/vllm/vllm_flash_attn && rm fa_utils.py && echo '# Stand-in: the real one loads the compiled flash-attention interface (torch, GPU)' > __init__.py",
        imports: "from vllm.vllm_flash_attn.fa_utils import flash_attn_supports_fp8, get_flash_attn_version",
    };
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
