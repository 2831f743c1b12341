//! GPU samples meet our containers: a process whose cgroup names a container of ours is
//! attributed to that run, commit and variant. Headless `perftriage gpu` lives here too.

use crate::docker::Engine;
use crate::gpu::{GpuSample, SourceKind, open_source};
use crate::runs::{LABEL_COMMIT, LABEL_RUN, LABEL_VARIANT};
use anyhow::Result;
use serde::Serialize;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Container id → (run id, commit, variant), from our labels.
pub type Owners = HashMap<String, (String, String, String)>;

/// Per run: the GPU memory peak and utilisation seen while it ran, for its result file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuSummary {
    pub peak_memory_mib: u64,
    util_sum: u64,
    util_count: u64,
    pub samples: u64,
}

impl GpuSummary {
    pub fn json(&self) -> serde_json::Value {
        let mean =
            if self.util_count == 0 { None } else { Some(self.util_sum as f64 / self.util_count as f64) };
        serde_json::json!({ "peak_memory_mib": self.peak_memory_mib, "mean_util_pct": mean, "samples": self.samples })
    }
}

/// Attribute a sample's processes to our runs and account them per run.
pub fn attribute(sample: &mut GpuSample, owners: &Owners, ledger: &mut HashMap<String, GpuSummary>) {
    let mut per_run: HashMap<String, (u64, Vec<u32>)> = HashMap::new();
    for p in &mut sample.processes {
        p.owner = p.container.as_ref().and_then(|c| owners.get(c)).cloned();
        if let Some((run, _, _)) = &p.owner {
            let entry = per_run.entry(run.clone()).or_default();
            entry.0 += p.mem_mib;
            entry.1.push(p.gpu);
        }
    }
    for (run, (mem, gpus)) in per_run {
        let summary = ledger.entry(run).or_default();
        summary.peak_memory_mib = summary.peak_memory_mib.max(mem);
        summary.samples += 1;
        for g in sample.gpus.iter().filter(|g| gpus.contains(&g.index)) {
            if let Some(u) = g.util_gpu {
                summary.util_sum += u64::from(u);
                summary.util_count += 1;
            }
        }
    }
}

pub async fn owners(engine: &Engine, workspace: &str) -> Owners {
    let mut out = Owners::new();
    for c in engine.ours(workspace).await.unwrap_or_default() {
        let label = |k: &str| c.labels.get(k).cloned().unwrap_or_default();
        out.insert(c.id.clone(), (label(LABEL_RUN), label(LABEL_COMMIT), label(LABEL_VARIANT)));
    }
    out
}

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
                    run: owner.map(|o| o.0.as_str()),
                    commit: owner.map(|o| o.1.as_str()),
                    variant: owner.map(|o| o.2.as_str()),
                }
            })
            .collect();
        let source = format!("{kind:?}").to_lowercase();
        let line = serde_json::json!({ "source": source, "at_ms": sample.at_ms, "gpus": sample.gpus, "processes": processes });
        return writeln!(out, "{line}");
    }
    for g in &sample.gpus {
        let pct = |v: Option<u32>| v.map_or("N/A".to_string(), |v| format!("{v}%"));
        writeln!(
            out,
            "GPU {} {:<24} util {:>4} mem {:>6}/{:<6} MiB  {:>4}  {:>5} / {:<5} W  SM {} MHz  mem {} MHz",
            g.index,
            g.name,
            pct(g.util_gpu),
            g.mem_used_mib,
            g.mem_total_mib,
            g.temp_c.map_or("N/A".into(), |t| format!("{t}C")),
            g.power_w.map_or("N/A".into(), |p| format!("{p:.0}")),
            g.power_limit_w.map_or("N/A".into(), |p| format!("{p:.0}")),
            g.sm_clock_mhz.map_or("N/A".into(), |c| c.to_string()),
            g.mem_clock_mhz.map_or("N/A".into(), |c| c.to_string()),
        )?;
    }
    for p in &sample.processes {
        let who = match p.container.as_ref().map(|c| (c, owners.get(c))) {
            Some((_, Some((run, commit, variant)))) => format!("{commit} {variant} (run {run})"),
            Some((c, None)) => format!("container {}", &c[..12.min(c.len())]),
            None => "not a container".into(),
        };
        writeln!(out, "  pid {:>7} on GPU {}  {:>6} MiB  {who}", p.pid, p.gpu, p.mem_mib)?;
    }
    Ok(())
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
            eprintln!("perftriage: no GPU can be read: {why}");
            return Ok(ExitCode::from(1));
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let ws = workspace.display().to_string();
    let owners = runtime.block_on(async {
        let connect = tokio::time::timeout(std::time::Duration::from_secs(2), Engine::connect()).await;
        match connect {
            Ok(Ok(engine)) => owners(&engine, &ws).await,
            _ => Owners::new(),
        }
    });
    let started = std::time::Instant::now();
    let mut out = std::io::stdout().lock();
    loop {
        let sample = match source.sample(started.elapsed().as_millis() as u64) {
            Ok(s) => s,
            Err(why) => {
                eprintln!("perftriage: GPU read failed: {why}");
                return Ok(ExitCode::from(1));
            }
        };
        print(&sample, source.kind(), &owners, json, &mut out)?;
        out.flush()?;
        if once {
            return Ok(ExitCode::SUCCESS);
        }
        std::thread::sleep(std::time::Duration::from_millis(interval_ms.max(crate::gpu::sampler_floor())));
    }
}
