//! GPU telemetry as data: one sample of every GPU and its processes, and the attribution of
//! processes to our runs. Pure; the `gpu` adapter produces samples.

mod attribution;
mod sample;

pub use attribution::{GpuSummary, Owner, Owners, attribute};
pub use sample::{GpuInfo, GpuProcess, GpuSample, HostGpus, SMI_GPU_QUERY};

/// The shortest sampling interval, in ms.
pub const FLOOR_MS: u64 = 250;
