//! The steps of a run, in order; each can fail with a typed `Failure`.

use super::in_container::{apply_patch, exec_quiet};
use super::{PaneLog, RunEnv, docker_failure, phase, ready};
use crate::logs::Stream;
use crate::runs::{Failure, FailureKind, LABEL_LAUNCH, Pane, RunPhase, RunPlan};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

pub(super) type Chunk = (Pane, Stream, Vec<u8>);

/// Generic verdicts that do not, on their own, mean the server is dead.
const NOT_FATAL: &[&str] =
    &["server_crash", "no_metrics", "outlines_fsm", "timeout", "server_timeout", "port_bug"];
const GO_FILE: &str = "/tmp/perftriage-go";

/// The two panes a run writes to.
pub(super) struct Panes<'p> {
    pub server: &'p mut PaneLog,
    pub bench: &'p mut PaneLog,
}

impl Panes<'_> {
    fn push(&mut self, env: &RunEnv, (pane, stream, bytes): Chunk) {
        match pane {
            Pane::Server => self.server.push(env, stream, &bytes),
            Pane::Benchmark => self.bench.push(env, stream, &bytes),
        }
    }
}

pub(super) async fn run_steps(
    plan: &RunPlan,
    env: &RunEnv,
    panes: Panes<'_>,
    outcome: &mut super::RunOutcome,
) -> Result<(), Failure> {
    outcome.image_digest = digest_pulling(plan, env).await?;
    let launch = write_launch(plan, env, outcome.image_digest.clone())?;
    phase(env, RunPhase::Creating { image: plan.image.clone() });
    outcome.create_sent = true;
    let mut spec = container_spec(plan);
    spec.labels.insert(LABEL_LAUNCH.into(), launch.display().to_string());
    spec.labels.insert(crate::runs::LABEL_PLAN.into(), plan.fingerprint());
    let id = env.engine.start(&spec).await.map_err(|e| docker_failure(&e))?;
    phase(env, RunPhase::Starting);
    outcome.container = Some(id.clone());
    // A server not held for a patch runs from its container's start.
    outcome.server_released = !held_for_patch(plan);
    started_steps(plan, env, panes, outcome, &id).await
}

/// Whether the server waits for its go file: only where the agent's patch must go in before it
/// starts (the benchmark scripts go in while it starts: only the benchmark reads them).
fn held_for_patch(plan: &RunPlan) -> bool {
    plan.server_argv.is_some() && plan.patch.is_some()
}

/// The run's launch record, written before its container is created (so that a container of
/// ours always has one); its path. A run whose record cannot be written does not start.
fn write_launch(plan: &RunPlan, env: &RunEnv, digest: Option<String>) -> Result<std::path::PathBuf, Failure> {
    crate::jobs::launches::write(&env.workspace, plan, digest, env.host.clone())
        .map_err(|e| Failure::new(FailureKind::ToolError, e.to_string()))
}

/// What follows the container's start: the benchmark scripts, the agent's patch, the server let
/// go (where it waits for that) and ready, the benchmark. A run whose connection was lost before
/// its server was let go goes on from here too (a patch applied is not applied again; the go
/// file is made, which a server that never waited for it does not read).
pub(super) async fn started_steps(
    plan: &RunPlan,
    env: &RunEnv,
    mut panes: Panes<'_>,
    outcome: &mut super::RunOutcome,
    id: &str,
) -> Result<(), Failure> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Chunk>();
    if let Some(repo) = &env.vllm_repo {
        upload_scripts(env, id, repo, &plan.scripts_commit).await?;
    }
    if let (Some(patch), None) = (&plan.patch, &outcome.patch) {
        outcome.patch = Some(apply_patch(env, id, patch, panes.bench).await?);
    }
    if plan.server_argv.is_some() {
        follow_server(env, id, 0, tx.clone());
        if !outcome.server_released {
            exec_quiet(env, id, vec!["touch".into(), GO_FILE.into()]).await?;
            outcome.server_released = true;
        }
        let after = wait_ready(plan, env, id, panes.server, &mut rx).await?;
        outcome.ready_after_s = Some(after);
        phase(env, RunPhase::Ready { after_s: after });
    }
    phase(env, RunPhase::Benchmarking);
    benchmarks(plan, env, id, (tx, &mut rx), &mut panes, outcome).await
}

/// The image's digest, pulled first where the engine has no such image: one inspection when it
/// has it (a run's start waits on each).
async fn digest_pulling(plan: &RunPlan, env: &RunEnv) -> Result<Option<String>, Failure> {
    let digest = || async { env.engine.image_digest(&plan.image).await.map_err(|e| docker_failure(&e)) };
    if let Some(digest) = digest().await? {
        return Ok(Some(digest));
    }
    pull(plan, env).await?;
    digest().await
}

