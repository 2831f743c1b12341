//! Runs against the real Docker engine with locally built `FROM scratch` images (no registry).
//! Skipped with a notice when no engine is reachable and CI is unset; under CI=true they fail instead.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::engine::{Setup, board_jobs, human_request, ready, result, run, setup};
use common::wait::{Reaped, Watched};
use perftriage::docker::{Engine, RepoFilter};
use std::path::Path;
use std::process::Command;

fn no_containers_left(rt: &tokio::runtime::Runtime, engine: &Engine, setup: &Setup) {
    let ours = rt.block_on(engine.ours(&setup.root.join("ws").display().to_string())).unwrap();
    assert!(ours.is_empty(), "containers left behind: {ours:?}");
}

const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --dataset-name sharegpt --num-prompts 5";

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn serving_run_end_to_end_writes_metrics_and_leaves_no_container() {
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let out = run(&s, "human");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("[server] INFO:     Application startup complete."), "server pane streamed");
    assert!(stdout.contains("[bench] ============ Serving Benchmark Result"), "benchmark pane streamed");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let phases: Vec<&str> = stderr.lines().filter_map(|l| l.strip_prefix("perftriage: ")).collect();
    let named = ["creating", "starting", "ready", "benching", "collecting"];
    assert_eq!(phases.iter().filter(|p| named.contains(p)).copied().collect::<Vec<_>>(), named, "{stderr}");
    let r = result(&s, "human");
    assert_eq!(r["status"], "success");
    assert!(r["metrics"]["ttft_mean_ms"].as_f64().unwrap() > 0.0);
    assert!(r["metrics"]["output_token_throughput_tok_s"].as_f64().unwrap() > 0.0);
    assert_eq!(r["perftriage"]["image"], "perftriage-test/vllm:ok");
    let cmd = r["perftriage"]["final_command"].as_str().unwrap();
    assert!(cmd.contains("--dataset-name random") && cmd.contains("--port 8000"), "{cmd}");
    assert!(Path::new(r["perftriage"]["logs"]["server"].as_str().unwrap()).exists());
    let text =
        std::fs::read_to_string(s.root.join("ws/results").join(format!("{}_human_result.json", s.short)))
            .unwrap();
    assert!(!text.contains("hf_test_secret_token_value"));
    no_containers_left(&rt, &engine, &s);
    // The board reads it back.
    let status = Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .args([
            "--config",
            s.config.to_str().unwrap(),
            "--workspace",
            s.root.join("ws").to_str().unwrap(),
            "status",
            "--json",
        ])
        .output()
        .unwrap();
    let rec: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(rec["variants"]["human"]["status"], "ok");
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn failure_images_fail_fast_with_their_real_signature() {
    let Some((rt, engine)) = ready() else { return };
    for (image, category) in [("aimv2", "aimv2"), ("numpy2", "numpy2"), ("fa_utils", "fa_utils")] {
        let s = setup(&format!("perftriage-test/vllm:{image}"), SERVING, "");
        let out = run(&s, "human");
        assert_eq!(out.status.code(), Some(3), "{image}: {}", String::from_utf8_lossy(&out.stderr));
        let r = result(&s, "human");
        // The readiness wait was cut short by the server's failure (its line or its exit), not
        // ended by its 60 s timeout.
        let error = r["error"].as_str().unwrap_or_default();
        assert!(!error.is_empty() && !error.starts_with("Server startup timeout"), "{image}: {r:#}");
        assert_eq!(r["perftriage"]["classification"]["category"], category, "{image}: {r:#}");
        assert_eq!(r["status"], "error");
        no_containers_left(&rt, &engine, &s);
    }
}

