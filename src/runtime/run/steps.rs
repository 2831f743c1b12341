//! The steps of a run, in order. Each failure is (category, message).

use super::{PaneLog, RunEnv, docker_failure, phase, ready};
use crate::logs::Stream;
use crate::runs::{Pane, RunPhase, RunPlan};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

type Failure = (String, String);
type Chunk = (Pane, Stream, Vec<u8>);

/// Generic verdicts that do not, on their own, mean the server is dead.
const NOT_FATAL: &[&str] =
    &["server_crash", "no_metrics", "outlines_fsm", "timeout", "server_timeout", "port_bug"];
const GO_FILE: &str = "/tmp/perftriage-go";

pub(super) async fn run_steps(
    plan: &RunPlan,
    env: &RunEnv,
    server: &mut PaneLog<'_>,
    bench: &mut PaneLog<'_>,
    outcome: &mut super::RunOutcome,
) -> Result<(), Failure> {
    let engine = &env.engine;
    if !engine.has_image(&plan.image).await {
        phase(env, RunPhase::Pulling { done: 0, layers: 0, bytes: 0, total: 0 });
        engine
            .pull(&plan.image, |p| {
                phase(
                    env,
                    RunPhase::Pulling {
                        done: p.layers_done,
                        layers: p.layers,
                        bytes: p.current,
                        total: p.total,
                    },
                )
            })
            .await
            .map_err(docker_failure)?;
    }
    phase(env, RunPhase::Starting);
    let mut spec = plan.container.clone();
    if let Some(argv) = &plan.server_argv {
        // Wait for the go file, then become the server: its output is the container's log.
        let script = format!("while [ ! -e {GO_FILE} ]; do sleep 0.2; done; exec \"$@\"");
        spec.cmd =
            ["sh", "-c", &script, "sh"].iter().map(|s| s.to_string()).chain(argv.iter().cloned()).collect();
    }
    let id = engine.start(&spec).await.map_err(docker_failure)?;
    outcome.container = Some(id.clone());
    outcome.image_digest = engine.image_digest(&plan.image).await;
    let (tx, mut rx) = mpsc::unbounded_channel::<Chunk>();
    if let Some(repo) = &env.vllm_repo {
        upload_scripts(env, &id, repo, &plan.scripts_commit).await?;
    }
    if let Some(patch) = &plan.patch {
        outcome.patch = Some(apply_patch(env, &id, patch, bench).await?);
    }
    if plan.server_argv.is_some() {
        follow_server(env, &id, tx.clone());
        exec_quiet(env, &id, vec!["touch".into(), GO_FILE.into()]).await?;
        let after = wait_ready(plan, env, &id, server, &mut rx).await?;
        outcome.ready_after_s = Some(after);
        phase(env, RunPhase::Ready { after_s: after });
    }
    phase(env, RunPhase::Benchmarking);
    let engine_for_bench = engine.clone();
    let (id2, argv, benv, btx) = (id.clone(), plan.bench_argv.clone(), plan.bench_env.clone(), tx.clone());
    drop(tx);
    let job = tokio::spawn(async move {
        engine_for_bench.exec(&id2, argv, benv, |s, b| drop(btx.send((Pane::Benchmark, s, b.to_vec())))).await
    });
    tokio::pin!(job);
    loop {
        tokio::select! {
            Some((pane, stream, bytes)) = rx.recv() => match pane {
                Pane::Server => server.push(env, stream, &bytes),
                Pane::Benchmark => bench.push(env, stream, &bytes),
            },
            done = &mut job => {
                while let Ok((pane, stream, bytes)) = rx.try_recv() {
                    if pane == Pane::Benchmark { bench.push(env, stream, &bytes) } else { server.push(env, stream, &bytes) }
                }
                let exit = done.map_err(|e| ("tool_error".to_string(), e.to_string()))?.map_err(docker_failure)?;
                outcome.bench_exit = exit.exit_code;
                return Ok(());
            }
        }
    }
}

/// Stream the container's log (the server) into the channel until the container stops.
fn follow_server(env: &RunEnv, id: &str, tx: mpsc::UnboundedSender<Chunk>) {
    use futures_util::StreamExt;
    let logs = env.engine.follow_logs(id);
    tokio::spawn(async move {
        tokio::pin!(logs);
        while let Some(Ok((stream, bytes))) = logs.next().await {
            if tx.send((Pane::Server, stream, bytes)).is_err() {
                break;
            }
        }
    });
}

async fn wait_ready(
    plan: &RunPlan,
    env: &RunEnv,
    id: &str,
    server: &mut PaneLog<'_>,
    rx: &mut mpsc::UnboundedReceiver<Chunk>,
) -> Result<f64, Failure> {
    let started = Instant::now();
    let port = env.engine.published_port(id, 8000).await.map_err(docker_failure)?;
    let port =
        port.ok_or_else(|| ("docker_error".to_string(), "the server port was not published".to_string()))?;
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    loop {
        tokio::select! {
            Some((_, stream, bytes)) = rx.recv() => server.push(env, stream, &bytes),
            _ = tick.tick() => {
                if ready::models_ok(port).await {
                    return Ok(started.elapsed().as_secs_f64());
                }
                if let Some(v) = server.live.verdict().filter(|v| !NOT_FATAL.contains(&v.category.as_str())) {
                    return Err((v.category.clone(), format!("server failed: {}", v.evidence)));
                }
                let (running, code) = env.engine.state(id).await.map_err(docker_failure)?;
                if !running {
                    // Drain what the server said before dying, then classify it.
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    while let Ok((_, stream, bytes)) = rx.try_recv() {
                        server.push(env, stream, &bytes);
                    }
                    let category = server.live.verdict().map_or("server_crash".to_string(), |v| v.category);
                    return Err((category, format!("Server crashed during startup (exit code {})", code.unwrap_or(-1))));
                }
                if started.elapsed() > Duration::from_secs(plan.ready_timeout_s) {
                    return Err(("server_timeout".into(), format!("Server startup timeout after {}s", plan.ready_timeout_s)));
                }
            }
        }
    }
}