async fn pull(plan: &RunPlan, env: &RunEnv) -> Result<(), Failure> {
    let what = format!("pulling {}", plan.image);
    env.engine.ensure_room(&what, plan.pull_needs_bytes).await.map_err(|e| docker_failure(&e))?;
    phase(env, RunPhase::Pulling { done: 0, layers: 0, bytes: 0, total: 0 });
    let progress = |p: &crate::docker::PullEvent| {
        phase(
            env,
            RunPhase::Pulling { done: p.layers_done, layers: p.layers, bytes: p.current, total: p.total },
        )
    };
    env.engine.pull(&plan.image, progress).await.map_err(|e| docker_failure(&e))
}

/// The container: for a serving run it is the server (so the server's output is the container's
/// log), after waiting for the go file where the agent's patch goes in first.
fn container_spec(plan: &RunPlan) -> crate::runs::ContainerSpec {
    let mut spec = plan.container.clone();
    spec.labels.insert(crate::runs::LABEL_PID.into(), std::process::id().to_string());
    match &plan.server_argv {
        Some(argv) if held_for_patch(plan) => {
            let script = format!("while [ ! -e {GO_FILE} ]; do sleep 0.2; done; exec \"$@\"");
            let wrapper = ["sh", "-c", &script, "sh"].map(str::to_string);
            spec.cmd = wrapper.into_iter().chain(argv.iter().cloned()).collect();
        }
        Some(argv) => spec.cmd.clone_from(argv),
        None => {}
    }
    spec
}

/// The benchmark `plan.repeat` times against the one server, where each began noted for the
/// parser; an exit that is not 0 ends the repeats.
pub(super) async fn benchmarks(
    plan: &RunPlan,
    env: &RunEnv,
    id: &str,
    (tx, rx): (mpsc::UnboundedSender<Chunk>, &mut mpsc::UnboundedReceiver<Chunk>),
    panes: &mut Panes<'_>,
    outcome: &mut super::RunOutcome,
) -> Result<(), Failure> {
    outcome.repeat_starts.clear();
    for n in 1..=plan.warmup {
        let say = format!("=== perftriage: warm-up run {n} of {} (not counted) ===\n", plan.warmup);
        panes.bench.push(env, Stream::Stdout, say.as_bytes());
        outcome.bench_exit = benchmark(plan, env, id, tx.clone(), rx, panes).await?;
        if outcome.bench_exit.unwrap_or(0) != 0 {
            return Ok(());
        }
    }
    for n in 1.. {
        if plan.repeat > 1 || plan.auto.is_some() {
            let say = format!("=== perftriage: benchmark run {n} of {} on the same server ===\n", of(plan));
            panes.bench.push(env, Stream::Stdout, say.as_bytes());
        }
        outcome.repeat_starts.push(panes.bench.text.len());
        outcome.bench_exit = benchmark(plan, env, id, tx.clone(), rx, panes).await?;
        if outcome.bench_exit.unwrap_or(0) != 0 || enough(plan, n, &panes.bench.text, outcome) {
            break;
        }
    }
    if let Some(why) = &outcome.auto_stop {
        let say = format!("=== perftriage: repeat auto: {why} ===\n");
        panes.bench.push(env, Stream::Stdout, say.as_bytes());
    }
    Ok(())
}

/// `3`, or `auto (3 to 10)`.
fn of(plan: &RunPlan) -> String {
    match &plan.auto {
        Some(auto) => format!("auto ({} to {})", plan.repeat, auto.max),
        None => plan.repeat.to_string(),
    }
}

/// Whether run `n` was the last: the planned number, or for `auto` an answer or the budget (the
/// reason goes in the outcome, and on the benchmark pane).
fn enough(plan: &RunPlan, n: u32, bench: &str, outcome: &mut super::RunOutcome) -> bool {
    let Some(auto) = &plan.auto else { return n >= plan.repeat };
    let samples = super::result::samples_so_far(bench, &outcome.repeat_starts, &auto.metric);
    match auto.next(&samples) {
        crate::runs::Next::Again => false,
        crate::runs::Next::Stop(why) => {
            outcome.auto_stop = Some(why);
            true
        }
    }
}

/// Run the benchmark in the container while both panes keep streaming; its exit code.
async fn benchmark(
    plan: &RunPlan,
    env: &RunEnv,
    id: &str,
    tx: mpsc::UnboundedSender<Chunk>,
    rx: &mut mpsc::UnboundedReceiver<Chunk>,
    panes: &mut Panes<'_>,
) -> Result<Option<i64>, Failure> {
    let (engine, id, argv, benv) =
        (env.engine.clone(), id.to_string(), plan.bench_argv.clone(), plan.bench_env.clone());
    let job = tokio::spawn(async move {
        engine.exec(&id, argv, benv, |s, b| drop(tx.send((Pane::Benchmark, s, b.to_vec())))).await
    });
    tokio::pin!(job);
    loop {
        tokio::select! {
            Some(chunk) = rx.recv() => panes.push(env, chunk),
            done = &mut job => {
                while let Ok(chunk) = rx.try_recv() {
                    panes.push(env, chunk);
                }
                let exit = done.map_err(|e| Failure::new(FailureKind::ToolError, e.to_string()))?.map_err(|e| docker_failure(&e))?;
                return Ok(exit.exit_code);
            }
        }
    }
}

