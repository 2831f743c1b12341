//! Commands run in a run's container: a quiet exec whose output is kept, and the agent's patch
//! (dry run first, then applied in the vLLM root the image has).

use super::{PaneLog, RunEnv, docker_failure};
use crate::logs::Stream;
use crate::runs::{Failure, FailureKind};

/// Run a small command, keeping its output: its exit code and what it printed.
pub(super) async fn exec_quiet(env: &RunEnv, id: &str, cmd: Vec<String>) -> Result<(i64, String), Failure> {
    let mut out = Vec::new();
    let done = env
        .engine
        .exec(id, cmd, Vec::new(), |_, b| out.extend_from_slice(b))
        .await
        .map_err(|e| docker_failure(&e))?;
    Ok((done.exit_code.unwrap_or(-1), String::from_utf8_lossy(&out).into_owned()))
}

/// The patch checked and copied into the container: whether it needs a rebuild, and the vLLM root.
async fn staged(env: &RunEnv, id: &str, patch: &std::path::Path) -> Result<(bool, String), Failure> {
    let body = std::fs::read(patch)
        .map_err(|e| Failure::new(FailureKind::ToolError, format!("{}: {e}", patch.display())))?;
    let diff = String::from_utf8_lossy(&body);
    let refused = |why: String| Failure::new(FailureKind::PatchFail, why);
    crate::runs::patch_hunks(&diff).map_err(|why| refused(why.to_string()))?;
    // The one path check the 3-way view and `patch` use: an unsafe path is never handed to `patch`.
    let stats =
        crate::agents::diff::parse(&diff).map_err(|why| refused(format!("{}: {why}", patch.display())))?;
    let needs_rebuild = stats.touches_compiled;
    let tar = crate::docker::tar_of(&[("agent.patch", &body, 0o644)])
        .map_err(|e| Failure::new(FailureKind::ToolError, e.to_string()))?;
    env.engine.upload(id, "/tmp", tar).await.map_err(|e| docker_failure(&e))?;
    Ok((needs_rebuild, vllm_root(env, id).await?))
}

fn say(env: &RunEnv, bench: &mut PaneLog, text: &str) {
    bench.push(env, Stream::Stdout, text.as_bytes());
}

/// Dry-run first; any rejected hunk or fuzz is `patch_fail`, never "applied with fallback".
pub(super) async fn apply_patch(
    env: &RunEnv,
    id: &str,
    patch: &std::path::Path,
    bench: &mut PaneLog,
) -> Result<super::result::PatchOutcome, Failure> {
    let (needs_rebuild, root) = staged(env, id, patch).await?;
    say(env, bench, &format!("=== agent patch {} on {root} (dry run) ===\n", patch.display()));
    let (code, text) = exec_quiet(env, id, patch_argv(&root, Patch::DryRun)).await?;
    say(env, bench, &text);
    if code != 0 || !clean(&text) {
        say(env, bench, "AGENT_PATCH_FAILED\n");
        let why = format!("the agent patch does not apply cleanly: {}", first_problem(&text));
        return Err(Failure::new(FailureKind::PatchFail, why));
    }
    let (code, text) = exec_quiet(env, id, patch_argv(&root, Patch::Apply)).await?;
    say(env, bench, &text);
    if code != 0 {
        let why = format!("patch failed after a clean dry run: {}", first_problem(&text));
        return Err(Failure::new(FailureKind::PatchFail, why));
    }
    say(env, bench, "AGENT_PATCH_APPLIED\n");
    Ok(super::result::PatchOutcome { applied: true, root, needs_rebuild })
}

/// For a container picked up again: the patch as applied before the pick-up, if its reverse
/// applies cleanly (every hunk is in place); `None` if it is not there yet.
pub(super) async fn applied_before(
    env: &RunEnv,
    id: &str,
    patch: &std::path::Path,
    bench: &mut PaneLog,
) -> Result<Option<super::result::PatchOutcome>, Failure> {
    let (needs_rebuild, root) = staged(env, id, patch).await?;
    let (code, text) = exec_quiet(env, id, patch_argv(&root, Patch::ReverseDryRun)).await?;
    if code != 0 || !clean(&text) {
        return Ok(None);
    }
    say(
        env,
        bench,
        &format!("=== agent patch {} was applied on {root} before the pick-up ===\n", patch.display()),
    );
    say(env, bench, "AGENT_PATCH_APPLIED\n");
    Ok(Some(super::result::PatchOutcome { applied: true, root, needs_rebuild }))
}

/// No rejected hunk, no fuzz.
fn clean(text: &str) -> bool {
    !text.contains("FAILED") && !text.to_lowercase().contains("fuzz")
}

#[derive(Clone, Copy)]
enum Patch {
    DryRun,
    Apply,
    ReverseDryRun,
}

/// `patch` in the vLLM root: `cd` rather than `patch -d` (busybox has no -d); the directory travels
/// as "$1", never in the script.
fn patch_argv(root: &str, how: Patch) -> Vec<String> {
    let script = match how {
        Patch::DryRun => "cd \"$1\" && exec patch -p1 -N --dry-run -i /tmp/agent.patch",
        Patch::Apply => "cd \"$1\" && exec patch -p1 -N -i /tmp/agent.patch",
        Patch::ReverseDryRun => "cd \"$1\" && exec patch -p1 -R --dry-run -i /tmp/agent.patch",
    };
    ["sh", "-c", script, "sh", root].iter().map(|s| s.to_string()).collect()
}

fn first_problem(text: &str) -> String {
    text.lines()
        .find(|l| l.contains("FAILED") || l.contains("fuzz") || l.contains("can't"))
        .unwrap_or("")
        .to_string()
}

/// The directory a patch's `a/vllm/…` paths are relative to.
async fn vllm_root(env: &RunEnv, id: &str) -> Result<String, Failure> {
    let (code, out) = exec_quiet(env, id, crate::jobs::probe::argv()).await?;
    if let (0, (Some(dir), _)) = (code, crate::jobs::probe::parse(&out)) {
        return Ok(dir.rsplit_once('/').map_or(dir.clone(), |(parent, _)| parent.to_string()));
    }
    for candidate in ["/opt/vllm_baseline", "/workspace/vllm"] {
        let (code, _) =
            exec_quiet(env, id, vec!["test".into(), "-d".into(), format!("{candidate}/vllm")]).await?;
        if code == 0 {
            return Ok(candidate.to_string());
        }
    }
    Err(Failure::new(FailureKind::NoVllm, "Could not find vLLM in the container"))
}
