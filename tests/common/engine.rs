//! Real-engine test setup: the static mock-vLLM binary, busybox, and `FROM scratch` images whose
//! files reproduce real failure signatures. No registry is needed.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use perftriage::docker::{Engine, tar_of};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

pub const IMAGES: &[&str] = &["ok", "aimv2", "numpy2", "fa_utils"];
static BUILT: Mutex<bool> = Mutex::new(false);

/// The engine; a missing engine or busybox fails the test (`Option` for the callers' `let … else`).
pub fn engine(rt: &tokio::runtime::Runtime) -> Option<Engine> {
    let engine = rt.block_on(Engine::connect());
    let busybox = Path::new("/bin/busybox").exists();
    match (engine, busybox) {
        (Ok(e), true) => Some(e),
        (result, busybox) => {
            let why = format!("engine: {:?}, /bin/busybox present: {busybox}", result.err());
            // Tests that need them are #[ignore]d where they were missing at build time (build.rs).
            panic!(
                "Docker tests need a reachable engine and busybox-static ({why}): without them they fail, never pass"
            )
        }
    }
}

pub fn mock_binary() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = root.join("target/mock");
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "-q",
            "-p",
            "mockvllm",
            "--release",
            "--target",
            "x86_64-unknown-linux-gnu",
            "--target-dir",
        ])
        .arg(&target)
        // The checkout's path remapped: every checkout builds the same binary, so its images
        // are the same images (no rebuild, nothing left dangling).
        .env(
            "RUSTFLAGS",
            format!("-C target-feature=+crt-static --remap-path-prefix={}=/src", root.display()),
        )
        // `.ci/run` compiles the workspace through clippy's driver: not the mock, whose binary
        // (and so whose images) would then differ between CI and a plain `cargo nextest run`.
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .current_dir(root)
        .status()
        .unwrap();
    assert!(status.success(), "building the static mock failed");
    target.join("x86_64-unknown-linux-gnu/release/mockvllm")
}

const SITE: &str = "usr/local/lib/python3.12/dist-packages";

fn context(flavour: &str, mock: &[u8], busybox: &[u8]) -> Vec<u8> {
    let dockerfile = format!(
        "FROM scratch\nCOPY bin/busybox /bin/busybox\nCOPY mockvllm /usr/local/bin/mockvllm\nCOPY {SITE}/ /{SITE}/\n\
         RUN [\"/bin/busybox\", \"--install\", \"-s\", \"/bin\"]\n\
         RUN [\"/bin/sh\", \"-c\", \"mkdir -p /usr/bin /tmp && for n in python3 python pip pip3 vllm; do ln -s /usr/local/bin/mockvllm /usr/bin/$n; done\"]\n\
         ENV PATH=/usr/local/bin:/usr/bin:/bin\nLABEL perftriage.test={flavour}\n"
    );
    let ovis = if flavour == "aimv2" {
        "AutoConfig.register(\"aimv2\", AIMv2Config)\n"
    } else {
        "AutoConfig.register(\"aimv2\", AIMv2Config, exist_ok=True)\n"
    };
    let numpy = if flavour == "numpy2" { "version = \"2.2.6\"\n" } else { "version = \"1.26.4\"\n" };
    let ovis_path = format!("{SITE}/vllm/transformers_utils/configs/ovis.py");
    let numpy_path = format!("{SITE}/numpy/version.py");
    let init = format!("{SITE}/vllm/__init__.py");
    let attn_init = format!("{SITE}/vllm/vllm_flash_attn/__init__.py");
    let fa = format!("{SITE}/vllm/vllm_flash_attn/fa_utils.py");
    let mut entries: Vec<(&str, &[u8], u32)> = vec![
        ("Dockerfile", dockerfile.as_bytes(), 0o644),
        ("bin/busybox", busybox, 0o755),
        ("mockvllm", mock, 0o755),
        (&ovis_path, ovis.as_bytes(), 0o644),
        (&numpy_path, numpy.as_bytes(), 0o644),
        (&init, b"__version__ = '0.9.2.dev0+mock'\n", 0o644),
        (&attn_init, b"", 0o644),
    ];
    if flavour != "fa_utils" {
        entries.push((&fa, b"def flash_attn_supports_fp8():\n    return False\n", 0o644));
    }
    tar_of(&entries).unwrap()
}

