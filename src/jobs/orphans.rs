//! Containers of ours whose perftriage is gone (its pid is in their labels) — killed with -9, or
//! lost with its terminal. Running ones are picked up again as runs (see the job service's
//! re-attach), except builds and fixes; stopped ones, builds and fixes are found at connect time
//! and offered for removal (a campaign that goes on removes them itself).

use crate::docker::Engine;
use crate::runs::{LABEL_COMMIT, LABEL_PID, LABEL_RUN, LABEL_VARIANT, Orphan};

/// Our stopped containers in `workspace` whose owning process no longer runs on this machine.
pub async fn find(engine: &Engine, workspace: &str) -> Vec<Orphan> {
    let ours = engine.ours(workspace).await.unwrap_or_default();
    ours.into_iter()
        // A build's or a fix's exec died with its perftriage: running or not, it cannot go on.
        .filter(|c| (!c.running || cannot_go_on(&c.labels)) && !owned(&c.labels))
        .map(|c| {
            let label = |k: &str| c.labels.get(k).cloned().unwrap_or_default();
            Orphan {
                run_id: label(LABEL_RUN).into(),
                short: label(LABEL_COMMIT).into(),
                variant: label(LABEL_VARIANT),
                id: c.id,
                name: c.name,
                running: c.running,
            }
        })
        .collect()
}

/// Our running containers in `workspace` of runs that ended (`ended`), whose owning process no
/// longer runs here: a run given up on (its host unknown, its record refused) whose container
/// still ran.
pub async fn running_after_their_end(
    engine: &Engine,
    workspace: &str,
    ended: &std::collections::BTreeSet<crate::ids::RunId>,
) -> Vec<(String, String)> {
    let ours = engine.ours(workspace).await.unwrap_or_default();
    let stale = |c: &crate::docker::Ours| {
        let run = c.labels.get(LABEL_RUN).map(|r| crate::ids::RunId::from(r.as_str()));
        c.running && run.is_some_and(|r| ended.contains(&r)) && !owned(&c.labels)
    };
    ours.into_iter().filter(stale).map(|c| (c.id, c.name)).collect()
}

/// A build (its label names the parent), or a fix (no run label, its owner's pid given).
fn cannot_go_on(labels: &std::collections::HashMap<String, String>) -> bool {
    let build = labels.get(crate::runs::LABEL_BUILD).is_some_and(|p| !p.is_empty());
    let fix = !labels.contains_key(LABEL_RUN) && labels.contains_key(LABEL_PID);
    build || fix
}

/// The perftriage that started the container (its pid label) still runs here: it is that
/// process's to finish and remove.
pub fn owned(labels: &std::collections::HashMap<String, String>) -> bool {
    labels.get(LABEL_PID).is_some_and(|pid| alive(pid))
}

/// A perftriage process with this pid is running here.
fn alive(pid: &str) -> bool {
    let Ok(pid) = pid.parse::<u32>() else { return false };
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|cmd| String::from_utf8_lossy(&cmd).contains("perftriage"))
}
