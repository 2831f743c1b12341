//! The real tier's failures as recipes of real Debian images: one definition, used by the tests
//! of `tests/real_env.rs` and by `.ci/run`'s image preparation (`tests/images/prepare.rs`).
#![allow(dead_code)]

use super::real::Scenario;

/// torch as the ISO-Bench images of early 2024 had it (built against NumPy 1.x); one shared layer.
pub const TORCH: &str = "torch==2.2.2";

pub const AIMV2: Scenario = Scenario {
    name: "aimv2",
    pip: &["transformers==4.56.0"],
    vllm: Some(("0.9.1", &["transformers_utils/", "envs.py", "logger.py", "logging_utils/"])),
    then: "",
    imports: "import vllm.transformers_utils.configs",
};

pub const NUMPY2: Scenario = Scenario {
    name: "numpy2",
    pip: &[TORCH],
    vllm: None,
    // Upgraded afterwards, as happens in the wild: torch 2.2 was built against NumPy 1.x.
    then: "pip install -q numpy==2.2.6",
    imports: "import torch\ntorch.zeros(1).numpy()",
};

/// What an interrupted `pip uninstall` leaves: the package half gone, its metadata stashed as
/// `~ransformers` (pip's own name for it), and pip warning about it on every call. vLLM's import
/// fails on it, so the fix must find vLLM's site-packages without importing vLLM: a stash left
/// behind would keep pip warning in the re-run.
pub const TF_BROKEN: Scenario = Scenario {
    name: "tf-broken",
    pip: &["transformers==4.44.2"],
    vllm: None,
    then: "cd /usr/local/lib/python3.11/dist-packages && rm -rf transformers/utils && mv transformers-4.44.2.dist-info ~ransformers-4.44.2.dist-info",
    imports: "import subprocess\nsubprocess.run([sys.executable, '-m', 'pip', 'list'], stdout=subprocess.DEVNULL)\nfrom transformers.utils import logging",
};

pub const LOGITSWARPER: Scenario = Scenario {
    name: "logitswarper",
    // Real torch (CPU only here): transformers' logits_process imports it first.
    // numpy<2 as the images of that time had it (torch 2.2 was built against NumPy 1.x).
    pip: &[TORCH, "transformers==4.56.0 lm-format-enforcer==0.9.8 'numpy<2'"],
    vllm: None,
    then: "",
    imports: "import lmformatenforcer.integrations.transformers",
};

pub const PYAIRPORTS: Scenario = Scenario {
    name: "pyairports",
    // pyarrow of that time (newer ones want NumPy 2, which outlines 0.0.46 excludes).
    pip: &[TORCH, "outlines==0.0.46 pyairports==0.0.1 pyarrow==16.1.0"],
    vllm: None,
    then: "",
    imports: "import outlines",
};

pub const FA_UTILS: Scenario = Scenario {
    name: "fa-utils",
    pip: &[],
    vllm: Some(("0.8.4", &["envs.py", "logger.py", "logging_utils/", "vllm_flash_attn/"])),
    then: "cd /usr/local/lib/python3.11/dist-packages/vllm/vllm_flash_attn && rm fa_utils.py && echo '# Stand-in: the real one loads the compiled flash-attention interface (torch, GPU)' > __init__.py",
    imports: "from vllm.vllm_flash_attn.fa_utils import flash_attn_supports_fp8, get_flash_attn_version",
};

/// Every scenario, in the order `.ci/run` prepares them (the torch stack's first).
pub const ALL: [&Scenario; 6] = [&NUMPY2, &LOGITSWARPER, &PYAIRPORTS, &AIMV2, &TF_BROKEN, &FA_UTILS];
