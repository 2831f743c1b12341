//! Config and themes: partial overrides, and errors that name file, line and field.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use perftriage::app::{Action, Key, KeyMode};
use perftriage::config::Config;
use perftriage::session::keymap;
use perftriage::ui::Theme;
use std::path::Path;

#[test]
fn keys_images_and_theme_override_defaults() {
    let text = "theme = \"light\"\n[images]\nhuman = \"mirror/vllm:{full}\"\n[keys]\nmark_skip = [\"x\", \"ctrl-k\"]\n";
    let config = Config::parse(text, Path::new("c.toml")).unwrap();
    assert_eq!(config.theme.as_deref(), Some("light"));
    assert_eq!(config.images.human, "mirror/vllm:{full}");
    assert_eq!(
        config.images.baseline, "anonymous/vllm-baseline:baseline-{parent12}",
        "unset fields keep defaults"
    );
    let keymap = keymap(&config, None).unwrap();
    assert_eq!(keymap.action(KeyMode::Board, Key::ch('x')), Some(Action::MarkSkip));
    assert_eq!(keymap.action(KeyMode::Board, Key::ctrl('k')), Some(Action::MarkSkip));
    assert_eq!(keymap.action(KeyMode::Board, Key::ch('z')), None);
    assert_eq!(keymap.action(KeyMode::Board, Key::ch('j')), Some(Action::Down), "other actions keep theirs");
    assert!(
        keymap.warnings.iter().any(|w| w.contains("`x`") && w.contains("cancel_run")),
        "{:?}",
        keymap.warnings
    );
}

#[test]
fn an_unknown_field_names_file_line_and_field() {
    let err = Config::parse("theme = \"default\"\n\n[images]\nhumn = \"x\"\n", Path::new("/etc/p.toml"))
        .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("/etc/p.toml") && msg.contains("line 4") && msg.contains("humn"), "{msg}");
}

#[test]
fn an_unknown_action_or_key_is_named() {
    let bad = |text: &str| {
        let path = Path::new("k.toml");
        keymap(&Config::parse(text, path).unwrap(), Some(path)).unwrap_err().to_string()
    };
    let err = bad("[keys]\nmark_unfixabel = [\"u\"]\n");
    assert!(err.contains("k.toml") && err.contains("line 2") && err.contains("mark_unfixabel"), "{err}");
    let err = bad("[keys]\nquit = [\"hyper-q\"]\n");
    assert!(err.contains("hyper-q") && err.contains("quit"), "{err}");
    let err = bad("[keys.confirm]\nmark_skip = [\"s\"]\n");
    assert!(err.contains("mark_skip") && err.contains("confirm"), "{err}");
}

