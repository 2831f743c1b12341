//! `nvidia-smi --query-gpu=… --format=csv,noheader,nounits` and `--query-compute-apps=…`, with
//! `[N/A]` and `[Not Supported]` as missing values.

use super::GpuError;
use crate::telemetry::{GpuInfo, GpuProcess};

pub const GPU_QUERY: &str = crate::telemetry::SMI_GPU_QUERY;
pub const APP_QUERY: &str = "gpu_uuid,pid,used_memory";

fn field<T: std::str::FromStr>(s: &str) -> Option<T> {
    let s = s.trim();
    if s.starts_with('[') { None } else { s.parse().ok() }
}

/// GPUs and their uuids, from the `GPU_QUERY` output.
pub fn parse_gpus(csv: &str) -> Result<Vec<(String, GpuInfo)>, GpuError> {
    csv.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(n, line)| {
            let f: Vec<&str> = line.split(',').collect();
            if f.len() < 12 {
                return Err(GpuError::Smi(format!(
                    "line {}: expected 12 fields, got {}: {line}",
                    n + 1,
                    f.len()
                )));
            }
            let info = GpuInfo {
                index: field(f[0])
                    .ok_or_else(|| GpuError::Smi(format!("line {}: bad index `{}`", n + 1, f[0].trim())))?,
                name: f[2].trim().to_string(),
                util_gpu: field(f[3]),
                util_mem: field(f[4]),
                mem_used_mib: field(f[5]).unwrap_or(0),
                mem_total_mib: field(f[6]).unwrap_or(0),
                temp_c: field(f[7]),
                power_w: field(f[8]),
                power_limit_w: field(f[9]),
                sm_clock_mhz: field(f[10]),
                mem_clock_mhz: field(f[11]),
            };
            Ok((f[1].trim().to_string(), info))
        })
        .collect()
}

/// Compute processes from the `APP_QUERY` output, placed on GPUs by uuid.
pub fn parse_apps(csv: &str, gpus: &[(String, GpuInfo)]) -> Vec<GpuProcess> {
    csv.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let uuid = f.first()?.trim();
            let gpu = gpus.iter().find(|(u, _)| u == uuid)?.1.index;
            Some(GpuProcess {
                gpu,
                pid: field(f.get(1)?)?,
                mem_mib: field(f.get(2)?).unwrap_or(0),
                container: None,
                owner: None,
            })
        })
        .collect()
}
