//! The `[[hosts]]` engines for a run: connected by name, or the one placement picks (reachable,
//! a run slot free, enough free GPUs; see `runs::place`). Our running containers on each host are
//! what its slots and GPUs are busy with, with the runs placed there whose container is not
//! running yet (`Claims`). Without `[[hosts]]`, the one engine `DOCKER_HOST` names.

use crate::config::HostConfig;
use crate::docker::endpoint::Endpoint;
use crate::docker::{DockerError, Engine, Gpus};
use crate::runs::{GpuRequest, HostSlot, LABEL_GPUS, LABEL_RUN, RunId, place};
use crate::telemetry::HostGpus;
use std::sync::Mutex;
use std::time::Duration;

/// How long a host may take to answer before placement leaves it out.
const CONNECT_S: u64 = 10;

pub async fn connect(host: &HostConfig) -> Result<Engine, DockerError> {
    let endpoint = Endpoint::resolve(&host.endpoint, host.tls.as_deref())
        .map_err(|e| DockerError::Unreachable(e.to_string()))?;
    tokio::time::timeout(Duration::from_secs(CONNECT_S), Engine::connect_to(&endpoint))
        .await
        .unwrap_or_else(|_| Err(DockerError::Unreachable(format!("no answer in {CONNECT_S} s"))))
}

/// Runs placed on a host, held against its slots and GPUs until they end: between placement and
/// a running container a host looks free, and two runs placed at once took its last slot.
#[derive(Debug, Default)]
pub struct Claims {
    /// One placement at a time, so each sees the claims of the one before.
    placing: tokio::sync::Mutex<()>,
    held: Mutex<Vec<Claim>>,
}

#[derive(Debug, Clone)]
struct Claim {
    run_id: RunId,
    host: String,
    need: GpuRequest,
}

impl Claims {
    /// The run ended (or never started): its host's slot is free again.
    pub fn release(&self, run_id: &RunId) {
        self.held.lock().unwrap_or_else(std::sync::PoisonError::into_inner).retain(|c| c.run_id != *run_id);
    }

    fn hold(&self, run_id: &RunId, host: &str, need: &GpuRequest) {
        let claim = Claim { run_id: run_id.clone(), host: host.into(), need: need.clone() };
        self.held.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(claim);
    }

    /// The claims on `host` whose run has no running container among `running`.
    fn waiting_on(&self, host: &str, running: &[&str]) -> Vec<GpuRequest> {
        let held = self.held.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        held.iter()
            .filter(|c| c.host == host && !running.contains(&c.run_id.as_str()))
            .map(|c| c.need.clone())
            .collect()
    }
}

/// GPUs a run holds on a host with `total` of them.
fn gpus_of(need: &GpuRequest, total: Option<usize>) -> usize {
    match need {
        GpuRequest::All => total.unwrap_or(0),
        GpuRequest::Count(n) => *n as usize,
        GpuRequest::None => 0,
    }
}

fn label_gpus(label: Option<&String>) -> GpuRequest {
    match label.map(String::as_str) {
        Some("all") => GpuRequest::All,
        Some(n) => n.parse().map_or(GpuRequest::None, GpuRequest::Count),
        None => GpuRequest::None,
    }
}

/// A host's slot for placement, from its engine (or why it is down) and its probe.
async fn slot(
    host: &HostConfig,
    engine: &Result<Engine, DockerError>,
    probe: Option<&Gpus>,
    (workspace, claims): (&str, &Claims),
) -> HostSlot {
    let mut slot = HostSlot {
        name: host.name.clone(),
        gpus: host.gpus.map(|n| n as usize),
        concurrency: host.concurrency,
        running: 0,
        gpus_busy: 0,
        down: None,
    };
    let engine = match engine {
        Ok(engine) => engine,
        Err(e) => return HostSlot { down: Some(e.to_string()), ..slot },
    };
    if slot.gpus.is_none() {
        slot.gpus = probe.and_then(Gpus::count);
    }
    let running: Vec<_> =
        engine.ours(workspace).await.unwrap_or_default().into_iter().filter(|c| c.running).collect();
    let run_ids: Vec<&str> =
        running.iter().filter_map(|c| c.labels.get(LABEL_RUN)).map(String::as_str).collect();
    let mut held: Vec<GpuRequest> = running.iter().map(|c| label_gpus(c.labels.get(LABEL_GPUS))).collect();
    held.extend(claims.waiting_on(&host.name, &run_ids));
    slot.running = held.len();
    slot.gpus_busy = held.iter().map(|need| gpus_of(need, slot.gpus)).sum();
    slot
}

