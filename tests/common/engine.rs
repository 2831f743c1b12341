//! Real-engine test setup: the engine, a workspace and config around one of the mock-vLLM images
//! (`mock_images`), headless runs and their results. No registry is needed.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use perftriage::docker::Engine;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub use super::mock_images::ensure_images;

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
    /// The checkout's two commits in full: the human's (HEAD) and its parent.
    pub full: [String; 2],
    pub config: PathBuf,
    /// The first 8 digits of the checkout's two commits: images tagged with either (in full or
    /// shortened: `perftriage-fixed-local:<short>-human`, baseline tags) are this setup's own.
    commits: Vec<String>,
}

impl Setup {
    /// Images tagged with `commit` (a short hash the test added) are this setup's too.
    pub fn owns(&mut self, commit: &str) {
        self.commits.push(commit.to_string());
    }
}

impl Drop for Setup {
    /// Removes every container of its workspace (a test that failed midway leaves none running)
    /// and every image tag the test made for its commits (fixed images, pushed and pulled
    /// copies), so a run of the suite leaves none behind.
    fn drop(&mut self) {
        let ws = self.root.join("ws");
        // A driver the board started in a process group of its own outlives the board's tmux:
        // every perftriage still working on this workspace goes first, so none creates a
        // container after the sweep below.
        let _ = Command::new("pkill")
            .args(["-KILL", "-f"])
            .arg(format!("--workspace {}( |$)", ws.display()))
            .output();
        let label = format!("label=perftriage.workspace={}", ws.display());
        if let Ok(out) = Command::new("docker").args(["ps", "-aq", "--filter", &label]).output() {
            let ids = String::from_utf8_lossy(&out.stdout).into_owned();
            if !ids.trim().is_empty() {
                let _ = Command::new("docker").args(["rm", "-f"]).args(ids.split_whitespace()).output();
            }
        }
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
    let commits = vec![human[..8].to_string(), parent[..8].to_string()];
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
    Setup { _dir: dir, root, short, full: [human, parent], config, commits }
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
    result_of(setup, &setup.short, variant)
}

/// The result file of `short`'s `variant` in the setup's workspace, once it is there (a board
/// shows a run's end a moment before its result file is written; the file appears whole).
pub fn result_of(setup: &Setup, short: &str, variant: &str) -> serde_json::Value {
    let path = setup.root.join("ws/results").join(format!("{short}_{variant}_result.json"));
    let limit = std::time::Duration::from_secs(60);
    let bytes = super::wait::until(&format!("{}", path.display()), limit, || {
        std::fs::read(&path).map_err(|e| e.to_string())
    });
    serde_json::from_slice(&bytes).unwrap()
}

/// The tag a fix of the setup's commit commits `variant` as, in `repo` (`None`: the local one of
/// re-runs), for the setup's workspace.
pub fn fixed_tag(setup: &Setup, variant: perftriage::dataset::Variant, repo: Option<&str>) -> String {
    let text = perftriage::dataset::DatasetText::read(&setup.root.join("dataset.jsonl")).unwrap();
    let commit = text.head(usize::MAX).unwrap().0.commits.remove(0);
    let owner = perftriage::fixes::Owner::of(&setup.root.join("ws"));
    let (repo, tag) = perftriage::fixes::commit_target(&commit, variant, repo, &owner);
    format!("{repo}:{tag}")
}

/// `perftriage --config … --workspace … ARGS` for a setup.
pub fn perftriage(setup: &Setup, args: &[&str]) -> Output {
    command(setup, args).output().unwrap()
}

/// `perftriage`, started and left running (its output discarded).
pub fn spawn_perftriage(setup: &Setup, args: &[&str]) -> std::process::Child {
    let mut command = command(setup, args);
    command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    command.spawn().unwrap()
}

/// `perftriage ARGS` on the setup, started with its stderr piped and watched.
pub fn watched_perftriage(setup: &Setup, args: &[&str]) -> super::wait::Watched {
    let mut command = command(setup, args);
    command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    super::wait::Watched::new(command.spawn().unwrap())
}

fn command(setup: &Setup, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_perftriage"));
    command.arg("--config").arg(&setup.config).arg("--workspace").arg(setup.root.join("ws")).args(args);
    command
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

/// The board's job service on the setup's workspace, connected to Docker, and its messages.
pub fn board_jobs(
    rt: &tokio::runtime::Runtime,
    s: &Setup,
) -> (perftriage::jobs::service::JobService, tokio::sync::mpsc::UnboundedReceiver<perftriage::app::Msg>) {
    use perftriage::app::Msg;
    let (config, _) = perftriage::config::Config::load(Some(&s.config)).unwrap();
    let text = perftriage::dataset::DatasetText::read(&s.root.join("dataset.jsonl")).unwrap();
    let commits = text.head(usize::MAX).unwrap().0.commits;
    let setup =
        super::job_setup(s.root.join("ws"), config.runs.clone(), config.images.clone(), config.fixed_repo());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let jobs = rt.block_on(async {
        let jobs = perftriage::jobs::service::JobService::new(setup, commits.iter().collect(), tx);
        jobs.connect_forever();
        jobs
    });
    let connected = |msg: &Msg| matches!(msg, Msg::Docker(perftriage::app::DockerMsg::Connected(_)));
    rt.block_on(async { while !connected(&rx.recv().await.unwrap()) {} });
    (jobs, rx)
}

/// One human run of the setup's commit, as the board asks for it.
pub fn human_request(s: &Setup) -> perftriage::runs::RunRequest {
    perftriage::runs::RunRequest {
        short: s.short.as_str().into(),
        variant: perftriage::dataset::Variant::Human,
        image: None,
        fixes: Vec::new(),
        host: None,
        repeat: perftriage::runs::RepeatPlan::Times(1),
    }
}
