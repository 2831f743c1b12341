//! The baseline recipe as exact steps: ISO-Bench's `build_baseline_images_v2.py` (REPORT.md §3.1)
//! with the source from the operator's checkout (`git archive` of the parent, never a clone) and
//! pip's build output shown (`-v`), so ninja's `[N/M]` lines reach the log.

use super::knobs::Knobs;
use crate::ids::{ImageRef, Short};

/// Where a build is; the executor moves through them in order (link is seen in the compile's log).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Phase {
    Toolkit,
    Source,
    Deps,
    Compile,
    Link,
    Pins,
    ImportCheck,
    Commit,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Toolkit => "toolkit install",
            Phase::Source => "source upload",
            Phase::Deps => "dependency install",
            Phase::Compile => "compile",
            Phase::Link => "link",
            Phase::Pins => "pins",
            Phase::ImportCheck => "import check",
            Phase::Commit => "commit",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// `sh -c` in the source folder.
    Shell(String),
    /// The parent's tree, `git archive`d from the checkout, unpacked into the source folder.
    Upload,
    /// The container committed as the target image with the build's labels.
    Commit,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BuildStep {
    pub phase: Phase,
    pub action: Action,
}

/// One baseline build: from the human image, the parent's source, to the image baseline runs use.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildPlan {
    pub short: Short,
    pub parent: String,
    pub from_image: ImageRef,
    pub image: ImageRef,
    pub dir: String,
    pub knobs: Knobs,
    pub env: Vec<String>,
    pub steps: Vec<BuildStep>,
}

/// `cuda-toolkit-12-4` → `/usr/local/cuda-12.4`.
fn cuda_home(toolkit: &[String]) -> Option<String> {
    let version = toolkit.iter().find_map(|p| p.strip_prefix("cuda-toolkit-"))?;
    Some(format!("/usr/local/cuda-{}", version.replace('-', ".")))
}

fn quoted(words: &[String]) -> String {
    words.iter().map(|w| format!("'{}'", w.replace('\'', r"'\''"))).collect::<Vec<_>>().join(" ")
}

fn toolkit_step(knobs: &Knobs) -> Option<String> {
    if knobs.toolkit.is_empty() {
        return None;
    }
    let mut script = format!(
        "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends {}",
        quoted(&knobs.toolkit)
    );
    if let Some(home) = cuda_home(&knobs.toolkit) {
        script.push_str(&format!(" && ln -sfn {home} /usr/local/cuda"));
    }
    Some(script)
}

/// vLLM's setup.py runs `MAX_JOBS // NVCC_THREADS` jobs; ISO-Bench's recipe removes the division
/// so MAX_JOBS is the number of compilers (each nvcc then runs NVCC_THREADS threads).
const UNDIVIDE: &str = "if [ -f setup.py ] && grep -q 'num_jobs // nvcc_threads' setup.py; then \
     sed -i 's|num_jobs // nvcc_threads|num_jobs|' setup.py; fi";

fn compile_steps(knobs: &Knobs) -> Vec<String> {
    let path =
        if cuda_home(&knobs.toolkit).is_some() { "export PATH=/usr/local/cuda/bin:$PATH && " } else { "" };
    vec![UNDIVIDE.to_string(), format!("{path}python3 -m pip install -v -e . --no-build-isolation")]
}

fn pins_steps(knobs: &Knobs, dir: &str) -> Vec<String> {
    let aimv2 = format!(
        "for f in {dir}/vllm/transformers_utils/configs/ovis*.py; do [ -f \"$f\" ] || continue; \
         grep -q 'exist_ok=True' \"$f\" || sed -i 's/AutoConfig.register(\"aimv2\", AIMv2Config)/\
         AutoConfig.register(\"aimv2\", AIMv2Config, exist_ok=True)/' \"$f\"; done"
    );
    let mut steps = vec![aimv2];
    if !knobs.pins.is_empty() {
        steps.push(format!("python3 -m pip install -q {}", quoted(&knobs.pins)));
    }
    steps
}