/// Run a small command, keeping its output.
async fn exec_quiet(env: &RunEnv, id: &str, cmd: Vec<String>) -> Result<(i64, String), Failure> {
    let mut out = Vec::new();
    let done = env
        .engine
        .exec(id, cmd, Vec::new(), |_, b| out.extend_from_slice(b))
        .await
        .map_err(docker_failure)?;
    Ok((done.exit_code.unwrap_or(-1), String::from_utf8_lossy(&out).into_owned()))
}

/// `git archive <commit> benchmarks` from the operator's vLLM checkout into /opt/perftriage
/// (the archive carries the whole path, so no directory has to exist first).
async fn upload_scripts(env: &RunEnv, id: &str, repo: &std::path::Path, commit: &str) -> Result<(), Failure> {
    let output = tokio::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["archive", "--format=tar", "--prefix=opt/perftriage/", commit, "benchmarks"])
        .output()
        .await
        .map_err(|e| ("tool_error".to_string(), format!("cannot run git in {}: {e}", repo.display())))?;
    if !output.status.success() {
        let why = String::from_utf8_lossy(&output.stderr).trim().to_string();
        let msg =
            format!("commit {commit} (benchmarks/) is not in the vLLM checkout {}: {why}", repo.display());
        return Err(("scripts_missing".into(), msg));
    }
    env.engine.upload(id, "/", output.stdout).await.map_err(docker_failure)
}

/// Dry-run first; any rejected hunk or fuzz is `patch_fail`, never "applied with fallback".
async fn apply_patch(
    env: &RunEnv,
    id: &str,
    patch: &std::path::Path,
    bench: &mut PaneLog<'_>,
) -> Result<super::result::PatchOutcome, Failure> {
    let body =
        std::fs::read(patch).map_err(|e| ("tool_error".to_string(), format!("{}: {e}", patch.display())))?;
    let needs_rebuild = crate::runs::patch_touches_native(&String::from_utf8_lossy(&body));
    let tar = crate::docker::tar_of(&[("agent.patch", &body, 0o644)])
        .map_err(|e| ("tool_error".to_string(), e.to_string()))?;
    env.engine.upload(id, "/tmp", tar).await.map_err(docker_failure)?;
    let root = vllm_root(env, id).await?;
    let say = |bench: &mut PaneLog, text: &str| bench.push(env, Stream::Stdout, text.as_bytes());
    say(bench, &format!("=== agent patch {} on {root} (dry run) ===\n", patch.display()));
    // `cd` rather than `patch -d` (busybox has no -d); the directory travels as "$1", never in the script.
    let patch_in = |dry: bool| {
        let script = if dry {
            "cd \"$1\" && exec patch -p1 -N --dry-run -i /tmp/agent.patch"
        } else {
            "cd \"$1\" && exec patch -p1 -N -i /tmp/agent.patch"
        };
        ["sh", "-c", script, "sh", root.as_str()].iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let (code, text) = exec_quiet(env, id, patch_in(true)).await?;
    say(bench, &text);
    if code != 0 || text.contains("FAILED") || text.to_lowercase().contains("fuzz") {
        say(bench, "AGENT_PATCH_FAILED\n");
        return Err((
            "patch_fail".into(),
            format!("the agent patch does not apply cleanly: {}", first_problem(&text)),
        ));
    }
    let (code, text) = exec_quiet(env, id, patch_in(false)).await?;
    say(bench, &text);
    if code != 0 {
        return Err((
            "patch_fail".into(),
            format!("patch failed after a clean dry run: {}", first_problem(&text)),
        ));
    }
    say(bench, "AGENT_PATCH_APPLIED\n");
    Ok(super::result::PatchOutcome { applied: true, root, needs_rebuild })
}

fn first_problem(text: &str) -> String {
    text.lines()
        .find(|l| l.contains("FAILED") || l.contains("fuzz") || l.contains("can't"))
        .unwrap_or("")
        .to_string()
}

/// The directory a patch's `a/vllm/…` paths are relative to.
async fn vllm_root(env: &RunEnv, id: &str) -> Result<String, Failure> {
    let probe = "import vllm, os; print(os.path.dirname(vllm.__file__))";
    let (code, out) = exec_quiet(env, id, vec!["python3".into(), "-c".into(), probe.into()]).await?;
    let dir = out.lines().last().unwrap_or("").trim().to_string();
    if code == 0 && dir.starts_with('/') {
        return Ok(dir.rsplit_once('/').map_or(dir.clone(), |(parent, _)| parent.to_string()));
    }
    for candidate in ["/opt/vllm_baseline", "/workspace/vllm"] {
        let (code, _) =
            exec_quiet(env, id, vec!["test".into(), "-d".into(), format!("{candidate}/vllm")]).await?;
        if code == 0 {
            return Ok(candidate.to_string());
        }
    }
    Err(("no_vllm".into(), "Could not find vLLM in the container".into()))
}
