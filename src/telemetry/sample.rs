//! One reading of every GPU and its processes; also the replay file's line format.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuInfo {
    pub index: u32,
    pub name: String,
    /// Percent; `None` where the driver says N/A.
    pub util_gpu: Option<u32>,
    pub util_mem: Option<u32>,
    pub mem_used_mib: u64,
    pub mem_total_mib: u64,
    pub temp_c: Option<u32>,
    pub power_w: Option<f64>,
    pub power_limit_w: Option<f64>,
    pub sm_clock_mhz: Option<u32>,
    pub mem_clock_mhz: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuProcess {
    pub gpu: u32,
    pub pid: u32,
    pub mem_mib: u64,
    /// The container the process runs in (64-hex id), when its cgroup names one.
    #[serde(default)]
    pub container: Option<String>,
    /// Our run in that container.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<super::Owner>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuSample {
    /// Milliseconds since the source started.
    pub at_ms: u64,
    pub gpus: Vec<GpuInfo>,
    #[serde(default)]
    pub processes: Vec<GpuProcess>,
}

/// The `nvidia-smi --query-gpu` fields a sample is read from (local sampler and host probes).
pub const SMI_GPU_QUERY: &str = "index,uuid,name,utilization.gpu,utilization.memory,memory.used,memory.total,temperature.gpu,power.draw,power.limit,clocks.sm,clocks.mem";

/// A `[[hosts]]` host's GPUs as its last probe (`nvidia-smi` in a container there) saw them.
#[derive(Debug, Clone, PartialEq)]
pub enum HostGpus {
    Found(Vec<GpuInfo>),
    /// Why there are none (no NVIDIA runtime, no device): a normal answer.
    None(String),
    /// Not probed (down, no probe image), or its answer unreadable, and why.
    Unknown(String),
}
