//! Why a build failed, from its log and the exit code of the step that failed: the kernel's OOM
//! kill, a full disk, a compiler error (with its file:line), a CMake error, pip's metadata or
//! wheel failure; the first line of the strongest kind is the evidence. An OOM gets a MAX_JOBS.

use regex::Regex;
use std::sync::LazyLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Strongest first: an OOM kill also makes ninja, CMake and pip fail after it.
    Oom,
    DiskFull,
    Compiler,
    Cmake,
    Metadata,
    /// The build ran but the import check did not import.
    Import,
    /// A step failed and its log says nothing we know.
    Step,
    Timeout,
    /// Stopped by a signal or the board: nothing learned, nothing recorded.
    Cancelled,
}

impl FailureKind {
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Oom => "out of memory (OOM kill)",
            FailureKind::DiskFull => "disk full",
            FailureKind::Compiler => "compiler error",
            FailureKind::Cmake => "CMake error",
            FailureKind::Metadata => "metadata-generation/wheel-build failure",
            FailureKind::Import => "import check failed",
            FailureKind::Step => "step failed",
            FailureKind::Timeout => "timeout",
            FailureKind::Cancelled => "cancelled",
        }
    }
}

fn re(pattern: &str) -> Regex {
    // Patterns are constants of this file; a typo is caught by the unit tests.
    Regex::new(pattern).unwrap_or_else(|e| panic!("build failure pattern {pattern}: {e}"))
}

static OOM: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"Killed signal terminated program|returned non-zero exit status -?9\b|fatal error: Killed|Out of memory|out of memory: Killed process",
    )
});
static DISK: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)no space left on device|disk quota exceeded"));
/// gcc/clang `file:line:col: error:`, nvcc `file(line): error:`.
static COMPILER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?P<file>[\w./+-]+\.(?:c|cc|cpp|cxx|cu|cuh|h|hpp|hh|inl))(?::(?P<line>\d+):\d+:|\((?P<nline>\d+)\):) (?:fatal )?error",
    )
});
static CMAKE: LazyLock<Regex> = LazyLock::new(|| re(r"CMake Error"));
static METADATA: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"metadata-generation-failed|Failed building (?:editable|wheel)|Failed to build|subprocess-exited-with-error|Preparing (?:editable )?metadata .* error",
    )
});

/// The first line of each kind, as the log streams past.
#[derive(Debug, Clone, Default)]
pub struct FailureScan {
    first: std::collections::BTreeMap<FailureKind, String>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Failure {
    pub kind: FailureKind,
    pub evidence: String,
    /// `file:line` of a compiler error.
    pub at: Option<String>,
}

fn kind_of(line: &str) -> Option<FailureKind> {
    [(&*OOM, FailureKind::Oom), (&*DISK, FailureKind::DiskFull), (&*COMPILER, FailureKind::Compiler)]
        .into_iter()
        .chain([(&*CMAKE, FailureKind::Cmake), (&*METADATA, FailureKind::Metadata)])
        .find_map(|(re, kind)| re.is_match(line).then_some(kind))
}

impl FailureScan {
    pub fn feed(&mut self, line: &str) {
        if let Some(kind) = kind_of(line) {
            self.first.entry(kind).or_insert_with(|| line.trim().chars().take(300).collect());
        }
    }

