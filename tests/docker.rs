//! Runs against the real Docker engine with locally built `FROM scratch` images (no registry).
//! Skipped with a notice when no engine is reachable and CI is unset; under CI=true they fail instead.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::engine::{Setup, engine, ensure_images, result, run, runtime, setup};
use perftriage::docker::Engine;
use std::path::Path;
use std::process::Command;

fn no_containers_left(rt: &tokio::runtime::Runtime, engine: &Engine, setup: &Setup) {
    let ours = rt.block_on(engine.ours(&setup.root.join("ws").display().to_string())).unwrap();
    assert!(ours.is_empty(), "containers left behind: {ours:?}");
}

const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --dataset-name sharegpt --num-prompts 5";

fn ready() -> Option<(tokio::runtime::Runtime, Engine)> {
    let rt = runtime();
    let engine = engine(&rt)?;
    ensure_images(&rt, &engine);
    Some((rt, engine))
}

#[test]
fn serving_run_end_to_end_writes_metrics_and_leaves_no_container() {
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let out = run(&s, "human");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("[server] INFO:     Application startup complete."), "server pane streamed");
    assert!(stdout.contains("[bench] ============ Serving Benchmark Result"), "benchmark pane streamed");
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
fn failure_images_fail_fast_with_their_real_signature() {
    let Some((rt, engine)) = ready() else { return };
    for (image, category) in [("aimv2", "aimv2"), ("numpy2", "numpy2"), ("fa_utils", "fa_utils")] {
        let s = setup(&format!("perftriage-test/vllm:{image}"), SERVING, "");
        let started = std::time::Instant::now();
        let out = run(&s, "human");
        assert_eq!(out.status.code(), Some(3), "{image}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(started.elapsed().as_secs() < 50, "{image}: the readiness wait was cut short");
        let r = result(&s, "human");
        assert_eq!(r["perftriage"]["classification"]["category"], category, "{image}: {r:#}");
        assert_eq!(r["status"], "error");
        no_containers_left(&rt, &engine, &s);
    }
}

#[test]
fn a_missing_image_is_a_manifest_failure_with_the_daemons_words() {
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/absent:nope", SERVING, "");
    let out = run(&s, "human");
    assert_eq!(out.status.code(), Some(3));
    let r = result(&s, "human");
    assert_eq!(r["perftriage"]["classification"]["category"], "manifest_unknown");
    assert!(r["error"].as_str().unwrap().contains("perftriage-test/absent:nope"), "{r:#}");
    no_containers_left(&rt, &engine, &s);
}

#[test]
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

fn patch(old: &str, new: &str) -> String {
    format!("--- a/vllm/__init__.py\n+++ b/vllm/__init__.py\n@@ -1 +1 @@\n-{old}\n+{new}\n")
}

#[test]
fn agent_patches_apply_cleanly_or_fail_as_patch_fail() {
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
    no_containers_left(&rt, &engine, &s);
}

#[test]
fn cancelling_removes_the_container_and_our_containers_are_found_by_label() {
    use perftriage::runtime::run::{RunEnv, RunEvent, execute};
    let Some((rt, engine)) = ready() else { return };
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let ws = s.root.join("ws");
    let commits = perftriage::dataset::load_jsonl(&s.root.join("dataset.jsonl")).unwrap();
    let (config, _) = perftriage::config::Config::load(Some(&s.config)).unwrap();
    let plan = perftriage::runs::plan(
        &commits[0],
        perftriage::dataset::Variant::Human,
        &config.runs,
        &config.images,
        &ws,
        "cancel1",
    )
    .unwrap();
    let classifier = perftriage::classify::Classifier::embedded().unwrap();
    let redactor = perftriage::runs::Redactor::default();
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let (cancel_tx, cancel) = tokio::sync::watch::channel(false);
    let outcome = rt.block_on(async {
        let env = RunEnv {
            engine: engine.clone(),
            workspace: ws.clone(),
            vllm_repo: config.runs.vllm_repo.clone(),
            redactor,
            classifier: std::sync::Arc::new(classifier),
            events: tx,
            cancel,
        };
        let watcher = async {
            while let Some(event) = events.recv().await {
                if let RunEvent::Phase(perftriage::runs::RunPhase::Starting) = event {
                    // While it starts, a restarted board would find it by its labels.
                    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                    let found = engine.ours(&ws.display().to_string()).await.unwrap();
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
    assert_eq!(outcome.category.as_deref(), Some("cancelled"));
    no_containers_left(&rt, &engine, &s);
}

#[test]
fn a_restarted_board_reattaches_to_a_running_container_of_ours() {
    use perftriage::app::Msg;
    let Some((rt, engine)) = ready() else { return };
    let ws = tempfile::tempdir().unwrap();
    let workspace = ws.path().display().to_string();
    let spec = perftriage::runs::ContainerSpec {
        name: format!("perftriage-reattach-{}", std::process::id()),
        image: "perftriage-test/vllm:ok".into(),
        cmd: ["sh", "-c", "echo server still talking; sleep 60"].map(String::from).to_vec(),
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
    };
    let id = rt.block_on(engine.start(&spec)).unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (found, said) = rt.block_on(async {
        perftriage::runtime::runs::reattach(&engine, &workspace, &tx).await;
        let mut found = None;
        let mut said = String::new();
        while let Ok(Some(msg)) = tokio::time::timeout(std::time::Duration::from_secs(10), rx.recv()).await {
            match msg {
                Msg::RunFound { run_id, short, variant } => found = Some((run_id, short, variant)),
                Msg::RunLines { lines, .. } => {
                    said.extend(lines.iter().map(|l| l.text().to_string()));
                    break;
                }
                _ => {}
            }
        }
        (found, said)
    });
    rt.block_on(engine.remove(&id)).unwrap();
    assert_eq!(
        found,
        Some(("before-restart".into(), "7c01f706".into(), perftriage::dataset::Variant::Baseline))
    );
    assert!(said.contains("server still talking"), "{said}");
}
