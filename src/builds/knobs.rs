//! `[build]`: the baseline recipe's knobs, machine-wide and per commit. A commit's override (by
//! its short hash or its parent's first 12 characters) replaces only the knobs it names; the
//! upstream ISO-Bench retry settings ship as overrides the user's own replace.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Per-commit overrides ISO-Bench's builder needed (`RETRY_CONFIGS`, the CUDA 11.8 parent).
const UPSTREAM: &str = include_str!("upstream.toml");

/// `[build]` as written: the knobs it sets (each unset one keeps the recipe's default, see
/// `KnobSet::recipe`), the machine-wide settings, and per-commit overrides. The knobs are
/// fields of the table itself, not a flattened set, so that an error names the bad value's line.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BuildConfig {
    #[serde(default, deserialize_with = "crate::checked::positive_option")]
    pub max_jobs: Option<u32>,
    #[serde(default, deserialize_with = "crate::checked::positive_option")]
    pub nvcc_threads: Option<u32>,
    #[serde(default, deserialize_with = "crate::checked::cuda_arch")]
    pub cuda_arch: Option<String>,
    #[serde(default, deserialize_with = "crate::checked::positive_option")]
    pub timeout_s: Option<u64>,
    #[serde(default, deserialize_with = "crate::checked::apt_packages")]
    pub toolkit: Option<Vec<String>>,
    pub build_deps: Option<Vec<String>>,
    pub pins: Option<Vec<String>>,
    #[serde(default, deserialize_with = "crate::checked::python_modules")]
    pub imports: Option<Vec<String>>,
    #[serde(default, deserialize_with = "crate::checked::env_assignments")]
    pub env: Option<Vec<String>>,
    pub pre: Option<Vec<String>>,
    /// Compiler jobs when no `max_jobs` is set: as many as the daemon's memory allows at this many
    /// GiB a job (an nvcc of vLLM's kernels takes several), never more than its CPUs.
    #[serde(deserialize_with = "crate::checked::positive_gib")]
    pub gib_per_job: f64,
    /// Nothing new in the log for this long marks the build stalled (it is never killed for it).
    #[serde(deserialize_with = "crate::checked::positive")]
    pub stall_s: u64,
    /// Disk the new image takes when this machine has built none yet (else the largest so far).
    #[serde(deserialize_with = "crate::checked::gib")]
    pub expected_gb: f64,
    /// A container memory limit for builds (none by default).
    #[serde(default, deserialize_with = "crate::checked::positive_gib_option")]
    pub memory_gb: Option<f64>,
    /// Where the source goes in the image (an editable install, as ISO-Bench's baselines).
    pub dir: String,
    pub commits: BTreeMap<String, KnobSet>,
}

/// The knobs a commit may override; unset ones come from the level above.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct KnobSet {
    #[serde(default, deserialize_with = "crate::checked::positive_option")]
    pub max_jobs: Option<u32>,
    #[serde(default, deserialize_with = "crate::checked::positive_option")]
    pub nvcc_threads: Option<u32>,
    #[serde(default, deserialize_with = "crate::checked::cuda_arch")]
    pub cuda_arch: Option<String>,
    #[serde(default, deserialize_with = "crate::checked::positive_option")]
    pub timeout_s: Option<u64>,
    /// apt packages of the toolkit step (empty: no toolkit step).
    #[serde(default, deserialize_with = "crate::checked::apt_packages")]
    pub toolkit: Option<Vec<String>>,
    /// Build requirements installed before the compile (`--no-build-isolation` needs them).
    pub build_deps: Option<Vec<String>>,
    /// Installed after the compile, in order (`pip install`).
    pub pins: Option<Vec<String>>,
    /// Python modules the import check imports: the build counts only if they import.
    #[serde(default, deserialize_with = "crate::checked::python_modules")]
    pub imports: Option<Vec<String>>,
    /// `NAME=value` for every step.
    #[serde(default, deserialize_with = "crate::checked::env_assignments")]
    pub env: Option<Vec<String>>,
    /// Shell run in the source before the dependencies (e.g. a `pyproject.toml` edit).
    pub pre: Option<Vec<String>>,
}

/// One commit's effective knobs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Knobs {
    pub max_jobs: u32,
    pub nvcc_threads: u32,
    pub cuda_arch: String,
    pub timeout_s: u64,
    pub toolkit: Vec<String>,
    pub build_deps: Vec<String>,
    pub pins: Vec<String>,
    pub imports: Vec<String>,
    pub env: Vec<String>,
    pub pre: Vec<String>,
}

