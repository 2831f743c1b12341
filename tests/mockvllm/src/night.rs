//! The replayed night (`tests/benches/night.sh`): a commit's benchmark scripts carry
//! `benchmarks/night.txt`, one line per variant that runs from them, saying how that variant failed
//! in the public archive. A parent's scripts serve its baseline and its agent (told apart by the
//! agent patch's `+agent` in `vllm/__init__.py`), a commit's own scripts its human.
//!
//! `VARIANT CATEGORY HOW TIMES EVIDENCE…`, HOW one of:
//! - `ok`: no failure;
//! - `state`: the image's files decide (the package or file the real recipe changes), the archive's
//!   evidence printed while the state is broken;
//! - `server` / `bench`: the evidence printed and exit 1 at that stage, the first TIMES runs of
//!   this (commit, variant) only (an infrastructure failure that goes away), or always for 0.
//!
//! The runs are counted in the Hugging Face cache the config mounts (`night/<commit>-<variant>`).

use crate::{SITE, VLLM_DIR, knob_text, packages};
use std::process::ExitCode;

const SPEC: &str = "/opt/perftriage/benchmarks/night.txt";
const COUNTS: &str = "/root/.cache/huggingface/night";

pub struct Cell {
    commit: String,
    variant: String,
    category: String,
    how: String,
    times: u32,
    evidence: String,
}

/// This run's line of the night, if the scripts carry one.
pub fn cell() -> Option<Cell> {
    let text = spec()?;
    let commit = text.lines().find_map(|l| l.strip_prefix("commit "))?.trim().to_string();
    let variant = match text.lines().any(|l| l.starts_with("human ")) {
        true => "human",
        false if knob_text("__version__").is_some_and(|v| v.contains("+agent")) => "agent",
        false => "baseline",
    };
    let line = text.lines().find(|l| l.split(' ').next() == Some(variant))?;
    let mut words = line.splitn(5, ' ').skip(1);
    let mut next = || words.next().unwrap_or_default().to_string();
    let (category, how, times, evidence) = (next(), next(), next(), next());
    Some(Cell { commit, variant: variant.into(), category, how, times: times.parse().unwrap_or(0), evidence })
}

/// The failure this cell has at `stage` (`server` or `bench`), printed; `None` to go on.
pub fn fails_at(stage: &str) -> Option<ExitCode> {
    let cell = cell()?;
    let broken = match cell.how.as_str() {
        "state" => state_stage(&cell.category) == stage && state_broken(&cell.category),
        how if how == stage => cell.times == 0 || counted(&cell) <= cell.times,
        _ => false,
    };
    if !broken {
        return None;
    }
    println!("Traceback (most recent call last):");
    println!("{}", cell.evidence);
    Some(ExitCode::from(1))
}

/// The night's spec, where a night is replayed (its run counts' folder is mounted): a server starts
/// before perftriage puts its scripts in, so it waits for them (at most a minute) — whole: the
/// upload writes the small file at once, after making it empty.
fn spec() -> Option<String> {
    let whole = || std::fs::read_to_string(SPEC).ok().filter(|t| t.ends_with('\n'));
    if !std::path::Path::new(COUNTS).is_dir() {
        return whole();
    }
    for _ in 0..3000 {
        if let Some(text) = whole() {
            return Some(text);
        }
        // pacing: the scripts' upload, not a test's wait
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    None
}

/// This (commit, variant)'s runs at this stage so far, this one included.
fn counted(cell: &Cell) -> u32 {
    let path = format!("{COUNTS}/{}-{}", cell.commit, cell.variant);
    let n = std::fs::read_to_string(&path).ok().and_then(|t| t.trim().parse::<u32>().ok()).unwrap_or(0) + 1;
    let _ = std::fs::create_dir_all(COUNTS).and_then(|()| std::fs::write(&path, n.to_string()));
    n
}

fn state_stage(category: &str) -> &'static str {
    if category == "pandas_missing" { "bench" } else { "server" }
}

/// Whether the image's files still hold the failure `category` names.
pub fn state_broken(category: &str) -> bool {
    match category {
        "numpy2" => packages::installed("numpy").is_some_and(|v| v.starts_with('2')),
        "aimv2" => crate::probes::aimv2_unregistered(),
        "fa_utils" => !std::path::Path::new(&format!("{VLLM_DIR}/vllm_flash_attn/fa_utils.py")).exists(),
        "logitswarper" => crate::probes::lm_format_enforcer_broken().is_some(),
        "tf_broken_import" | "tf_utils_missing" => transformers_broken(),
        "pyairports" => pyairports_placeholder(),
        "pandas_missing" => {
            ["aiohttp", "pandas", "datasets"].iter().any(|p| packages::installed(p).is_none())
        }
        _ => false,
    }
}

/// An interrupted uninstall's `~ransformers*` stash, or a transformers without its `utils`.
pub fn transformers_broken() -> bool {
    let stash = std::fs::read_dir(SITE)
        .map(|d| d.flatten().any(|e| e.file_name().to_string_lossy().starts_with("~ransformers")))
        .unwrap_or(false);
    stash || !std::path::Path::new(&format!("{SITE}/transformers/utils")).is_dir()
}

/// PyPI's `pyairports` 0.0.1 is an empty placeholder; outlines after 0.0.34 imports it.
pub fn pyairports_placeholder() -> bool {
    let outlines = packages::installed("outlines").unwrap_or_default();
    let placeholder = packages::installed("pyairports").is_none_or(|v| v == "0.0.1");
    placeholder && packages::parts(&outlines) > packages::parts("0.0.34")
}
