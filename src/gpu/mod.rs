//! GPU telemetry: samples from NVML (initialised once, on its own thread), from `nvidia-smi` when
//! NVML cannot load, or from a replay file; GPU processes mapped to containers through
//! `/proc/<pid>/cgroup`. No GPU is a normal state with a reason, never a crash.

mod cgroup;
mod nvml;
mod replay;
mod sample;
mod sampler;
mod smi;

pub use cgroup::{container_id_in, container_of};
pub use replay::Replay;
pub use sample::{GpuInfo, GpuProcess, GpuSample};
pub use sampler::{FLOOR_MS, Source, SourceKind, open_source, spawn};

/// The shortest sampling interval, in ms.
pub fn sampler_floor() -> u64 {
    FLOOR_MS
}
pub use smi::{parse_apps, parse_gpus};
