//! Headless `perftriage hosts [--json]`: each `[[hosts]]` engine (or, without any, the one
//! `DOCKER_HOST` names, as `local`) connected and probed at once: engine, NVIDIA runtime, GPUs
//! (`nvidia-smi` in a container asking for all; "none" is a normal answer), concurrency. Exit 0
//! when every host answered, 3 when one did not, 1 on a tool error.

use crate::config::HostConfig;
use crate::docker::{Gpus, HostProbe};
use crate::session::Context;
use anyhow::Result;
use std::process::ExitCode;

#[derive(Debug, serde::Serialize)]
struct HostState {
    name: String,
    endpoint: String,
    concurrency: usize,
    /// GPUs runs may use: the config's count, else the probe's.
    gpu_count: Option<usize>,
    #[serde(flatten)]
    probe: Option<HostProbe>,
    unreachable: Option<String>,
}

fn local() -> HostConfig {
    let endpoint =
        std::env::var("DOCKER_HOST").unwrap_or_else(|_| crate::docker::endpoint::DEFAULT_SOCKET.into());
    HostConfig { name: "local".into(), endpoint, tls: None, gpus: None, concurrency: 1, probe_image: None }
}

async fn probe(host: HostConfig) -> HostState {
    let (probe, unreachable) = match crate::jobs::fleet::connect(&host).await {
        Ok(engine) => (Some(engine.probe_host(host.probe_image.as_deref()).await), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let found = probe.as_ref().and_then(|p| p.gpus.count());
    let gpu_count = host.gpus.map(|n| n as usize).or(found);
    HostState {
        name: host.name,
        endpoint: host.endpoint,
        concurrency: host.concurrency,
        gpu_count,
        probe,
        unreachable,
    }
}

fn line(h: &HostState) -> String {
    let (state, nvidia, gpus) = match (&h.probe, &h.unreachable) {
        (Some(p), _) => {
            let gpus = match &p.gpus {
                Gpus::Found(lines) => {
                    // `index, uuid, name, …`: the names.
                    let names: Vec<&str> =
                        lines.iter().map(|l| l.split(',').nth(2).unwrap_or(l).trim()).collect();
                    format!("{} ({})", lines.len(), names.join("; "))
                }
                Gpus::None(why) => format!("none ({why})"),
                Gpus::Unknown(why) => format!("unknown ({why})"),
            };
            (p.engine.clone(), if p.nvidia_runtime { "yes" } else { "no" }, gpus)
        }
        (None, why) => (format!("UNREACHABLE: {}", why.clone().unwrap_or_default()), "-", "-".into()),
    };
    let count = h.gpu_count.map_or("?".into(), |n| n.to_string());
    format!(
        "{:<12} {:<32} {state}  nvidia:{nvidia}  gpus:{count} {gpus}  runs at once:{}",
        h.name, h.endpoint, h.concurrency
    )
}

pub fn hosts_cli(ctx: &Context, json: bool) -> Result<ExitCode> {
    let hosts = if ctx.config.hosts.is_empty() { vec![local()] } else { ctx.config.hosts.clone() };
    let states = super::runtime()?.block_on(futures_util::future::join_all(hosts.into_iter().map(probe)));
    if json {
        super::out::lines([super::out::json(&states)?])?;
    } else {
        super::out::lines(states.iter().map(line))?;
    }
    let all_answered = states.iter().all(|h| h.unreachable.is_none());
    Ok(if all_answered { ExitCode::SUCCESS } else { ExitCode::from(3) })
}