impl Default for BuildConfig {
    fn default() -> Self {
        BuildConfig {
            max_jobs: None,
            nvcc_threads: None,
            cuda_arch: None,
            timeout_s: None,
            toolkit: None,
            build_deps: None,
            pins: None,
            imports: None,
            env: None,
            pre: None,
            gib_per_job: 4.0,
            stall_s: 300,
            expected_gb: 20.0,
            memory_gb: None,
            dir: "/opt/vllm_baseline".into(),
            commits: BTreeMap::new(),
        }
    }
}

impl KnobSet {
    /// The recipe's defaults: what a knob is where neither `[build]`, a commit's override nor the
    /// board says otherwise.
    pub fn recipe() -> KnobSet {
        KnobSet {
            max_jobs: None,
            nvcc_threads: Some(2),
            cuda_arch: Some("9.0".into()),
            timeout_s: Some(5400),
            toolkit: Some(vec!["git".into(), "cuda-toolkit-12-4".into()]),
            build_deps: Some(
                ["setuptools", "setuptools_scm", "wheel", "packaging", "ninja", "cmake", "numpy<2"]
                    .map(String::from)
                    .to_vec(),
            ),
            pins: Some(vec!["git+https://github.com/NICTA/pyairports.git".into()]),
            imports: Some(vec!["vllm".into(), "vllm._C".into()]),
            env: Some(Vec::new()),
            pre: Some(Vec::new()),
        }
    }

    /// `self` where it says something, `under` elsewhere.
    pub fn over(&self, under: &KnobSet) -> KnobSet {
        fn pick<T: Clone>(a: &Option<T>, b: &Option<T>) -> Option<T> {
            a.clone().or_else(|| b.clone())
        }
        KnobSet {
            max_jobs: pick(&self.max_jobs, &under.max_jobs),
            nvcc_threads: pick(&self.nvcc_threads, &under.nvcc_threads),
            cuda_arch: pick(&self.cuda_arch, &under.cuda_arch),
            timeout_s: pick(&self.timeout_s, &under.timeout_s),
            toolkit: pick(&self.toolkit, &under.toolkit),
            build_deps: pick(&self.build_deps, &under.build_deps),
            pins: pick(&self.pins, &under.pins),
            imports: pick(&self.imports, &under.imports),
            env: pick(&self.env, &under.env),
            pre: pick(&self.pre, &under.pre),
        }
    }

    /// Every knob set; `max_jobs` from `default_jobs` when none is.
    fn resolve(self, default_jobs: u32) -> Knobs {
        Knobs {
            max_jobs: self.max_jobs.unwrap_or(default_jobs).max(1),
            nvcc_threads: self.nvcc_threads.unwrap_or(1).max(1),
            cuda_arch: self.cuda_arch.unwrap_or_default(),
            timeout_s: self.timeout_s.unwrap_or(5400),
            toolkit: self.toolkit.unwrap_or_default(),
            build_deps: self.build_deps.unwrap_or_default(),
            pins: self.pins.unwrap_or_default(),
            imports: self.imports.unwrap_or_default(),
            env: self.env.unwrap_or_default(),
            pre: self.pre.unwrap_or_default(),
        }
    }
}

/// The daemon's size, for the default number of jobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Machine {
    pub cpus: u32,
    pub memory_bytes: u64,
}

impl BuildConfig {
    /// The override for a commit: the user's (by short, then parent12), else upstream's.
    fn override_for(&self, short: &str, parent12: &str) -> KnobSet {
        let upstream: BTreeMap<String, KnobSet> = toml::from_str(UPSTREAM).unwrap_or_default();
        let user = self.commits.get(short).or_else(|| self.commits.get(parent12));
        let theirs = upstream.get(parent12).cloned().unwrap_or_default();
        user.map_or(theirs.clone(), |mine| mine.over(&theirs))
    }

    /// A commit's knobs: `changes` (from the board or the command line) over its override over
    /// `[build]` over the recipe's defaults.
    pub fn knobs_for(&self, short: &str, parent12: &str, changes: &KnobSet, machine: Machine) -> Knobs {
        let machine_wide = self.knobs().over(&KnobSet::recipe());
        let set = changes.over(&self.override_for(short, parent12).over(&machine_wide));
        set.resolve(self.default_jobs(machine))
    }

    /// The knobs `[build]` itself sets.
    pub fn knobs(&self) -> KnobSet {
        KnobSet {
            max_jobs: self.max_jobs,
            nvcc_threads: self.nvcc_threads,
            cuda_arch: self.cuda_arch.clone(),
            timeout_s: self.timeout_s,
            toolkit: self.toolkit.clone(),
            build_deps: self.build_deps.clone(),
            pins: self.pins.clone(),
            imports: self.imports.clone(),
            env: self.env.clone(),
            pre: self.pre.clone(),
        }
    }

