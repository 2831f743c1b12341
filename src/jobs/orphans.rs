//! Containers of ours whose perftriage is gone (its pid is in their labels) — killed with -9, or
//! lost with its terminal. Running ones are picked up again as runs (see the job service's
//! re-attach), except builds and fixes; stopped ones, builds and fixes are found at connect time
//! and offered for removal (a campaign that goes on removes them itself).

use crate::docker::Engine;
use crate::ids::CampaignName;
use crate::runs::{LABEL_CAMPAIGN, LABEL_COMMIT, LABEL_PID, LABEL_RUN, LABEL_VARIANT, Orphan};
use std::collections::HashMap;
use std::path::Path;

/// Our stopped containers in `workspace` whose owning process no longer runs on this machine.
pub async fn find(engine: &Engine, workspace: &str) -> Vec<Orphan> {
    found(engine, workspace, |_| false).await
}

/// As `find`, less the containers a campaign still to be resumed owns (`campaigns_own`): what a
/// board may offer to remove.
pub async fn find_for_the_board(engine: &Engine, workspace: &Path) -> Vec<Orphan> {
    found(engine, &workspace.display().to_string(), |labels| campaigns_own(workspace, labels)).await
}

/// A run's container labelled with a campaign whose journal reads and has not ended: its resume
/// reads it (a stopped one is evidence, a running one is picked up), so a board neither takes it
/// over nor offers it for removal. A campaign that ended, or whose journal is gone or unreadable,
/// will never come back for it.
pub fn campaigns_own(workspace: &Path, labels: &HashMap<String, String>) -> bool {
    let Some(name) = labels.get(LABEL_CAMPAIGN).map(|n| CampaignName::from(n.as_str())) else {
        return false;
    };
    let journal = name.is_plain().then(|| crate::jobs::journal::Journal::of(workspace, &name));
    journal.and_then(|j| j.state().ok()).is_some_and(|state| !state.has_ended())
}

async fn found(
    engine: &Engine,
    workspace: &str,
    left_alone: impl Fn(&HashMap<String, String>) -> bool,
) -> Vec<Orphan> {
    let ours = engine.ours(workspace).await.unwrap_or_default();
    ours.into_iter()
        // A build's or a fix's exec died with its perftriage: running or not, it cannot go on.
        .filter(|c| (!c.running || cannot_go_on(&c.labels)) && !owned(&c.labels) && !left_alone(&c.labels))
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
fn cannot_go_on(labels: &HashMap<String, String>) -> bool {
    let build = labels.get(crate::runs::LABEL_BUILD).is_some_and(|p| !p.is_empty());
    let fix = !labels.contains_key(LABEL_RUN) && labels.contains_key(LABEL_PID);
    build || fix
}

/// The perftriage that started the container (its pid label) still runs here: it is that
/// process's to finish and remove.
pub fn owned(labels: &HashMap<String, String>) -> bool {
    labels.get(LABEL_PID).is_some_and(|pid| alive(pid))
}

/// A perftriage process with this pid is running here.
fn alive(pid: &str) -> bool {
    let Ok(pid) = pid.parse::<u32>() else { return false };
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|cmd| String::from_utf8_lossy(&cmd).contains("perftriage"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaigns::Event;
    use crate::campaigns::state::tests::started;
    use crate::jobs::journal::Journal;

    fn labelled(campaign: &str) -> HashMap<String, String> {
        HashMap::from([(LABEL_CAMPAIGN.to_string(), campaign.to_string())])
    }

    #[test]
    fn a_campaign_owns_its_containers_until_its_journal_says_it_ended() {
        let ws = tempfile::tempdir().unwrap();
        assert!(!campaigns_own(ws.path(), &labelled("nightly")), "no journal: nobody comes back for it");
        let journal = Journal::create(ws.path(), &started(&["aaaa1111"]), &"nightly".into()).unwrap();
        assert!(campaigns_own(ws.path(), &labelled("nightly")));
        assert!(
            !campaigns_own(ws.path(), &HashMap::new()),
            "no campaign label: a board's or a headless run's"
        );
        let outside = ws.path().join("elsewhere");
        std::fs::create_dir(&outside).unwrap();
        std::fs::copy(&journal.path, outside.join("journal.jsonl")).unwrap();
        assert!(!campaigns_own(ws.path(), &labelled("../elsewhere")), "not a plain name: no journal is read");
        journal.append(&Event::Cancelled { at: "t1".into() }).unwrap();
        assert!(!campaigns_own(ws.path(), &labelled("nightly")), "ended: it will not come back for it");
    }
}