/// The hosts as one look saw them: each one's slot, engine (or why not) and GPU probe.
pub struct Seen {
    pub slots: Vec<HostSlot>,
    pub engines: Vec<Result<Engine, DockerError>>,
    /// `None` where it was not probed (down, or its GPUs counted in the config and not asked for).
    pub probes: Vec<Option<Gpus>>,
}

/// Every host connected at once and seen as placement sees it; `probe_all`: probe the hosts
/// whose GPUs the config counts too (for the GPU pane), not only the others.
pub async fn slots(hosts: &[HostConfig], workspace: &str, claims: &Claims, probe_all: bool) -> Seen {
    let engines = futures_util::future::join_all(hosts.iter().map(connect)).await;
    let probes = hosts.iter().zip(&engines).map(|(host, engine)| probe(host, engine, probe_all));
    let probes = futures_util::future::join_all(probes).await;
    let each = hosts.iter().zip(&engines).zip(&probes);
    let each = each.map(|((h, e), p)| slot(h, e, p.as_ref(), (workspace, claims)));
    let slots = futures_util::future::join_all(each).await;
    Seen { slots, engines, probes }
}

async fn probe(host: &HostConfig, engine: &Result<Engine, DockerError>, probe_all: bool) -> Option<Gpus> {
    match engine {
        Ok(engine) if probe_all || host.gpus.is_none() => {
            Some(engine.probe_host(host.probe_image.as_deref()).await.gpus)
        }
        _ => None,
    }
}

/// A probe's answer as the GPU pane shows it: its CSV read as the local sampler reads nvidia-smi.
pub fn host_gpus(probe: Option<&Gpus>) -> HostGpus {
    match probe {
        Some(Gpus::Found(lines)) => match crate::gpu::parse_gpus(&lines.join("\n")) {
            Ok(gpus) => HostGpus::Found(gpus.into_iter().map(|(_, info)| info).collect()),
            Err(e) => HostGpus::Unknown(format!("its probe's answer: {e}")),
        },
        Some(Gpus::None(why)) => HostGpus::None(why.clone()),
        Some(Gpus::Unknown(why)) => HostGpus::Unknown(why.clone()),
        None => HostGpus::Unknown("not probed".into()),
    }
}

/// Where a run goes and who holds the place: `run_id`'s claim is held in `claims` from here
/// until it is released.
pub struct Placement<'a> {
    pub hosts: &'a [HostConfig],
    /// `--host NAME` or the confirm's choice: that host, placement's checks overridden.
    pub chosen: Option<&'a str>,
    pub need: &'a GpuRequest,
    pub workspace: &'a str,
    pub claims: &'a Claims,
    pub run_id: &'a RunId,
}

/// Why a run has no engine to go to (yet: placement is tried again while it waits).
#[derive(Debug, thiserror::Error)]
pub enum PlaceError {
    #[error(transparent)]
    Docker(#[from] DockerError),
    #[error("no host `{name}` in [[hosts]] ({known})")]
    UnknownHost { name: String, known: String },
    #[error("host {name}: {source}")]
    HostDown { name: String, source: DockerError },
    #[error("no host can take this run now: {0}")]
    NoneFits(#[from] crate::runs::NoHostFits),
    #[error("the chosen host {0} went away")]
    Gone(String),
}

/// The engine a run goes to: the chosen host, else placement over `hosts`, else `DOCKER_HOST`'s.
pub async fn engine_for(p: Placement<'_>) -> Result<(String, Engine), PlaceError> {
    if p.hosts.is_empty() && p.chosen.is_none() {
        return Ok(("local".to_string(), Engine::connect().await?));
    }
    let _one = p.claims.placing.lock().await;
    let (name, engine) = match p.chosen {
        Some(name) => (name.to_string(), chosen(p.hosts, name).await?),
        None => placed(&p).await?,
    };
    p.claims.hold(p.run_id, &name, p.need);
    Ok((name, engine))
}

/// The `[[hosts]]` host `name`, connected.
pub async fn chosen(hosts: &[HostConfig], name: &str) -> Result<Engine, PlaceError> {
    let Some(host) = hosts.iter().find(|h| h.name == name) else {
        let known = hosts.iter().map(|h| h.name.as_str()).collect::<Vec<_>>().join(", ");
        return Err(PlaceError::UnknownHost { name: name.to_string(), known });
    };
    connect(host).await.map_err(|source| PlaceError::HostDown { name: name.to_string(), source })
}

async fn placed(p: &Placement<'_>) -> Result<(String, Engine), PlaceError> {
    let Seen { slots, engines, .. } = slots(p.hosts, p.workspace, p.claims, false).await;
    let name = place(&slots, p.need)?;
    let index = p.hosts.iter().position(|h| h.name == name).unwrap_or(0);
    let engine = engines.into_iter().nth(index).and_then(Result::ok);
    Ok((name.clone(), engine.ok_or(PlaceError::Gone(name))?))
}