/// A registry that refuses the connection may answer later: `pull_failed` (a campaign retries
/// it), not the image missing for good.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_registry_that_refuses_the_pull_is_a_pull_failure_not_a_missing_image() {
    let Some((rt, engine)) = ready() else { return };
    // Port 1 of this machine: nothing listens there, the daemon's connection is refused.
    let s = setup("127.0.0.1:1/perftriage-test/absent:nope", SERVING, "pull_estimate_gb = 0");
    let out = run(&s, "human");
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let r = result(&s, "human");
    assert_eq!(r["perftriage"]["classification"]["category"], "pull_failed", "{r:#}");
    assert!(r["error"].as_str().unwrap().contains("connection refused"), "{r:#}");
    no_containers_left(&rt, &engine, &s);
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_missing_image_is_a_manifest_failure_with_the_daemons_words() {
    let Some((rt, engine)) = ready() else { return };
    // The pull is of nothing: the disk check's 22 GiB estimate for an unknown image is not the
    // subject (CI once had less free and got a set-up error instead).
    let s = setup("perftriage-test/absent:nope", SERVING, "pull_estimate_gb = 0");
    let out = run(&s, "human");
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let r = result(&s, "human");
    assert_eq!(r["perftriage"]["classification"]["category"], "manifest_unknown");
    assert!(r["error"].as_str().unwrap().contains("perftriage-test/absent:nope"), "{r:#}");
    no_containers_left(&rt, &engine, &s);
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn asking_for_gpus_here_names_the_nvidia_toolkit() {
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let text = std::fs::read_to_string(&s.config).unwrap().replace("gpus = \"none\"", "gpus = \"1\"");
    std::fs::write(&s.config, text).unwrap();
    let out = run(&s, "human");
    assert_eq!(out.status.code(), Some(3));
    let r = result(&s, "human");
    assert!(r["error"].as_str().unwrap().contains("NVIDIA Container Toolkit"), "{r:#}");
    no_containers_left(&rt, &engine, &s);
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn an_agents_server_starts_once_its_patch_is_in() {
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let to = "__version__ = '0.9.2.dev0+agent'";
    let diff = patch("__version__ = '0.9.2.dev0+mock'", to);
    std::fs::write(s.root.join("patches").join(format!("{}.patch", s.short)), diff).unwrap();
    let out = run(&s, "agent");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r = result(&s, "agent");
    let server = std::fs::read_to_string(r["perftriage"]["logs"]["server"].as_str().unwrap()).unwrap();
    // The mock's server says the version its `vllm/__init__.py` had when it started.
    assert!(server.contains("vLLM API server version 0.9.2.dev0+agent"), "{server}");
    no_containers_left(&rt, &engine, &s);
}

fn patch(old: &str, new: &str) -> String {
    format!("--- a/vllm/__init__.py\n+++ b/vllm/__init__.py\n@@ -1 +1 @@\n-{old}\n+{new}\n")
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn agent_patches_apply_cleanly_or_fail_as_patch_fail_and_an_empty_patch_is_not_applied() {
    let Some((rt, engine)) = ready() else { return };
    let latency = "python benchmarks/benchmark_latency.py --model facebook/opt-125m --batch-size 8";
    let s = setup("perftriage-test/vllm:ok", latency, "");
    std::fs::write(
        s.root.join("patches").join(format!("{}.patch", s.short)),
        patch("__version__ = '0.9.2.dev0+mock'", "__version__ = '0.9.2.dev0+agent'"),
    )
    .unwrap();
    let out = run(&s, "agent");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r = result(&s, "agent");
    assert_eq!(r["perftriage"]["patch"]["applied"], true);
    assert_eq!(r["metrics"]["latency_avg_ms"], 821.5512847331411);

    std::fs::write(
        s.root.join("patches").join(format!("{}.patch", s.short)),
        patch("__version__ = 'something else'", "x = 1"),
    )
    .unwrap();
    let out = run(&s, "agent");
    assert_eq!(out.status.code(), Some(3));
    let r = result(&s, "agent");
    assert_eq!(r["perftriage"]["classification"]["category"], "patch_fail", "{r:#}");
    for garbage in ["", "just some words\n"] {
        std::fs::write(s.root.join("patches").join(format!("{}.patch", s.short)), garbage).unwrap();
        let out = run(&s, "agent");
        assert_eq!(out.status.code(), Some(3), "{garbage:?} must not count as applied");
        let r = result(&s, "agent");
        assert_eq!(r["perftriage"]["classification"]["category"], "patch_fail", "{r:#}");
    }
    no_containers_left(&rt, &engine, &s);
}

/// The plan of the setup's human run under `run_id`, and the config it came from.
fn human_plan(s: &Setup, run_id: &str) -> (perftriage::runs::RunPlan, perftriage::config::Config) {
    plan_of(s, run_id, "human")
}

/// The plan of the setup's `variant` run under `run_id`, and the config it came from.
fn plan_of(
    s: &Setup,
    run_id: &str,
    variant: &str,
) -> (perftriage::runs::RunPlan, perftriage::config::Config) {
    let commits = perftriage::dataset::load_jsonl(&s.root.join("dataset.jsonl")).unwrap().commits;
    let (config, _) = perftriage::config::Config::load(Some(&s.config)).unwrap();
    let (runs, images, ws) = (&config.runs, &config.images, s.root.join("ws"));
    let plan = perftriage::runs::plan(
        &commits[0],
        perftriage::dataset::Variant::parse(variant).unwrap(),
        runs,
        images,
        &ws,
        &run_id.into(),
    );
    (plan.unwrap(), config)
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn cancelling_removes_the_container_and_our_containers_are_found_by_label() {
    use perftriage::jobs::run::{RunEnv, RunEvent, execute};
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let ws = s.root.join("ws");
    let (plan, config) = human_plan(&s, "cancel1");
    let classifier = perftriage::classify::Classifier::embedded().unwrap();
    let redactor = perftriage::logs::Redactor::default();
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let (cancel_tx, cancel) = tokio::sync::watch::channel(false);
    let outcome = rt.block_on(async {
        let env = RunEnv {
            engine: engine.clone(),
            workspace: ws.clone(),
            vllm_repo: config.runs.vllm_repo.clone(),
            redactor,
            classifier: std::sync::Arc::new(classifier),
            events: perftriage::jobs::run::sink(tx),
            cancel,
            host: None,
        };
        let watcher = async {
            while let Some(event) = events.recv().await {
                if let RunEvent::Phase(perftriage::runs::RunPhase::Starting) = event {
                    // While it starts, a restarted board would find it by its labels (as soon as the
                    // daemon has made it: under load that takes a while).
                    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
                    let mut found = Vec::new();
                    while found.is_empty() && std::time::Instant::now() < deadline {
                        // pacing between two looks (the loop waits for the container to be found)
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                        found = engine.ours(&ws.display().to_string()).await.unwrap();
                    }
                    assert_eq!(found.len(), 1, "{found:?}");
                    assert_eq!(found[0].labels["perftriage.run"], "cancel1");
                    assert!(found[0].name.starts_with(&format!("perftriage-{}-human-cancel1", s.short)));
                    cancel_tx.send(true).unwrap();
                }
            }
        };
        let (outcome, _) = tokio::join!(execute(&plan, env), watcher);
        outcome
    });
    assert_eq!(outcome.category, Some(perftriage::runs::FailureKind::Cancelled));
    no_containers_left(&rt, &engine, &s);
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_restarted_board_finds_a_running_container_of_ours_by_its_labels() {
    use perftriage::app::{Found, JobMsg, Msg};
    let Some((rt, engine)) = ready() else { return };
    let ws = tempfile::tempdir().unwrap();
    let workspace = ws.path().display().to_string();
    let spec = perftriage::runs::ContainerSpec {
        name: format!("perftriage-reattach-{}", std::process::id()),
        image: "perftriage-test/vllm:ok".into(),
        cmd: ["sh", "-c", "sleep 60"].map(String::from).to_vec(),
        env: Vec::new(),
        labels: [
            (perftriage::runs::LABEL_COMMIT, "7c01f706"),
            (perftriage::runs::LABEL_VARIANT, "baseline"),
            (perftriage::runs::LABEL_RUN, "before-restart"),
            (perftriage::runs::LABEL_WORKSPACE, workspace.as_str()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
        publish: None,
        gpus: perftriage::runs::GpuRequest::None,
        shm_bytes: 64 << 20,
        binds: Vec::new(),
        memory_bytes: None,
    };
    let id = rt.block_on(engine.start(&spec)).unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    rt.block_on(perftriage::jobs::service::reattach(&engine, ws.path(), &tx, None));
    rt.block_on(engine.remove(&id)).unwrap();
    let Ok(Msg::Job(JobMsg::Found(Found::Container { found, launch }))) = rx.try_recv() else {
        panic!("no run found")
    };
    assert_eq!(
        (found.run_id.as_str(), found.short.as_str(), found.variant),
        ("before-restart", "7c01f706", perftriage::dataset::Variant::Baseline)
    );
    assert_eq!(found.container, id);
    assert!(found.created > 0);
    // Started by hand, with no launch record: found, but nothing to resume it with.
    assert!(launch.as_ref().is_err_and(|why| why.contains("no launch record")), "{launch:?}");
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_run_picked_up_after_a_crash_waits_for_readiness_benchmarks_and_cleans_up() {
    // The first perftriage dies once its server is up (a human's server, held for no patch,
    // never had a go file).
    let ready = |e: &RunEvent| matches!(e, RunEvent::Phase(perftriage::runs::RunPhase::Ready { .. }));
    picked_up_after_a_crash("crash1", "human", ready, Some(false));
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_run_without_a_patch_serves_from_its_containers_start_with_nothing_let_go() {
    // The first perftriage dies as soon as its container runs: nothing made a go file, and the
    // server starts on its own (it no longer waits for one where no patch goes in first).
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let crashed = Crashed::at(&rt, &engine, &s, "crash5", "human", starting);
    let logs = || Command::new("docker").args(["logs", &crashed.container.id]).output().unwrap();
    common::wait::holds(
        "the server's start in its container's log",
        60,
        || String::from_utf8_lossy(&logs().stdout).contains("Application startup complete."),
        || format!("{:?}", logs()),
    );
    let go = ["exec", &crashed.container.id, "test", "-e", "/tmp/perftriage-go"];
    assert!(!Command::new("docker").args(go).status().unwrap().success(), "no go file was made");
    let outcome = crashed.resume(&rt, &engine);
    assert_eq!(outcome.status, perftriage::dataset::RunStatus::Success, "{:?}", outcome.error);
    no_containers_left(&rt, &engine, &s);
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_run_that_crashed_before_its_server_was_let_go_is_picked_up_from_the_steps_not_done() {
    // The first perftriage dies as soon as its agent's container runs: before the scripts, the
    // patch and the go file (a board quit with `L` or killed then left a container waiting for
    // ever).
    picked_up_after_a_crash("crash2", "agent", starting, Some(false));
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn an_agent_run_killed_after_its_patch_went_in_is_picked_up_without_applying_it_again() {
    // Killed right after the patch: before or after its server was let go (either way the patch
    // is in the container, found there, recorded as applied, not applied a second time).
    let patched = |e: &RunEvent| matches!(e, RunEvent::Lines { lines, .. } if lines.iter().any(|l| l.text() == "AGENT_PATCH_APPLIED"));
    picked_up_after_a_crash("crash3", "agent", patched, None);
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_container_that_exited_before_its_pick_up_fails_as_its_log_says_not_as_a_docker_error() {
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:aimv2", SERVING, "");
    let crashed = Crashed::at(&rt, &engine, &s, "crash4", "human", starting);
    // The aimv2 image's server (held for no patch) dies at once, before the pick-up.
    assert!(Command::new("docker").args(["wait", &crashed.container.id]).output().unwrap().status.success());
    let outcome = crashed.resume(&rt, &engine);
    assert_eq!(outcome.category.as_ref().map(|k| k.name()), Some("aimv2"), "{:?}", outcome.error);
    assert!(outcome.error.as_ref().is_some_and(|e| e.contains("exited (code")), "{:?}", outcome.error);
    no_containers_left(&rt, &engine, &s);
}

fn starting(e: &perftriage::jobs::run::RunEvent) -> bool {
    matches!(e, RunEvent::Phase(p) if *p == perftriage::runs::RunPhase::Starting)
}

use perftriage::jobs::run::RunEvent;

/// A run whose perftriage died at the first event `crash_at` holds: its plan and the container
/// it left, as a crash leaves it (not removed).
struct Crashed {
    plan: perftriage::runs::RunPlan,
    config: perftriage::config::Config,
    ws: std::path::PathBuf,
    container: perftriage::docker::Ours,
}

impl Crashed {
    fn at(
        rt: &tokio::runtime::Runtime,
        engine: &Engine,
        s: &Setup,
        run_id: &str,
        variant: &str,
        crash_at: fn(&RunEvent) -> bool,
    ) -> Crashed {
        use perftriage::jobs::run::{Start, run};
        let (plan, config) = plan_of(s, run_id, variant);
        let ws = s.root.join("ws");
        let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
        let first = rt.spawn({
            let (plan, env) = (plan.clone(), run_env(engine, &ws, &config, tx));
            async move { run(&plan, env, Start::Fresh).await }
        });
        rt.block_on(async {
            while let Some(event) = events.recv().await {
                if crash_at(&event) {
                    break;
                }
            }
        });
        first.abort();
        let _ = rt.block_on(first);
        let mut left = rt.block_on(engine.ours(&ws.display().to_string())).unwrap();
        assert_eq!(left.len(), 1, "the crash left the container running");
        Crashed { plan, config, ws, container: left.remove(0) }
    }

    /// The run picked up again from its container, to its end.
    fn resume(&self, rt: &tokio::runtime::Runtime, engine: &Engine) -> perftriage::jobs::run::RunOutcome {
        let (tx, _events) = tokio::sync::mpsc::unbounded_channel();
        let start = perftriage::jobs::run::Start::Resume {
            container: self.container.id.clone(),
            created_unix: self.container.created,
            image_digest: None,
        };
        let env = run_env(engine, &self.ws, &self.config, tx);
        rt.block_on(perftriage::jobs::run::run(&self.plan, env, start))
    }
}

fn run_env(
    engine: &Engine,
    ws: &Path,
    config: &perftriage::config::Config,
    events: tokio::sync::mpsc::UnboundedSender<RunEvent>,
) -> perftriage::jobs::run::RunEnv {
    perftriage::jobs::run::RunEnv {
        engine: engine.clone(),
        workspace: ws.to_path_buf(),
        vllm_repo: config.runs.vllm_repo.clone(),
        redactor: perftriage::logs::Redactor::default(),
        classifier: std::sync::Arc::new(perftriage::classify::Classifier::embedded().unwrap()),
        events: perftriage::jobs::run::sink(events),
        cancel: tokio::sync::watch::channel(false).1,
        host: None,
    }
}

/// A run of `variant` whose perftriage dies at the first event `crash_at` holds (`released`:
/// whether its go file was made by then, if that is known), picked up again from its container:
/// it goes on to its result, with the agent's patch applied once.
fn picked_up_after_a_crash(
    run_id: &str,
    variant: &str,
    crash_at: fn(&RunEvent) -> bool,
    released: Option<bool>,
) {
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let to = "__version__ = '0.9.2.dev0+agent'";
    let diff = patch("__version__ = '0.9.2.dev0+mock'", to);
    std::fs::write(s.root.join("patches").join(format!("{}.patch", s.short)), diff).unwrap();
    let crashed = Crashed::at(&rt, &engine, &s, run_id, variant, crash_at);
    let go = ["exec", &crashed.container.id, "test", "-e", "/tmp/perftriage-go"];
    let go = Command::new("docker").args(go).status().unwrap().success();
    assert!(released.is_none_or(|r| r == go), "the server let go by the crash: {released:?}");
    let outcome = crashed.resume(&rt, &engine);
    assert_eq!(outcome.status, perftriage::dataset::RunStatus::Success, "{:?}", outcome.error);
    assert!(outcome.metrics.contains_key("ttft_mean"), "{:?}", outcome.metrics);
    let patched = outcome.patch.as_ref().is_some_and(|p| p.applied);
    assert_eq!(patched, variant == "agent", "the agent's patch is recorded as applied: {:?}", outcome.patch);
    no_containers_left(&rt, &engine, &s);
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_headless_run_removes_its_container_on_sigint_sigterm_and_sighup() {
    let Some((rt, engine)) = ready() else { return };
    for signal in ["INT", "TERM", "HUP"] {
        // A server that never becomes ready: the run is still waiting when the signal comes.
        let s = setup("perftriage-test/vllm:ok", SERVING, "server = \"sleep 100000\"");
        let ws = s.root.join("ws").display().to_string();
        let child = Watched::new(
            Command::new(env!("CARGO_BIN_EXE_perftriage"))
                .args(["--config", s.config.to_str().unwrap(), "--workspace", &ws])
                .args(["run", &s.short, "--variant", "human"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap(),
        );
        wait_for_a_container(&rt, &engine, &ws, &child);
        let sent =
            Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
        assert!(sent.success());
        let (status, _, err) = child.finish();
        assert!(!status.success() && err.contains(&format!("SIG{signal}")), "{signal}: {status:?} {err}");
        no_containers_left(&rt, &engine, &s);
    }
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn the_sweep_finds_stopped_containers_whose_perftriage_is_gone_and_leaves_the_others() {
    let Some((rt, engine)) = ready() else { return };
    let ws = tempfile::tempdir().unwrap();
    let workspace = ws.path().display().to_string();
    // A live "perftriage" process (bash sets its argv[0]), killed however the test ends, and a dead one.
    let owner = Reaped(Command::new("bash").args(["-c", "exec -a perftriage sleep 60"]).spawn().unwrap());
    let dead = {
        let mut gone = Command::new("true").spawn().unwrap();
        gone.wait().unwrap();
        gone.id()
    };
    let start = |name: &str, pid: u32, cmd: &str| {
        let spec = perftriage::runs::ContainerSpec {
            name: format!("{name}-{}", std::process::id()),
            image: "perftriage-test/vllm:ok".into(),
            cmd: ["sh", "-c", cmd].map(String::from).to_vec(),
            env: Vec::new(),
            labels: [
                (perftriage::runs::LABEL_WORKSPACE, workspace.clone()),
                (perftriage::runs::LABEL_PID, pid.to_string()),
                (perftriage::runs::LABEL_RUN, name.to_string()),
                (perftriage::runs::LABEL_COMMIT, "7c01f706".to_string()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
            publish: None,
            gpus: perftriage::runs::GpuRequest::None,
            shm_bytes: 64 << 20,
            binds: Vec::new(),
            memory_bytes: None,
        };
        rt.block_on(engine.start(&spec)).unwrap()
    };
    // Owned and stopped, gone and running (picked up as a run instead), gone and stopped.
    let ids = RemovedAtEnd(vec![
        start("kept", owner.id(), "true"),
        start("resumed", dead, "sleep 60"),
        start("orphaned", dead, "true"),
    ]);
    for (id, state) in ids.0.iter().zip(["exited", "running", "exited"]) {
        common::wait::holds(
            &format!("container {id} {state}"),
            60,
            || state_of(id) == state,
            || state_of(id),
        );
    }
    let found = rt.block_on(perftriage::jobs::orphans::find(&engine, &workspace));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    rt.block_on(perftriage::jobs::service::reattach(&engine, ws.path(), &tx, None));
    use perftriage::app::{Found, JobMsg, Msg};
    let Ok(Msg::Job(JobMsg::Found(Found::Container { found: resumed, .. }))) = rx.try_recv() else {
        panic!()
    };
    assert_eq!(resumed.run_id, "resumed", "only the running container whose perftriage is gone is picked up");
    assert!(rx.try_recv().is_err());
    drop(owner);
    let runs: Vec<&str> = found.iter().map(|o| o.run_id.as_str()).collect();
    assert_eq!(runs, ["orphaned"], "only the container whose perftriage is gone");
}

/// A socat proxy to the engine on a socket of its own; killed as a group (its forked children too).
fn proxy(sock: &Path) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let child = Command::new("socat")
        .arg(format!("UNIX-LISTEN:{},fork,unlink-early", sock.display()))
        .arg("UNIX-CONNECT:/var/run/docker.sock")
        .process_group(0)
        .spawn()
        .expect("socat (the tests install it through .ci/run)");
    let what = format!("socat to listen on {}", sock.display());
    common::wait::holds(&what, 30, || sock.exists(), || "no socket yet".into());
    child
}

fn cut(mut proxy: std::process::Child) {
    // `--`: without it, `kill -KILL -PGID` can be read as `kill -1`, every process there is.
    Command::new("kill").args(["-s", "KILL", "--", &format!("-{}", proxy.id())]).status().unwrap();
    proxy.wait().unwrap();
}

/// `perftriage run` of the setup's human variant, talking to Docker through the socket `sock`.
fn run_through(s: &Setup, sock: &Path) -> Watched {
    let ws = s.root.join("ws").display().to_string();
    let child = Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .args(["--config", s.config.to_str().unwrap(), "--workspace", &ws])
        .args(["run", &s.short, "--variant", "human"])
        .env("DOCKER_HOST", format!("unix://{}", sock.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    Watched::new(child)
}

/// Until the run of `child` has a container in the workspace `ws`.
fn wait_for_a_container(rt: &tokio::runtime::Runtime, engine: &Engine, ws: &str, child: &Watched) {
    let started = || !rt.block_on(engine.ours(ws)).unwrap().is_empty();
    common::wait::holds("the run's container", 60, started, || child.stderr());
}

/// The state Docker gives a container (`running`, `exited`, …).
fn state_of(id: &str) -> String {
    common::engine::docker(&["inspect", "-f", "{{.State.Status}}", id])
}

/// Containers a test started itself, removed however it ends.
struct RemovedAtEnd(Vec<String>);

impl Drop for RemovedAtEnd {
    fn drop(&mut self) {
        for id in &self.0 {
            let _ = Command::new("docker").args(["rm", "-f", id]).output();
        }
    }
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_run_that_loses_the_docker_connection_removes_its_container_when_it_is_back() {
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "server = \"sleep 100000\"");
    let sock = s.root.join("docker.sock");
    let first = proxy(&sock);
    let ws = s.root.join("ws").display().to_string();
    let child = run_through(&s, &sock);
    wait_for_a_container(&rt, &engine, &ws, &child);
    cut(first);
    child.printed("connection lost", 60);
    assert_eq!(rt.block_on(engine.ours(&ws)).unwrap().len(), 1, "the container outlives the connection");
    let second = proxy(&sock);
    let (status, _, err) = child.finish();
    cut(second);
    assert_eq!(status.code(), Some(3), "{err}");
    assert!(err.contains("connection lost"), "{err}");
    no_containers_left(&rt, &engine, &s);
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_run_whose_connection_drops_while_the_server_starts_goes_on_when_it_is_back() {
    let Some((rt, engine)) = ready() else { return };
    let server = "server = \"env MOCK_STARTUP_MS=6000 python3 -m vllm.entrypoints.openai.api_server --model {model} --port 8000\"";
    let s = setup("perftriage-test/vllm:ok", SERVING, server);
    let sock = s.root.join("docker.sock");
    let first = proxy(&sock);
    let ws = s.root.join("ws").display().to_string();
    let child = run_through(&s, &sock);
    wait_for_a_container(&rt, &engine, &ws, &child);
    // The server takes 6 s to start: the cut comes while the run waits for it.
    child.printed("perftriage: starting", 60);
    cut(first);
    child.printed("connection lost", 60);
    let second = proxy(&sock);
    let (status, _, err) = child.finish();
    cut(second);
    assert_eq!(status.code(), Some(0), "the run went on and measured: {err}");
    assert_eq!(result(&s, "human")["status"], "success");
    no_containers_left(&rt, &engine, &s);
}

/// A vLLM checkout without the commit is this host's set-up, not the commit's result: exit 1,
/// no result file (it used to be `scripts_missing`, exit 3, and a result over the recorded one).
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_checkout_without_the_commit_is_a_set_up_error_and_writes_no_result() {
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let repo = s.root.join("vllm");
    std::fs::remove_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&repo).unwrap();
    assert!(Command::new("git").arg("-C").arg(&repo).args(["init", "-q"]).status().unwrap().success());
    let out = run(&s, "human");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("set-up error (scripts_missing)"), "{stderr}");
    assert!(!s.root.join("ws/results").join(format!("{}_human_result.json", s.short)).exists());
    no_containers_left(&rt, &engine, &s);
}

/// Too little room under the Docker data root refuses a pull (a set-up error: nothing recorded)
/// and a fixed image's commit, with the numbers; here the estimates are set beyond any disk.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_pull_or_a_commit_without_room_is_refused_with_the_numbers() {
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:not-pulled-here", SERVING, "pull_estimate_gb = 1000000");
    let out = run(&s, "human");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("set-up error (no_room)") && stderr.contains("not enough disk for pulling"),
        "{stderr}"
    );
    assert!(stderr.contains("GiB free"), "{stderr}");
    assert!(!s.root.join("ws/results").join(format!("{}_human_result.json", s.short)).exists());
    let s = setup("perftriage-test/vllm:aimv2", SERVING, "disk_reserve_gb = 1000000");
    let fix =
        ["fix", "apply", &s.short, "--variant", "human", "--recipe", "aimv2_exist_ok", "--commit-image"];
    let out = common::engine::perftriage(&s, &fix);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("not enough disk for committing perftriage-fixed:"), "{stderr}");
    no_containers_left(&rt, &engine, &s);
}

/// The images view's engine side: our fixed-image repositories are listed by tag, and a tag is removed.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn fixed_images_are_listed_by_repository_and_removed_by_tag() {
    let Some((rt, engine)) = ready() else { return };
    let tag = format!("perftriage-fixed:ptest-{}", std::process::id());
    let tagged = Command::new("docker").args(["tag", "perftriage-test/vllm:ok", &tag]).status().unwrap();
    assert!(tagged.success());
    let repos = [RepoFilter::all("perftriage-fixed"), RepoFilter::all("perftriage-fixed-local")];
    let listed = rt.block_on(engine.images_in(&repos)).unwrap();
    let ours = listed.iter().find(|i| i.tag == tag).unwrap_or_else(|| panic!("{tag} not in {listed:?}"));
    assert!(ours.size_bytes > 0 && ours.created_unix > 0, "{ours:?}");
    assert!(
        listed.iter().all(|i| i.tag.starts_with("perftriage-fixed")),
        "only our repositories: {listed:?}"
    );
    rt.block_on(engine.remove_image(&tag)).unwrap();
    let after = rt.block_on(engine.images_in(&repos)).unwrap();
    assert!(after.iter().all(|i| i.tag != tag), "{after:?}");
    assert!(
        rt.block_on(engine.has_image("perftriage-test/vllm:ok")).unwrap(),
        "the other tag of the image stays"
    );
}

/// The baseline template's repository holds the unfixed bases and the images builds committed:
/// only the built ones (labelled with the commit they were built for) are ours to list and delete.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn of_the_baseline_repository_only_built_images_are_listed() {
    let Some((rt, engine)) = ready() else { return };
    let repo = format!("perftriage-ptest-baseline-{}", std::process::id());
    let (base, built) = (format!("{repo}:base"), format!("{repo}:built"));
    let _gone = RemovedTags(vec![base.clone(), built.clone()]);
    assert!(
        Command::new("docker").args(["tag", "perftriage-test/vllm:ok", &base]).status().unwrap().success()
    );
    let dockerfile = format!(
        "FROM perftriage-test/vllm:ok\nLABEL {}=8aa1485f\n",
        perftriage::jobs::build::LABEL_BUILT_FOR
    );
    let mut build = Command::new("docker")
        .args(["build", "-q", "-t", &built, "-"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut build.stdin.take().unwrap(), dockerfile.as_bytes()).unwrap();
    assert!(build.wait().unwrap().success());
    let filter = [RepoFilter::labelled(&repo, perftriage::jobs::build::LABEL_BUILT_FOR)];
    let listed: Vec<String> =
        rt.block_on(engine.images_in(&filter)).unwrap().into_iter().map(|i| i.tag).collect();
    assert_eq!(listed, vec![built], "the base is not offered for deletion");
}

/// Image tags removed when the test ends, failed or not.
struct RemovedTags(Vec<String>);

impl Drop for RemovedTags {
    fn drop(&mut self) {
        let _ = Command::new("docker").arg("rmi").args(&self.0).output();
    }
}

/// A board that closes the moment a run has ended, before it asked for the run's result file
/// (its end message still unread), leaves that result written: closing waits for the runs that
/// ended to be recorded (their writes were dropped with the runtime).
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_run_that_ended_as_the_board_closed_is_still_recorded() {
    use perftriage::app::{JobMsg, Msg};
    let Some((rt, _engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let (mut jobs, mut rx) = board_jobs(&rt, &s);
    let request = human_request(&s);
    let run_id: perftriage::runs::RunId = "closing-1".into();
    rt.block_on(async { jobs.start(&run_id, request) });
    let ended = |msg: &Msg| matches!(msg, Msg::Job(JobMsg::Ended { .. }));
    rt.block_on(async { while !ended(&rx.recv().await.unwrap()) {} });
    // The board closes here: it never handled the end, so it never asked for the result file.
    let recorded = rt.block_on(jobs.record_ended(|_| None, std::time::Duration::from_secs(60)));
    drop(rt);
    assert!(recorded, "closing waited for the ended run's record");
    let r = result(&s, "human");
    assert_eq!(r["status"], "success", "{r}");
}

/// The board's runs through the executor: a set-up error (a vLLM checkout without the commit)
/// writes no result file, not even when the board closes right after (it used to be written
/// then, the only rule of the three that did); and every event of a run reaches the board before
/// its end (events used to be forwarded by a task of their own, which an end could overtake).
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn on_the_board_a_set_up_error_writes_no_result_and_no_event_comes_after_a_runs_end() {
    use perftriage::app::{JobKey, JobMsg, Msg};
    let Some((rt, _engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let (mut jobs, mut rx) = board_jobs(&rt, &s);
    let request = || human_request(&s);
    let mut seen_after_end = |run_id: &str| {
        let run_id: perftriage::runs::RunId = run_id.into();
        rt.block_on(async { jobs.start(&run_id, request()) });
        let ended =
            |msg: &Msg| matches!(msg, Msg::Job(JobMsg::Ended { job: JobKey::Run(r), .. }) if *r == run_id);
        rt.block_on(async { while !ended(&rx.recv().await.unwrap()) {} });
        assert!(rt.block_on(jobs.record_ended(|_| None, std::time::Duration::from_secs(60))));
        let mut after = Vec::new();
        while let Ok(msg) = rx.try_recv() {
            if let Msg::Job(JobMsg::Progress { job: JobKey::Run(r), .. }) = &msg
                && *r == run_id
            {
                after.push(format!("{msg:?}"));
            }
        }
        after
    };
    assert_eq!(seen_after_end("ordered-1"), Vec::<String>::new(), "every event before the end");
    assert_eq!(result(&s, "human")["status"], "success");
    let path = s.root.join("ws/results").join(format!("{}_human_result.json", s.short));
    std::fs::remove_file(&path).unwrap();
    let repo = s.root.join("vllm");
    std::fs::remove_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&repo).unwrap();
    assert!(Command::new("git").arg("-C").arg(&repo).args(["init", "-q"]).status().unwrap().success());
    assert_eq!(seen_after_end("setup-1"), Vec::<String>::new());
    assert!(!path.exists(), "a set-up error is not the commit's result");
}

/// A fix cancelled (the board's `x`, a signal to `fix apply`) stops where it is: its container is
/// removed, nothing is committed, and it says it was cancelled.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_cancelled_fix_removes_its_container_and_commits_nothing() {
    use perftriage::jobs::fix::{FixError, FixJob, apply};
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:aimv2", SERVING, "");
    let text = perftriage::dataset::DatasetText::read(&s.root.join("dataset.jsonl")).unwrap();
    let commit = text.head(usize::MAX).unwrap().0.commits.remove(0);
    let ws = s.root.join("ws");
    let image = perftriage::ids::ImageRef::from("perftriage-test/vllm:aimv2");
    let variant = perftriage::dataset::Variant::Human;
    let job = FixJob::new(&commit, variant, image, None, Some("perftriage-fixed"), &ws);
    let book = perftriage::fixes::RecipeBook::embedded().unwrap();
    let recipe = book.get("aimv2_exist_ok").unwrap();
    let (switch, cancel) = tokio::sync::watch::channel(false);
    switch.send(true).unwrap();
    let report = rt.block_on(apply(&engine, &job, (recipe, None), |_| {}, cancel));
    assert!(matches!(report, Err(FixError::Cancelled)), "{report:?}");
    let label = format!("label=perftriage.workspace={}", ws.display());
    assert!(common::engine::docker(&["ps", "-aq", "--filter", &label]).is_empty(), "its container removed");
    let tag = format!("{}:{}", job.commit_to.0, job.commit_to.1);
    assert!(common::engine::docker(&["images", "-q", &tag]).is_empty(), "nothing committed as {tag}");
}