/// The image id a tag names, if it names one.
fn image_id(tag: &str) -> Option<String> {
    let out = Command::new("docker").args(["image", "inspect", "-f", "{{.Id}}", tag]).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Build `perftriage-test/vllm:{ok,aimv2,numpy2,fa_utils}` once per test binary.
pub fn ensure_images(rt: &tokio::runtime::Runtime, engine: &Engine) {
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if *built {
        return;
    }
    // One test process builds them at a time: two at once on a machine without them made two
    // images of each tag, and the replaced one stayed (dangling) while a test of the other ran it.
    let _held = super::real::lock_image("perftriage-test/vllm");
    let mock = std::fs::read(mock_binary()).unwrap();
    let busybox = std::fs::read("/bin/busybox").unwrap();
    for flavour in IMAGES {
        let tag = format!("perftriage-test/vllm:{flavour}");
        let before = image_id(&tag);
        rt.block_on(engine.build(&tag, context(flavour, &mock, &busybox))).unwrap();
        // Another checkout's mock differs: the image it replaced would be left dangling.
        if let Some(old) = before.filter(|old| image_id(&tag).as_ref() != Some(old)) {
            let _ = Command::new("docker").args(["rmi", &old]).output(); // in use by a running test: kept
        }
    }
    *built = true;
}

/// A vLLM-like git checkout with `benchmarks/` at two commits: (repo, parent, human);
/// `fa_utils`: the text of `vllm/vllm_flash_attn/fa_utils.py` in both (a stand-in when `None`).
pub fn vllm_repo(dir: &Path, fa_utils: Option<&str>) -> (PathBuf, String, String) {
    let repo = dir.join("vllm");
    std::fs::create_dir_all(repo.join("benchmarks")).unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git").arg("-C").arg(&repo).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git(&["init", "-q"]);
    for (i, message) in ["parent", "human"].iter().enumerate() {
        for script in ["benchmark_serving.py", "benchmark_latency.py", "benchmark_throughput.py"] {
            // The mock reads only the name; a real python3 (the Debian images) runs the text.
            let text = format!(
                "# {message} {i}\nimport os, sys\nos.execv('/usr/local/bin/mockvllm', ['python3', *sys.argv])\n"
            );
            std::fs::write(repo.join("benchmarks").join(script), text).unwrap();
        }
        let fa = repo.join("vllm/vllm_flash_attn");
        std::fs::create_dir_all(&fa).unwrap();
        let stand_in = format!("# fa_utils at {message}\ndef flash_attn_supports_fp8():\n    return False\n");
        std::fs::write(fa.join("fa_utils.py"), fa_utils.map_or(stand_in, str::to_string)).unwrap();
        // The directory name makes each checkout's hashes its own, even within one second.
        std::fs::write(repo.join("README"), format!("{message} {}", dir.display())).unwrap();
        git(&["add", "-A"]);
        git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message]);
    }
    let human = git(&["rev-parse", "HEAD"]);
    let parent = git(&["rev-parse", "HEAD~1"]);
    (repo, parent, human)
}

pub struct Setup {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub short: String,
    pub config: PathBuf,
    /// The first 8 digits of the checkout's two commits: images tagged with either (in full or
    /// shortened: `perftriage-fixed-local:<short>-human`, baseline tags) are this setup's own.
    commits: [String; 2],
}