#[test]
fn every_embedded_theme_loads_and_a_bad_colour_is_named() {
    for name in Theme::names() {
        Theme::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let bad =
        std::fs::read_to_string("themes/default.toml").unwrap().replace("fg = \"green\"", "fg = \"grean\"");
    let err = Theme::parse(&bad, "mine.toml").unwrap_err().to_string();
    assert!(err.contains("mine.toml") && err.contains("roles.ok") && err.contains("grean"), "{err}");
    assert!(Theme::load("no-such-theme").unwrap_err().to_string().contains("default, light, monochrome"));
}

#[test]
fn a_build_knob_with_a_typo_is_named_and_overrides_parse() {
    let path = std::path::Path::new("build.toml");
    let err = perftriage::config::Config::parse("[build]\nmax_jbos = 3\n", path).unwrap_err().to_string();
    assert!(err.contains("unknown field `max_jbos`"), "{err}");
    let err = perftriage::config::Config::parse("[build.commits.abcd1234]\nnvcc_thread = 1\n", path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 2") && err.contains("nvcc_thread"), "{err}");
    let text =
        "[build]\nmax_jobs = 8\nmemory_gb = 64.0\n[build.commits.abcd1234]\nmax_jobs = 4\npre = [\"true\"]\n";
    let config = perftriage::config::Config::parse(text, path).unwrap();
    assert_eq!(config.build.max_jobs, Some(8));
    assert_eq!(config.build.commits["abcd1234"].max_jobs, Some(4));
    assert_eq!(config.build.memory_limit(), Some(64 << 30));
}

/// The plan `[build]` text gives a commit (its knobs and every step as `build --plan` shows it).
fn planned(build: &str) -> (perftriage::builds::Knobs, String) {
    use perftriage::builds::{BuildPlan, KnobSet, Machine};
    let config = perftriage::config::Config::parse(build, std::path::Path::new("build.toml")).unwrap();
    let machine = Machine { cpus: 16, memory_bytes: 64 << 30 };
    let knobs = config.build.knobs_for("abcd1234", "0123456789ab", &KnobSet::default(), machine);
    let plan = BuildPlan::new(
        "abcd1234",
        "0123456789ab",
        "human:img",
        "base:img",
        "/opt/vllm_baseline",
        knobs.clone(),
    );
    (knobs, plan.describe("/src/vllm").join("\n"))
}

#[test]
fn a_build_table_holding_one_knob_keeps_every_other_default() {
    // `[build] max_jobs = 16`, as the README suggests: every other knob is the recipe's.
    let (whole, whole_plan) = planned("");
    let (one, plan) = planned("[build]\nmax_jobs = 16\n");
    assert_eq!(one.max_jobs, 16);
    assert_eq!(one.nvcc_threads, 2, "NVCC_THREADS");
    assert_eq!(one.cuda_arch, "9.0", "TORCH_CUDA_ARCH_LIST");
    assert_eq!(one.timeout_s, 5400, "the build's timeout");
    assert_eq!(one.toolkit, ["git", "cuda-toolkit-12-4"], "the CUDA toolkit step");
    assert!(
        one.build_deps.contains(&"numpy<2".to_string()),
        "the build-dependency step: {:?}",
        one.build_deps
    );
    assert_eq!(one.pins, ["git+https://github.com/NICTA/pyairports.git"], "the pins");
    assert_eq!(one.imports, ["vllm", "vllm._C"], "the import check");
    for line in [
        "TORCH_CUDA_ARCH_LIST=9.0",
        "CUDA_HOME=/usr/local/cuda",
        "NVCC_THREADS=2",
        "export PATH=/usr/local/cuda/bin:$PATH",
        "apt-get",
        "pip install -q 'setuptools'",
        "pyairports",
        "python3 -c 'import vllm, vllm._C'",
    ] {
        assert!(plan.contains(line), "{line} kept: {plan}");
        assert!(whole_plan.contains(line), "{line} by default: {whole_plan}");
    }
    assert_eq!(whole.nvcc_threads, one.nvcc_threads);
    // Each knob set alone changes that knob only.
    let (arch, _) = planned("[build]\ncuda_arch = \"8.0\"\n");
    assert_eq!((arch.cuda_arch.as_str(), arch.nvcc_threads, arch.imports.len()), ("8.0", 2, 2));
    let (pins, _) = planned("[build]\npins = []\n");
    assert!(pins.pins.is_empty() && pins.toolkit.len() == 2, "{pins:?}");
}

#[test]
fn a_bad_build_value_is_named_at_its_own_line() {
    let path = std::path::Path::new("build.toml");
    let err =
        perftriage::config::Config::parse("[build]\nstall_s = 10\nmax_jobs = \"x\"\n", path).unwrap_err();
    assert!(err.to_string().contains("line 3"), "{err}");
    let err = perftriage::config::Config::parse("[build]\nstall_s = 10\nmax_job = 3\n", path).unwrap_err();
    let said = err.to_string();
    assert!(said.contains("line 3") && said.contains("max_job") && said.contains("max_jobs"), "{said}");
}

#[test]
fn every_knob_out_of_its_range_is_refused_at_its_own_line_with_the_range() {
    let path = std::path::Path::new("hostile.toml");
    let cases = [
        ("[runs]\nconcurrency = 0\n", 2, "concurrency", "at least 1"),
        ("log_ring = 0\n", 1, "log_ring", "at least 1"),
        ("[runs]\nshm_gb = 0\n", 2, "shm_gb", "at least 1"),
        ("[runs]\nready_timeout_s = 0\n", 2, "ready_timeout_s", "at least 1"),
        ("[runs]\nrun_timeout_s = 0\n", 2, "run_timeout_s", "at least 1"),
        ("[runs]\nwarmup = 4000000000\n", 2, "warmup", "from 0 to 100"),
        ("[runs]\npull_estimate_gb = -1e308\n", 2, "pull_estimate_gb", "from 0 to 1048576"),
        ("[runs]\ndisk_reserve_gb = nan\n", 2, "disk_reserve_gb", "from 0 to 1048576"),
        ("[build]\ngib_per_job = -3.0\n", 2, "gib_per_job", "from 0 to 1048576"),
        ("[build]\nmemory_gb = -1.0\n", 2, "memory_gb", "from 0 to 1048576"),
        ("[build]\nexpected_gb = inf\n", 2, "expected_gb", "from 0 to 1048576"),
        ("[build]\nmax_jobs = 0\n", 2, "max_jobs", "at least 1"),
        ("[build.commits.abcd1234]\nnvcc_threads = 0\n", 2, "nvcc_threads", "at least 1"),
        ("[slurm]\ngpu_flag = \"x\"\n", 2, "gpu_flag", "gres or gpus"),
        ("[slurm]\nshared_dir = \"runs/shared\"\n", 2, "shared_dir", "absolute directory"),
        ("[slurm]\nshared_dir = \"/\"\n", 2, "shared_dir", "absolute directory"),
        ("[slurm]\nshared_dir = \"/srv/../etc\"\n", 2, "shared_dir", "without .."),
        ("[slurm]\nperftriage = \"\"\n", 2, "perftriage", "an empty path"),
        (
            "[runs.image_overrides]\n\"7c01f706\" = \"anonymous/vllm-baseline:abc\\n#evil\"\n",
            2,
            "7c01f706",
            "whitespace",
        ),
        ("[runs.image_overrides]\n\"7c01f706\" = \"a b:c\"\n", 2, "7c01f706", "whitespace"),
        ("[runs.image_overrides]\n\"7c01f706\" = \"Upper/Case:x\"\n", 2, "7c01f706", "lower case"),
        (
            "[runs.image_overrides]\n\"7c01f706\" = \"--privileged\"\n",
            2,
            "7c01f706",
            "not an image reference",
        ),
        ("[images]\nhuman = \"anonymous/x:{nope}\"\n", 2, "human", "`{nope}` is no variable"),
        ("[images]\nbaseline = \"anonymous/x y:{short}\"\n", 2, "baseline", "whitespace"),
    ];
    for (text, line, key, range) in cases {
        let err = perftriage::config::Config::parse(text, path).unwrap_err().to_string();
        let said = format!("line {line}, column");
        assert!(err.contains("hostile.toml") && err.contains(&said), "{text:?}: {err}");
        assert!(err.contains(&format!("`{key}`")) && err.contains(range), "{text:?}: {err}");
    }
    // The defaults and sensible values still load.
    let fine = "[runs]\nconcurrency = 2\nwarmup = 1\ndisk_reserve_gb = 0\n[slurm]\nshared_dir = \"/srv/runs\"\ngpu_flag = \"gpus\"\n[images]\nhuman = \"registry.local:5000/vllm:{full}\"\n";
    perftriage::config::Config::parse(fine, path).unwrap();
}

#[test]
fn build_flags_out_of_range_are_refused_not_clamped() {
    for flag in ["--max-jobs", "--nvcc-threads", "--timeout"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
            .args(["build", "7c01f706", flag, "0", "--plan"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag} 0: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn values_that_reach_a_shell_or_python_line_are_refused_outside_their_grammar() {
    let path = std::path::Path::new("hostile.toml");
    let cases = [
        ("[build]\ntoolkit = [\"cuda-toolkit-12-4; touch /tmp/x\"]\n", "toolkit", "Debian package name"),
        (
            "[build]\nimports = [\"vllm'); import os; os.system('touch /tmp/x'); ('\"]\n",
            "imports",
            "Python module name",
        ),
        ("[build]\ncuda_arch = \"$(touch /tmp/x)\"\n", "cuda_arch", "CUDA architectures"),
        ("[build]\ncuda_arch = \"9.0\\nEVIL=1\"\n", "cuda_arch", "CUDA architectures"),
        ("[build]\nenv = [\"A B=1\"]\n", "env", "NAME=value"),
        ("[build.commits.abcd1234]\ntoolkit = [\"x`id`\"]\n", "toolkit", "Debian package name"),
    ];
    for (text, key, grammar) in cases {
        let err = perftriage::config::Config::parse(text, path).unwrap_err().to_string();
        assert!(
            err.contains("line 2") && err.contains(&format!("`{key}`")) && err.contains(grammar),
            "{text:?}: {err}"
        );
    }
    let fine = "[build]\ntoolkit = [\"git\", \"cuda-toolkit-11-8\"]\nimports = [\"vllm\", \"vllm._C\"]\ncuda_arch = \"8.0;9.0+PTX\"\nenv = [\"CCACHE_DIR=/cache dir\"]\n";
    perftriage::config::Config::parse(fine, path).unwrap();
}

#[test]
fn a_report_cell_a_spreadsheet_would_run_is_kept_as_text() {
    let ws = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
            .args(["--workspace", ws.path().to_str().unwrap()])
            .args(args)
            .output()
            .unwrap()
    };
    assert!(run(&["mark", "7c01f706", "--unfixable", "=HYPERLINK(\"http://x\",\"y\")"]).status.success());
    let csv = String::from_utf8_lossy(&run(&["report", "--format", "csv"]).stdout).into_owned();
    let row = csv.lines().find(|l| l.contains("HYPERLINK")).unwrap();
    assert!(row.contains(",\"'=HYPERLINK(") && !row.contains(",=HYPERLINK"), "{row}");
}

#[test]
fn an_empty_cuda_arch_sets_none() {
    let config =
        perftriage::config::Config::parse("[build]\ncuda_arch = \"\"\n", std::path::Path::new("c.toml"));
    assert_eq!(config.unwrap().build.cuda_arch.as_deref(), Some(""));
}

/// A config that is a FIFO hung the load (read waited for a writer); one that is a symlink to
/// `/dev/zero` grew without end. Both are refused at once, named; a symlink to a real config is
/// still followed (configs are often kept elsewhere).
#[test]
fn a_config_that_is_a_fifo_or_a_device_is_refused_at_once_and_a_symlinked_one_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.toml");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let zero = dir.path().join("zero.toml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    for config in [&fifo, &zero] {
        let err = Config::load(Some(config)).unwrap_err().to_string();
        assert!(
            err.contains("is not a regular file") && err.contains(&config.display().to_string()),
            "{err}"
        );
    }
    let real = dir.path().join("real.toml");
    std::fs::write(&real, "theme = \"default\"\n").unwrap();
    let linked = dir.path().join("linked.toml");
    std::os::unix::fs::symlink(&real, &linked).unwrap();
    assert!(Config::load(Some(&linked)).is_ok());
    let big = dir.path().join("big.toml");
    std::fs::write(&big, format!("# {}\n", "x".repeat(2 << 20))).unwrap();
    assert!(Config::load(Some(&big)).unwrap_err().to_string().contains("is over 1048576 bytes"));
}