    /// The verdict for a step of `phase` that exited `code` (137: killed by the kernel).
    pub fn verdict(&self, code: i64, import_check: bool) -> Failure {
        let strongest = self.first.iter().next().map(|(k, e)| (*k, e.clone()));
        let (kind, evidence) = match strongest {
            _ if code == 137 => (
                FailureKind::Oom,
                "a step was killed (exit 137: SIGKILL, the kernel's OOM killer)".to_string(),
            ),
            Some(found) => found,
            None if import_check => (FailureKind::Import, format!("the import check exited {code}")),
            None => (FailureKind::Step, format!("a step exited {code}")),
        };
        let at = (kind == FailureKind::Compiler).then(|| file_line(&evidence)).flatten();
        Failure { kind, evidence, at }
    }
}

/// `csrc/ops.cu:12` from a compiler error line.
fn file_line(line: &str) -> Option<String> {
    let caps = COMPILER.captures(line)?;
    let n = caps.name("line").or(caps.name("nline"))?;
    Some(format!("{}:{}", &caps["file"], n.as_str()))
}

/// A MAX_JOBS that fits: the peak over the jobs that ran is what one job took at least (the
/// kernel killed one, so it wanted more), so no more than 3/4 of the room in such jobs, and at
/// most half of what was tried. `room`: the container's limit, else the daemon's memory.
pub fn suggest_max_jobs(peak: u64, room: u64, jobs: u32, nvcc_threads: u32) -> (u32, String) {
    let per_job = (peak / u64::from(jobs.max(1))).max(1);
    let fits = u32::try_from(room * 3 / 4 / per_job).unwrap_or(u32::MAX);
    let suggested = fits.min(jobs / 2).max(1);
    let why = format!(
        "MAX_JOBS={suggested}: the peak was {} over {jobs} jobs, at least {} a job, in {} of memory. \
         MAX_JOBS is the number of compilers at once: vLLM's setup.py divides it by NVCC_THREADS \
         (num_jobs // nvcc_threads) and this recipe removes that division, so each of the {jobs} \
         jobs ran nvcc with NVCC_THREADS={nvcc_threads} threads; lower NVCC_THREADS too if nvcc \
         was what the kernel killed.",
        super::units::human_bytes(peak),
        super::units::human_bytes(per_job),
        super::units::human_bytes(room),
    );
    (suggested, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(lines: &[&str], code: i64) -> Failure {
        let mut scan = FailureScan::default();
        lines.iter().for_each(|l| scan.feed(l));
        scan.verdict(code, false)
    }

    #[test]
    fn an_oom_kill_beats_what_fails_after_it() {
        let f = verdict(
            &[
                "  x86_64-linux-gnu-g++: fatal error: Killed signal terminated program cc1plus",
                "  ninja: build stopped: subcommand failed.",
                "  CMake Error at CMakeLists.txt:10 (message):",
                "  error: subprocess-exited-with-error",
            ],
            1,
        );
        assert_eq!(f.kind, FailureKind::Oom);
        assert!(f.evidence.contains("cc1plus"));
        assert_eq!(verdict(&["Building CXX object a.o"], 137).kind, FailureKind::Oom, "exit 137 alone");
        let nvcc = verdict(
            &[
                "subprocess.CalledProcessError: Command '['cmake', '--build']' returned non-zero exit status -9.",
            ],
            1,
        );
        assert_eq!(nvcc.kind, FailureKind::Oom);
    }

    #[test]
    fn compiler_errors_give_file_and_line_for_gcc_and_nvcc() {
        let gcc = verdict(
            &["/opt/vllm_baseline/csrc/ops.cpp:42:7: error: 'foo' was not declared in this scope"],
            1,
        );
        assert_eq!(
            (gcc.kind, gcc.at.as_deref()),
            (FailureKind::Compiler, Some("/opt/vllm_baseline/csrc/ops.cpp:42"))
        );
        let nvcc =
            verdict(&["csrc/attention/attention_kernels.cu(123): error: identifier \"x\" is undefined"], 2);
        assert_eq!(nvcc.at.as_deref(), Some("csrc/attention/attention_kernels.cu:123"));
    }

    #[test]
    fn cmake_metadata_disk_and_unknown_failures() {
        assert_eq!(verdict(&["CMake Error at CMakeLists.txt:3 (find_package):"], 1).kind, FailureKind::Cmake);
        assert_eq!(verdict(&["error: metadata-generation-failed"], 1).kind, FailureKind::Metadata);
        assert_eq!(verdict(&["  Failed building editable for vllm"], 1).kind, FailureKind::Metadata);
        assert_eq!(verdict(&["OSError: [Errno 28] No space left on device"], 1).kind, FailureKind::DiskFull);
        assert_eq!(verdict(&["something odd"], 4).kind, FailureKind::Step);
        let mut scan = FailureScan::default();
        scan.feed("ModuleNotFoundError: No module named 'vllm._C'");
        assert_eq!(scan.verdict(1, true).kind, FailureKind::Import);
    }

    #[test]
    fn the_max_jobs_suggestion_halves_at_least_and_explains_the_division() {
        // 8 jobs peaked at the 384 MiB limit: at least 48 MiB a job; 3/4 of 384 fits 6, half of 8 is 4.
        let (jobs, why) = suggest_max_jobs(384 << 20, 384 << 20, 8, 2);
        assert_eq!(jobs, 4);
        assert!(why.contains("num_jobs // nvcc_threads") && why.contains("NVCC_THREADS=2"), "{why}");
        // A 512 GiB box where 56 jobs peaked at 500 GiB: ~8.9 GiB a job, 3/4 of 512 GiB fits 43; half is 28.
        assert_eq!(suggest_max_jobs(500 << 30, 512 << 30, 56, 2).0, 28);
        assert_eq!(suggest_max_jobs(10 << 30, 1 << 30, 2, 1).0, 1, "never below one");
    }
}