/// The environment of every step: the compile knobs as vLLM's build reads them, then `env`.
fn step_env(knobs: &Knobs, parent: &str) -> Vec<String> {
    let jobs = knobs.max_jobs;
    let mut env = vec![
        format!("MAX_JOBS={jobs}"),
        format!("NVCC_THREADS={}", knobs.nvcc_threads),
        format!("CMAKE_BUILD_PARALLEL_LEVEL={jobs}"),
        format!("VLLM_MAX_JOBS={jobs}"),
        // No .git in an archive: setuptools_scm would fail to find a version.
        format!("SETUPTOOLS_SCM_PRETEND_VERSION=0.0.0+baseline.{}", parent.get(..12).unwrap_or(parent)),
        "PIP_ROOT_USER_ACTION=ignore".into(),
        "PIP_DISABLE_PIP_VERSION_CHECK=1".into(),
        "PIP_PROGRESS_BAR=off".into(),
    ];
    if !knobs.cuda_arch.is_empty() {
        env.push(format!("TORCH_CUDA_ARCH_LIST={}", knobs.cuda_arch));
    }
    if cuda_home(&knobs.toolkit).is_some() {
        env.push("CUDA_HOME=/usr/local/cuda".into());
    }
    env.extend(knobs.env.iter().cloned());
    env
}

impl BuildPlan {
    pub fn new(
        short: &str,
        parent: &str,
        from_image: &str,
        image: &str,
        dir: &str,
        knobs: Knobs,
    ) -> BuildPlan {
        let shell = |phase, script: String| BuildStep { phase, action: Action::Shell(script) };
        let mut steps: Vec<BuildStep> =
            toolkit_step(&knobs).map(|s| shell(Phase::Toolkit, s)).into_iter().collect();
        steps.push(BuildStep { phase: Phase::Source, action: Action::Upload });
        steps.extend(knobs.pre.iter().map(|s| shell(Phase::Source, s.clone())));
        if !knobs.build_deps.is_empty() {
            steps
                .push(shell(Phase::Deps, format!("python3 -m pip install -q {}", quoted(&knobs.build_deps))));
        }
        steps.push(shell(Phase::Deps, "python3 -m pip uninstall -y -q vllm || true".into()));
        steps.extend(compile_steps(&knobs).into_iter().map(|s| shell(Phase::Compile, s)));
        steps.extend(pins_steps(&knobs, dir).into_iter().map(|s| shell(Phase::Pins, s)));
        let check = format!("cd / && python3 -c 'import {}'", knobs.imports.join(", "));
        steps.push(shell(Phase::ImportCheck, check));
        steps.push(BuildStep { phase: Phase::Commit, action: Action::Commit });
        BuildPlan {
            env: step_env(&knobs, parent),
            short: short.into(),
            parent: parent.into(),
            from_image: from_image.into(),
            image: image.into(),
            dir: dir.into(),
            knobs,
            steps,
        }
    }

    /// Each step as the confirm and `build --plan` show it.
    pub fn describe(&self, checkout: &str) -> Vec<String> {
        let mut lines = vec![
            format!("from {} (the human image)", self.from_image),
            format!("env {}", self.env.join(" ")),
        ];
        lines.extend(self.steps.iter().map(|step| {
            let what = match &step.action {
                Action::Shell(script) => format!("$ {script}"),
                Action::Upload => format!("git archive {} of {checkout} → {}", self.parent, self.dir),
                Action::Commit => {
                    format!("commit as {} (labels: parent, recipe, knobs, duration, version)", self.image)
                }
            };
            format!("{:<18} {what}", step.phase.name())
        }));
        lines
    }

