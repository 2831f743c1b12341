//! The sampler thread: picks a source (replay, else NVML, else nvidia-smi), samples at the
//! requested interval (floor 250 ms) and reports. Without a GPU it reports why once and retries
//! every 30 s. A stalled driver call stalls only this thread: the board keeps the last sample.

use super::nvml::NvmlSource;
use super::{GpuError, Replay, container_of, parse_apps, parse_gpus, smi};
use crate::telemetry::GpuSample;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub const FLOOR_MS: u64 = 250;
const RETRY: Duration = Duration::from_secs(30);

pub enum Source {
    Nvml(Box<NvmlSource>),
    Smi,
    Replay(Replay),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    Nvml,
    Smi,
    Replay,
}

impl Source {
    pub fn kind(&self) -> SourceKind {
        match self {
            Source::Nvml(_) => SourceKind::Nvml,
            Source::Smi => SourceKind::Smi,
            Source::Replay(_) => SourceKind::Replay,
        }
    }

    pub fn sample(&mut self, at_ms: u64) -> Result<GpuSample, GpuError> {
        let mut sample = match self {
            Source::Nvml(n) => n.sample(at_ms)?,
            Source::Smi => smi_sample(at_ms)?,
            Source::Replay(r) => return Ok(GpuSample { at_ms, ..r.next_sample() }),
        };
        for p in &mut sample.processes {
            p.container = container_of(Path::new("/proc"), p.pid);
        }
        Ok(sample)
    }
}

fn smi_sample(at_ms: u64) -> Result<GpuSample, GpuError> {
    let run = |args: &[&str]| -> Result<String, GpuError> {
        let out = Command::new("nvidia-smi").args(args).output().map_err(|e| GpuError::Smi(e.to_string()))?;
        if !out.status.success() {
            return Err(GpuError::Smi(String::from_utf8_lossy(&out.stderr).trim().to_string()));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let gpus =
        parse_gpus(&run(&[&format!("--query-gpu={}", smi::GPU_QUERY), "--format=csv,noheader,nounits"])?)?;
    let apps = run(&[&format!("--query-compute-apps={}", smi::APP_QUERY), "--format=csv,noheader,nounits"])
        .unwrap_or_default();
    let processes = parse_apps(&apps, &gpus);
    Ok(GpuSample { at_ms, gpus: gpus.into_iter().map(|(_, g)| g).collect(), processes })
}

/// The best source here, or why there is none.
pub fn open_source(replay: Option<&Path>) -> Result<Source, GpuError> {
    if let Some(path) = replay {
        return Replay::load(path).map(Source::Replay);
    }
    let nvml_error = match NvmlSource::init() {
        Ok(n) => return Ok(Source::Nvml(Box::new(n))),
        Err(e) => e,
    };
    match smi_sample(0) {
        Ok(_) => Ok(Source::Smi),
        Err(smi) => Err(GpuError::NoSource { nvml: Box::new(nvml_error), smi: Box::new(smi) }),
    }
}

/// Sample on a thread until `send` fails; `interval_ms` can be changed while it runs.
pub fn spawn(
    replay: Option<PathBuf>,
    interval_ms: Arc<AtomicU64>,
    mut send: impl FnMut(Result<(SourceKind, GpuSample), GpuError>) -> bool + Send + 'static,
) {
    std::thread::spawn(move || {
        let started = Instant::now();
        loop {
            let mut source = match open_source(replay.as_deref()) {
                Ok(s) => s,
                Err(why) => {
                    if !send(Err(why)) {
                        return;
                    }
                    std::thread::sleep(RETRY);
                    continue;
                }
            };
            loop {
                let at = millis_since(started);
                let result = source.sample(at).map(|s| (source.kind(), s));
                let failed = result.is_err();
                if !send(result) {
                    return;
                }
                if failed {
                    std::thread::sleep(RETRY);
                    break;
                }
                std::thread::sleep(Duration::from_millis(interval_ms.load(Ordering::Relaxed).max(FLOOR_MS)));
            }
        }
    });
}

/// Milliseconds since `started` (saturating: a sampler would need 584 million years to overflow).
pub fn millis_since(started: std::time::Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}