    /// Jobs the machine's memory allows at `gib_per_job`, at most its CPUs.
    pub fn default_jobs(&self, machine: Machine) -> u32 {
        let per_job = gib_bytes(self.gib_per_job.max(0.1));
        let by_memory = u32::try_from(machine.memory_bytes / per_job).unwrap_or(u32::MAX);
        by_memory.min(machine.cpus).max(1)
    }

    /// The container memory limit, in bytes.
    pub fn memory_limit(&self) -> Option<i64> {
        self.memory_gb.map(|gb| i64::try_from(gib_bytes(gb)).unwrap_or(i64::MAX))
    }
}

/// `gb` GiB in bytes (negative: none).
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub fn gib_bytes(gb: f64) -> u64 {
    (gb.max(0.0) * f64::from(1u32 << 30)) as u64
}

/// A word of the knobs prompt that is no knob setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KnobError {
    #[error("`{0}`: knobs are name=value")]
    NotNameValue(String),
    #[error("`{word}`: {name} takes a whole number")]
    NotANumber { word: String, name: String },
    #[error("`{0}` is not a build knob (max_jobs, nvcc_threads, timeout_s, cuda_arch)")]
    Unknown(String),
    #[error("`{0}`: it must be at least 1")]
    Zero(String),
    #[error("`{0}`: CUDA architectures are digits, letters, . + ; (no spaces on the prompt)")]
    Arch(String),
}

/// `max_jobs=8 nvcc_threads=1 timeout_s=7200 cuda_arch=8.0` (the board's knobs prompt); a word
/// that is not one of those is named.
pub fn parse_knobs(text: &str) -> Result<KnobSet, KnobError> {
    let mut knobs = KnobSet::default();
    for word in text.split_whitespace() {
        let (name, value) = word.split_once('=').ok_or_else(|| KnobError::NotNameValue(word.to_string()))?;
        let number = || {
            let bad = || KnobError::NotANumber { word: word.to_string(), name: name.to_string() };
            match value.parse::<u32>().map_err(|_| bad())? {
                0 => Err(KnobError::Zero(word.to_string())),
                n => Ok(n),
            }
        };
        match name {
            "max_jobs" => knobs.max_jobs = Some(number()?),
            "nvcc_threads" => knobs.nvcc_threads = Some(number()?),
            "timeout_s" => knobs.timeout_s = Some(u64::from(number()?)),
            "cuda_arch" if crate::checked::is_cuda_arch(value) => knobs.cuda_arch = Some(value.to_string()),
            "cuda_arch" => return Err(KnobError::Arch(word.to_string())),
            _ => return Err(KnobError::Unknown(name.to_string())),
        }
    }
    Ok(knobs)
}

/// The knobs that are set, as the prompt takes them.
pub fn describe_knobs(knobs: &KnobSet) -> String {
    let numbers = [
        ("max_jobs", knobs.max_jobs.map(u64::from)),
        ("nvcc_threads", knobs.nvcc_threads.map(u64::from)),
        ("timeout_s", knobs.timeout_s),
    ];
    let mut words: Vec<String> = numbers.iter().filter_map(|(n, v)| v.map(|v| format!("{n}={v}"))).collect();
    words.extend(knobs.cuda_arch.as_ref().map(|a| format!("cuda_arch={a}")));
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knobs_typed_on_the_board_parse_and_a_bad_word_is_named() {
        let knobs =
            parse_knobs(" max_jobs=6  nvcc_threads=1 timeout_s=7200 cuda_arch=8.0 ").unwrap_or_default();
        assert_eq!(describe_knobs(&knobs), "max_jobs=6 nvcc_threads=1 timeout_s=7200 cuda_arch=8.0");
        assert_eq!(parse_knobs("").map(|k| k == KnobSet::default()), Ok(true));
        assert_eq!(
            parse_knobs("max_jobs=0"),
            Err(KnobError::Zero("max_jobs=0".into())),
            "refused, not clamped"
        );
        assert_eq!(parse_knobs("timeout_s=0"), Err(KnobError::Zero("timeout_s=0".into())), "stopped at once");
        assert!(parse_knobs("max_jobs").is_err_and(|e| e.to_string().contains("name=value")));
        assert!(parse_knobs("max_jobs=many").is_err_and(|e| e.to_string().contains("whole number")));
        assert!(parse_knobs("jobs=4").is_err_and(|e| e.to_string().contains("`jobs` is not a build knob")));
    }
}