/// Stream the server's output (the container's log) from `since` (unix seconds; 0: the start).
pub(super) fn follow_server(env: &RunEnv, id: &str, since: i64, tx: mpsc::UnboundedSender<Chunk>) {
    use futures_util::StreamExt;
    let logs = env.engine.follow_logs_since(id, since);
    tokio::spawn(async move {
        tokio::pin!(logs);
        while let Some(Ok((stream, bytes))) = logs.next().await {
            if tx.send((Pane::Server, stream, bytes)).is_err() {
                break;
            }
        }
    });
}

pub(super) async fn wait_ready(
    plan: &RunPlan,
    env: &RunEnv,
    id: &str,
    server: &mut PaneLog,
    rx: &mut mpsc::UnboundedReceiver<Chunk>,
) -> Result<f64, Failure> {
    let started = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    loop {
        tokio::select! {
            Some((_, stream, bytes)) = rx.recv() => server.push(env, stream, &bytes),
            _ = tick.tick() => {
                let answer = server_answers(env, id).await?;
                if answer == Answer::Ready {
                    return Ok(started.elapsed().as_secs_f64());
                }
                still_starting(plan, env, id, server, rx, started).await?;
                if answer == Answer::NoPort {
                    return Err(Failure::new(FailureKind::DockerError, "the server port was not published"));
                }
            }
        }
    }
}

#[derive(Debug, PartialEq)]
enum Answer {
    Ready,
    NotYet,
    /// The daemon here published no port (a server that died at once has none left to read).
    NoPort,
}

/// Whether the server answers `/health`: through the published port when the daemon is on this
/// machine, else inside the container (an exec that fails, as on a stopped one, is "not yet").
async fn server_answers(env: &RunEnv, id: &str) -> Result<Answer, Failure> {
    let answer_of = |yes: bool| if yes { Answer::Ready } else { Answer::NotYet };
    if !env.engine.is_on_this_machine() {
        return Ok(answer_of(matches!(exec_quiet(env, id, ready::inside_argv()).await, Ok((0, _)))));
    }
    let port = env.engine.published_port(id, 8000).await.map_err(|e| docker_failure(&e))?;
    match port {
        Some(port) => Ok(answer_of(ready::health_ok(port).await)),
        None => Ok(Answer::NoPort),
    }
}

/// Why the server will never be ready, if it will not: a fatal signature in its output, its
/// container gone, or the readiness timeout.
async fn still_starting(
    plan: &RunPlan,
    env: &RunEnv,
    id: &str,
    server: &mut PaneLog,
    rx: &mut mpsc::UnboundedReceiver<Chunk>,
    started: Instant,
) -> Result<(), Failure> {
    if let Some(v) = server.verdict().filter(|v| !NOT_FATAL.contains(&v.category.as_str())) {
        return Err(Failure::new(
            FailureKind::from_name(&v.category),
            format!("server failed: {}", v.evidence),
        ));
    }
    let (running, code) = env.engine.state(id).await.map_err(|e| docker_failure(&e))?;
    if !running {
        // Drain what the server said before dying, then classify it.
        tokio::time::sleep(Duration::from_millis(200)).await;
        while let Ok((_, stream, bytes)) = rx.try_recv() {
            server.push(env, stream, &bytes);
        }
        let kind = server.verdict().map_or(FailureKind::ServerCrash, |v| FailureKind::from_name(&v.category));
        return Err(Failure::new(
            kind,
            format!("Server crashed during startup (exit code {})", code.unwrap_or(-1)),
        ));
    }
    if started.elapsed() > Duration::from_secs(plan.ready_timeout_s) {
        let why = format!("Server startup timeout after {}s", plan.ready_timeout_s);
        return Err(Failure::new(FailureKind::ServerTimeout, why));
    }
    Ok(())
}

/// Whether the container's server was let go (its go file made).
pub(super) async fn released(env: &RunEnv, id: &str) -> Result<bool, Failure> {
    Ok(exec_quiet(env, id, vec!["test".into(), "-e".into(), GO_FILE.into()]).await?.0 == 0)
}

/// `git archive <commit> benchmarks` from the operator's vLLM checkout into /opt/perftriage
/// (the archive carries the whole path, so no directory has to exist first).
async fn upload_scripts(env: &RunEnv, id: &str, repo: &std::path::Path, commit: &str) -> Result<(), Failure> {
    let tar =
        crate::jobs::git::archive(repo, commit, "benchmarks", "opt/perftriage/").await.map_err(|e| {
            let why =
                format!("commit {commit} (benchmarks/) is not in the vLLM checkout {}: {e}", repo.display());
            Failure::new(FailureKind::ScriptsMissing, why)
        })?;
    env.engine.upload(id, "/", tar).await.map_err(|e| docker_failure(&e))
}
