//! The Docker connection: connect, announce, re-attach to our running containers, refresh which
//! containers are ours, ping; reconnect with backoff (1 → 30 s) when it drops.

use super::{EngineSlot, JobSetup};
use crate::app::{DockerMsg, Found, JobMsg, Msg};
use crate::dataset::Variant;
use crate::docker::Engine;
use crate::runs::{
    FoundRun, LABEL_COMMIT, LABEL_LAUNCH, LABEL_RUN, LABEL_VARIANT, Launch, LaunchError, RunId, RunPhase,
};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;

pub(super) fn spawn(slot: EngineSlot, setup: Arc<JobSetup>, tx: UnboundedSender<Msg>) {
    tokio::spawn(async move {
        let mut backoff = Duration::from_secs(1);
        loop {
            match Engine::connect().await {
                Ok(engine) => {
                    backoff = Duration::from_secs(1);
                    connected(&slot, &setup, &tx, engine).await;
                }
                Err(e) => {
                    log::warn!("Docker unreachable: {e}; retrying in {}s", backoff.as_secs());
                    let _ = tx.send(Msg::Docker(DockerMsg::Unreachable(e.to_string())));
                }
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(30));
        }
    });
}

/// Hold one connection until the daemon stops answering.
async fn connected(slot: &EngineSlot, setup: &JobSetup, tx: &UnboundedSender<Msg>, engine: Engine) {
    let workspace = setup.exec.workspace.display().to_string();
    // The engine is usable before anyone hears it is: queued runs start on that message.
    if let Ok(mut s) = slot.write() {
        *s = Some(engine.clone());
    }
    log::info!("Docker connected: {}", engine.description);
    let _ = tx.send(Msg::Docker(DockerMsg::Connected(engine.description.clone())));
    reattach(&engine, &setup.exec.workspace, tx, None).await;
    let orphans = crate::jobs::orphans::find_for_the_board(&engine, &setup.exec.workspace).await;
    for o in &orphans {
        log::warn!("container {} (run {}) was left by a perftriage that is gone", o.name, o.run_id);
    }
    let _ = tx.send(Msg::Docker(DockerMsg::Orphans(orphans)));
    while engine.raw().ping().await.is_ok() {
        let owners = crate::jobs::owners::owners(&engine, &workspace).await;
        let _ = tx.send(Msg::Docker(DockerMsg::Owners(owners)));
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    if let Ok(mut s) = slot.write() {
        *s = None;
    }
    log::warn!("Docker stopped answering; reconnecting");
    let _ = tx.send(Msg::Docker(DockerMsg::Unreachable("the daemon stopped answering".into())));
}

/// Containers of ours still running whose perftriage is gone: each becomes a run on the board,
/// which picks it up where it is (readiness, benchmark, result) through the job service. One
/// whose perftriage still runs (another board, a headless run, or this board) is left to it, and
/// one of a campaign still to be resumed is left to that campaign.
pub async fn reattach(engine: &Engine, workspace: &Path, tx: &UnboundedSender<Msg>, host: Option<&str>) {
    let ours = engine.ours(&workspace.display().to_string()).await.unwrap_or_default();
    let others = |labels: &_| {
        crate::jobs::orphans::owned(labels) || crate::jobs::orphans::campaigns_own(workspace, labels)
    };
    for c in ours.into_iter().filter(|c| c.running && !others(&c.labels)) {
        let (Some(run_id), Some(short)) =
            (c.labels.get(LABEL_RUN).map(|id| RunId::from(id.as_str())), c.labels.get(LABEL_COMMIT).cloned())
        else {
            continue;
        };
        let variant = c.labels.get(LABEL_VARIANT).and_then(|v| Variant::parse(v)).unwrap_or(Variant::Human);
        log::info!("re-attached to run {run_id} ({short} {}), container {}", variant.name(), c.name);
        let launch = read_launch(workspace, &c.labels, &run_id).map(Box::new).map_err(|e| e.to_string());
        if let Err(why) = &launch {
            log::warn!("run {run_id}: {why}");
        }
        let (container, created, host) = (c.id.clone(), c.created, host.map(String::from));
        let found = FoundRun { run_id, short: short.into(), variant, container, created, host };
        let _ = tx.send(Msg::Job(JobMsg::Found(Found::Container { found, launch })));
    }
}

/// The launch record of a container of ours: in the workspace, where its label says it is.
fn read_launch(
    workspace: &Path,
    labels: &HashMap<String, String>,
    run_id: &RunId,
) -> Result<Launch, LaunchError> {
    if !labels.contains_key(LABEL_LAUNCH) {
        return Err(LaunchError::NoLabel);
    }
    crate::jobs::launches::read(workspace, run_id)
}

/// Cancel a run no task of this board carries: remove its container by label.
pub(super) fn remove_by_run(
    engine: Option<Engine>,
    setup: &JobSetup,
    run_id: &RunId,
    tx: UnboundedSender<Msg>,
) {
    let (run_id, workspace) = (run_id.clone(), setup.exec.workspace.display().to_string());
    let hosts = setup.exec.hosts.clone();
    tokio::spawn(async move {
        for engine in every_engine(engine, &hosts).await {
            for c in engine.ours(&workspace).await.unwrap_or_default() {
                if c.labels.get(LABEL_RUN).map(String::as_str) == Some(run_id.as_str()) {
                    let _ = engine.remove(&c.id).await;
                }
            }
        }
        let _ = tx.send(Msg::Job(JobMsg::phase(&run_id, RunPhase::Cancelled)));
    });
}

/// Every 10 s, each `[[hosts]]` engine as placement sees it (answering, runs, GPUs) to the header;
/// a host seen answering (at start, or back after a drop) has its runs re-attached and its
/// left-behind containers reported, as the main engine has at connect.
pub(super) fn watch_hosts(setup: Arc<JobSetup>, tx: UnboundedSender<Msg>) {
    tokio::spawn(async move {
        let workspace = setup.exec.workspace.display().to_string();
        let mut up = std::collections::HashSet::new();
        loop {
            let seen =
                crate::jobs::fleet::slots(&setup.exec.hosts, &workspace, &setup.exec.claims, true).await;
            let crate::jobs::fleet::Seen { slots, engines, probes } = seen;
            for (slot, engine) in slots.iter().zip(&engines) {
                match engine {
                    Ok(engine) if up.insert(slot.name.clone()) => {
                        reattach(engine, &setup.exec.workspace, &tx, Some(&slot.name)).await;
                        let orphans =
                            crate::jobs::orphans::find_for_the_board(engine, &setup.exec.workspace).await;
                        let _ = tx.send(Msg::Docker(DockerMsg::Orphans(orphans)));
                    }
                    Ok(_) => {}
                    Err(_) => drop(up.remove(&slot.name)),
                }
            }
            let gpus = slots.iter().zip(&probes);
            let gpus =
                gpus.map(|(s, p)| (s.name.clone(), crate::jobs::fleet::host_gpus(p.as_ref()))).collect();
            let _ = tx.send(Msg::Docker(DockerMsg::HostGpus(gpus)));
            if tx.send(Msg::Docker(DockerMsg::Hosts(slots))).is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_secs(10)).await;
        }
    });
}

/// The main engine (when connected) and every `[[hosts]]` engine that answers.
pub(super) async fn every_engine(main: Option<Engine>, hosts: &[crate::config::HostConfig]) -> Vec<Engine> {
    let others = futures_util::future::join_all(hosts.iter().map(crate::jobs::fleet::connect)).await;
    main.into_iter().chain(others.into_iter().flatten()).collect()
}
