//! GPU samples meet our containers: a process whose cgroup names a container of ours is
//! attributed to that run, commit and variant. Headless `perftriage gpu` lives here too.

use crate::docker::Engine;
use crate::gpu::{SourceKind, open_source};
use crate::telemetry::{GpuSample, Owners};
use anyhow::Result;
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

#[derive(Debug, Serialize)]
struct ProcessLine<'a> {
    gpu: u32,
    pid: u32,
    mem_mib: u64,
    container: Option<&'a str>,
    run: Option<&'a str>,
    commit: Option<&'a str>,
    variant: Option<&'a str>,
}

fn print(
    sample: &GpuSample,
    kind: SourceKind,
    owners: &Owners,
    json: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    if json {
        return print_json(sample, kind, owners, out);
    }
    for g in &sample.gpus {
        writeln!(out, "{}", gpu_line(g))?;
    }
    for p in &sample.processes {
        let who = match p.container.as_ref().map(|c| (c, owners.get(c))) {
            Some((_, Some(o))) => format!("{} {} (run {})", o.short, o.variant, o.run_id),
            Some((c, None)) => format!("container {}", &c[..12.min(c.len())]),
            None => "not a container".into(),
        };
        writeln!(out, "  pid {:>7} on GPU {}  {:>6} MiB  {who}", p.pid, p.gpu, p.mem_mib)?;
    }
    Ok(())
}

fn print_json(
    sample: &GpuSample,
    kind: SourceKind,
    owners: &Owners,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let processes: Vec<ProcessLine> = sample
        .processes
        .iter()
        .map(|p| {
            let owner = p.container.as_ref().and_then(|c| owners.get(c));
            ProcessLine {
                gpu: p.gpu,
                pid: p.pid,
                mem_mib: p.mem_mib,
                container: p.container.as_deref(),
                run: owner.map(|o| o.run_id.as_str()),
                commit: owner.map(|o| o.short.as_str()),
                variant: owner.map(|o| o.variant.as_str()),
            }
        })
        .collect();
    let source = format!("{kind:?}").to_lowercase();
    let line = serde_json::json!({ "source": source, "at_ms": sample.at_ms, "gpus": sample.gpus, "processes": processes });
    writeln!(out, "{}", super::out::json(&line)?)
}

fn gpu_line(g: &crate::telemetry::GpuInfo) -> String {
    let na = |v: Option<String>| v.unwrap_or_else(|| "N/A".into());
    format!(
        "GPU {} {:<24} util {:>4} mem {:>6}/{:<6} MiB  {:>4}  {:>5} / {:<5} W  SM {} MHz  mem {} MHz",
        g.index,
        g.name,
        na(g.util_gpu.map(|v| format!("{v}%"))),
        g.mem_used_mib,
        g.mem_total_mib,
        na(g.temp_c.map(|t| format!("{t}C"))),
        na(g.power_w.map(|p| format!("{p:.0}"))),
        na(g.power_limit_w.map(|p| format!("{p:.0}"))),
        na(g.sm_clock_mhz.map(|c| c.to_string())),
        na(g.mem_clock_mhz.map(|c| c.to_string())),
    )
}

/// Our containers, when Docker answers within two seconds (else none: GPUs still print).
fn our_containers(workspace: &Path) -> Result<Owners> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let ws = workspace.display().to_string();
    Ok(runtime.block_on(async {
        let connect = tokio::time::timeout(std::time::Duration::from_secs(2), Engine::connect()).await;
        match connect {
            Ok(Ok(engine)) => crate::jobs::owners::owners(&engine, &ws).await,
            _ => Owners::new(),
        }
    }))
}

pub fn gpu_cli(
    replay: Option<&Path>,
    workspace: &Path,
    once: bool,
    json: bool,
    interval_ms: u64,
) -> Result<ExitCode> {
    let mut source = match open_source(replay) {
        Ok(s) => s,
        Err(why) => {
            super::out::err(&format!("perftriage: no GPU can be read: {why}"));
            return Ok(ExitCode::from(1));
        }
    };
    let owners = our_containers(workspace)?;
    let started = std::time::Instant::now();
    let mut out = super::out::stdout();
    loop {
        let sample = match source.sample(crate::gpu::millis_since(started)) {
            Ok(s) => s,
            Err(why) => {
                super::out::err(&format!("perftriage: GPU read failed: {why}"));
                return Ok(ExitCode::from(1));
            }
        };
        print(&sample, source.kind(), &owners, json, &mut out)?;
        out.flush()?;
        if once {
            return Ok(ExitCode::SUCCESS);
        }
        std::thread::sleep(std::time::Duration::from_millis(interval_ms.max(crate::telemetry::FLOOR_MS)));
    }
}
