//! GPU telemetry: samples from NVML (initialised once, on its own thread), from `nvidia-smi` when
//! NVML cannot load, or from a replay file; GPU processes mapped to containers through
//! `/proc/<pid>/cgroup`. No GPU is a normal state with a reason, never a crash.

mod cgroup;
mod nvml;
mod replay;
mod sampler;
mod smi;

pub use cgroup::{container_id_in, container_of};
pub use replay::Replay;
pub use sampler::{FLOOR_MS, Source, SourceKind, millis_since, open_source, spawn};
pub use smi::{parse_apps, parse_gpus};

/// Why GPUs cannot be read (or a sample failed); the board shows it, dimmed, and retries.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum GpuError {
    #[error("NVML: {0}")]
    Nvml(String),
    #[error("nvidia-smi: {0}")]
    Smi(String),
    #[error("{file}: {message}")]
    Replay { file: String, message: String },
    #[error("{nvml}; {smi}")]
    NoSource { nvml: Box<GpuError>, smi: Box<GpuError> },
}