    /// A short hash of the steps and their environment: two builds with one recipe share it,
    /// whatever toolchain built the tool.
    pub fn recipe_id(&self) -> String {
        let steps = self.steps.iter().map(|s| format!("{s:?}"));
        let parts: Vec<String> = self.env.iter().cloned().chain(steps).collect();
        crate::files::stable_id(&parts.iter().map(String::as_bytes).collect::<Vec<_>>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builds::{BuildConfig, KnobSet, Machine};

    const H100_BOX: Machine = Machine { cpus: 52, memory_bytes: 512 << 30 };

    fn plan_for(parent: &str, changes: &KnobSet) -> BuildPlan {
        let knobs = BuildConfig::default().knobs_for("abcd1234", &parent[..12], changes, H100_BOX);
        BuildPlan::new(
            "abcd1234",
            parent,
            "anonymous/vllm-bench:full",
            "anonymous/vllm-baseline:baseline-x",
            "/opt/vllm_baseline",
            knobs,
        )
    }

    fn scripts(plan: &BuildPlan, phase: Phase) -> Vec<String> {
        let shell = |s: &BuildStep| match &s.action {
            Action::Shell(script) if s.phase == phase => Some(script.clone()),
            _ => None,
        };
        plan.steps.iter().filter_map(shell).collect()
    }

    #[test]
    fn the_cuda_recipe_installs_the_toolkit_sets_the_arch_list_and_undoes_the_jobs_division() {
        let plan = plan_for("0123456789abcdef0123456789abcdef01234567", &KnobSet::default());
        assert_eq!(
            scripts(&plan, Phase::Toolkit),
            [
                "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends 'git' 'cuda-toolkit-12-4' && ln -sfn /usr/local/cuda-12.4 /usr/local/cuda"
            ]
        );
        for env in [
            "TORCH_CUDA_ARCH_LIST=9.0",
            "CUDA_HOME=/usr/local/cuda",
            "NVCC_THREADS=2",
            "MAX_JOBS=52",
            "CMAKE_BUILD_PARALLEL_LEVEL=52",
            "SETUPTOOLS_SCM_PRETEND_VERSION=0.0.0+baseline.0123456789ab",
        ] {
            assert!(plan.env.contains(&env.to_string()), "{env}: {:?}", plan.env);
        }
        let compile = scripts(&plan, Phase::Compile);
        assert!(compile[0].contains("sed -i 's|num_jobs // nvcc_threads|num_jobs|' setup.py"), "{compile:?}");
        assert_eq!(
            compile[1],
            "export PATH=/usr/local/cuda/bin:$PATH && python3 -m pip install -v -e . --no-build-isolation"
        );
        assert_eq!(scripts(&plan, Phase::ImportCheck), ["cd / && python3 -c 'import vllm, vllm._C'"]);
        let pins = scripts(&plan, Phase::Pins);
        assert!(pins[0].contains("AutoConfig.register(\"aimv2\", AIMv2Config, exist_ok=True)"), "{pins:?}");
        assert_eq!(pins[1], "python3 -m pip install -q 'git+https://github.com/NICTA/pyairports.git'");
        assert_eq!(plan.steps.last().map(|s| &s.action), Some(&Action::Commit));
    }

    #[test]
    fn upstream_per_parent_settings_apply_and_changes_from_the_board_win() {
        let old = plan_for("51c31bc10ca7000000000000000000000000000", &KnobSet::default());
        assert!(
            scripts(&old, Phase::Toolkit)[0]
                .contains("'cuda-toolkit-11-8' && ln -sfn /usr/local/cuda-11.8 /usr/local/cuda")
        );
        let py313 = plan_for("9bde5ba12709000000000000000000000000000", &KnobSet::default());
        assert_eq!(scripts(&py313, Phase::Source), ["sed -i 's/<=3.12/<3.13/g' pyproject.toml"]);
        let stubs = plan_for(
            "7206ce4ce112000000000000000000000000000",
            &KnobSet { max_jobs: Some(6), ..KnobSet::default() },
        );
        assert!(stubs.env.contains(&"LIBRARY_PATH=/usr/local/cuda/lib64/stubs".to_string()));
        assert!(stubs.env.contains(&"MAX_JOBS=6".to_string()));
    }

    #[test]
    fn default_jobs_follow_memory_and_cpus() {
        let config = BuildConfig::default();
        assert_eq!(config.default_jobs(Machine { cpus: 52, memory_bytes: 64 << 30 }), 16, "4 GiB a job");
        assert_eq!(
            config.default_jobs(Machine { cpus: 2, memory_bytes: 24 << 30 }),
            2,
            "never more than the CPUs"
        );
        assert_eq!(config.default_jobs(Machine { cpus: 8, memory_bytes: 1 << 30 }), 1);
    }

    #[test]
    fn the_plan_describes_every_step_and_its_recipe_id_follows_the_knobs() {
        let plan = plan_for("0123456789abcdef0123456789abcdef01234567", &KnobSet::default());
        let text = plan.describe("/src/vllm").join("\n");
        assert!(
            text.contains(
                "git archive 0123456789abcdef0123456789abcdef01234567 of /src/vllm → /opt/vllm_baseline"
            ),
            "{text}"
        );
        assert!(text.contains("commit as anonymous/vllm-baseline:baseline-x"), "{text}");
        let fewer = plan_for(
            "0123456789abcdef0123456789abcdef01234567",
            &KnobSet { max_jobs: Some(8), ..KnobSet::default() },
        );
        assert_ne!(plan.recipe_id(), fewer.recipe_id());
    }
}