impl Drop for Setup {
    /// Removes every image tag the test made for its commits (fixed images, pushed and pulled
    /// copies), so a run of the suite leaves none behind.
    fn drop(&mut self) {
        let Ok(out) =
            Command::new("docker").args(["images", "--format", "{{.Repository}}:{{.Tag}}"]).output()
        else {
            return;
        };
        let listed = String::from_utf8_lossy(&out.stdout).into_owned();
        let ours: Vec<&str> =
            listed.lines().filter(|tag| self.commits.iter().any(|c| tag.contains(c.as_str()))).collect();
        if !ours.is_empty() {
            let removed = Command::new("docker").arg("rmi").arg("-f").args(&ours).output();
            let ok = removed.is_ok_and(|o| o.status.success());
            // A failed clean-up must not hide the test's own failure: it is said, not asserted.
            if !ok {
                eprintln!("could not remove this test's images {ours:?}");
            }
        }
    }
}

/// A runtime and the engine with the test images built; `None` (skipped) without an engine.
pub fn ready() -> Option<(tokio::runtime::Runtime, Engine)> {
    let rt = runtime();
    let engine = engine(&rt)?;
    ensure_images(&rt, &engine);
    Some((rt, engine))
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// A workspace, a one-commit dataset backed by a real git checkout, and a config.
pub fn setup(image: &str, command: &str, extra: &str) -> Setup {
    setup_with(image, command, extra, None)
}

/// `setup`, with the checkout's `fa_utils.py` given.
pub fn setup_with(image: &str, command: &str, extra: &str, fa_utils: Option<&str>) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let (repo, parent, human) = vllm_repo(&root, fa_utils);
    let commits = [human[..8].to_string(), parent[..8].to_string()];
    let short = human[..8].to_string();
    let mut row: serde_json::Value =
        serde_json::from_str(perftriage::dataset::EMBEDDED.lines().next().unwrap()).unwrap();
    row["short"] = short.clone().into();
    row["full"] = human.clone().into();
    row["parent"] = parent.clone().into();
    row["item_id"] = "vllm_core-9999".into();
    row["perf_command"] = serde_json::json!({ "dataset": command, "executed": null });
    row["gpu"] = serde_json::Value::Null;
    row["images"] = serde_json::json!({ "human_override": null });
    row["outcomes"] = serde_json::json!({});
    std::fs::write(root.join("dataset.jsonl"), format!("{row}\n")).unwrap();
    let config = root.join("config.toml");
    // `extra` may set its own timeouts (a real engine starts slower than the mock).
    let timeouts =
        if extra.contains("ready_timeout_s") { "" } else { "ready_timeout_s = 60\nrun_timeout_s = 180\n" };
    let text = format!(
        "dataset = \"{ds}\"\n[images]\nhuman = \"perftriage-test/vllm:ok\"\nbaseline = \"perftriage-test/vllm:ok\"\n\
         [runs]\ngpus = \"none\"\nvllm_repo = \"{repo}\"\n{timeouts}patches = \"{patches}\"\n{extra}\n\
         [runs.image_overrides]\n\"{short}\" = \"{image}\"\n",
        ds = root.join("dataset.jsonl").display(),
        repo = repo.display(),
        patches = root.join("patches").display(),
    );
    std::fs::write(&config, text).unwrap();
    std::fs::create_dir_all(root.join("patches")).unwrap();
    Setup { _dir: dir, root, short, config, commits }
}

pub fn run(setup: &Setup, variant: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--config")
        .arg(&setup.config)
        .arg("--workspace")
        .arg(setup.root.join("ws"))
        .args(["run", &setup.short, "--variant", variant])
        .env("HF_TOKEN", "hf_test_secret_token_value")
        .output()
        .unwrap()
}

pub fn result(setup: &Setup, variant: &str) -> serde_json::Value {
    let path = setup.root.join("ws/results").join(format!("{}_{variant}_result.json", setup.short));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// `perftriage --config … --workspace … ARGS` for a setup.
pub fn perftriage(setup: &Setup, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--config")
        .arg(&setup.config)
        .arg("--workspace")
        .arg(setup.root.join("ws"))
        .args(args)
        .output()
        .unwrap()
}

/// `docker ARGS`' trimmed stdout; a command that fails fails the test (an empty answer is only
/// ever a real one).
pub fn docker(args: &[&str]) -> String {
    let out = Command::new("docker").args(args).output().unwrap();
    assert!(out.status.success(), "docker {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Both streams of a command's output.
pub fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}
