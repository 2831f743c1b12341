//! NVML through nvml-wrapper: initialised once; each sample reads every device. Fields a device
//! does not support are `None`, not errors.

use super::GpuError;
use crate::telemetry::{GpuInfo, GpuProcess, GpuSample};
use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use nvml_wrapper::enums::device::UsedGpuMemory;

pub struct NvmlSource {
    nvml: Nvml,
}

impl NvmlSource {
    pub fn init() -> Result<NvmlSource, GpuError> {
        let nvml = Nvml::init().map_err(nvml_error)?;
        let count = nvml.device_count().map_err(nvml_error)?;
        if count == 0 {
            return Err(GpuError::Nvml("found no GPU".into()));
        }
        Ok(NvmlSource { nvml })
    }

    pub fn sample(&self, at_ms: u64) -> Result<GpuSample, GpuError> {
        let count = self.nvml.device_count().map_err(nvml_error)?;
        let mut gpus = Vec::new();
        let mut processes = Vec::new();
        for index in 0..count {
            let d = self.nvml.device_by_index(index).map_err(nvml_error)?;
            let util = d.utilization_rates().ok();
            let mem = d.memory_info().ok();
            gpus.push(GpuInfo {
                index,
                name: d.name().unwrap_or_else(|_| "GPU".into()),
                util_gpu: util.as_ref().map(|u| u.gpu),
                util_mem: util.as_ref().map(|u| u.memory),
                mem_used_mib: mem.as_ref().map_or(0, |m| m.used >> 20),
                mem_total_mib: mem.as_ref().map_or(0, |m| m.total >> 20),
                temp_c: d.temperature(TemperatureSensor::Gpu).ok(),
                power_w: d.power_usage().ok().map(|mw| f64::from(mw) / 1000.0),
                power_limit_w: d.enforced_power_limit().ok().map(|mw| f64::from(mw) / 1000.0),
                sm_clock_mhz: d.clock_info(Clock::SM).ok(),
                mem_clock_mhz: d.clock_info(Clock::Memory).ok(),
            });
            for p in d.running_compute_processes().unwrap_or_default() {
                let mem_mib = match p.used_gpu_memory {
                    UsedGpuMemory::Used(bytes) => bytes >> 20,
                    UsedGpuMemory::Unavailable => 0,
                };
                processes.push(GpuProcess { gpu: index, pid: p.pid, mem_mib, container: None, owner: None });
            }
        }
        Ok(GpuSample { at_ms, gpus, processes })
    }
}

#[allow(clippy::needless_pass_by_value)] // map_err hands the error over by value
fn nvml_error(e: nvml_wrapper::error::NvmlError) -> GpuError {
    GpuError::Nvml(e.to_string())
}
