//! A container's memory and CPU from the daemon's stats stream (about one sample a second), as
//! `docker stats` shows them: memory without the reclaimable page cache, CPU where 100 is one core.

use super::Engine;
use bollard::models::ContainerStatsResponse;
use bollard::query_parameters::StatsOptionsBuilder;
use futures_util::{Stream, StreamExt};

/// Memory in use and CPU percent of one sample (`None` until two CPU readings exist).
pub fn reading(s: &ContainerStatsResponse) -> Option<(u64, f64)> {
    let mem = s.memory_stats.as_ref()?;
    let cache =
        mem.stats.as_ref().and_then(|m| m.get("total_inactive_file").or(m.get("inactive_file")).copied());
    let used = mem.usage?.saturating_sub(cache.unwrap_or(0));
    let (now, before) = (s.cpu_stats.as_ref()?, s.precpu_stats.as_ref()?);
    let total = |c: &bollard::models::ContainerCpuStats| c.cpu_usage.as_ref().and_then(|u| u.total_usage);
    let cpu_delta = total(now)?.saturating_sub(total(before).unwrap_or(0));
    let system_delta = now.system_cpu_usage?.saturating_sub(before.system_cpu_usage.unwrap_or(0));
    #[allow(clippy::cast_precision_loss)]
    let cpu = if system_delta == 0 {
        0.0
    } else {
        cpu_delta as f64 / system_delta as f64 * f64::from(now.online_cpus.unwrap_or(1)) * 100.0
    };
    Some((used, cpu))
}

impl Engine {
    /// (memory bytes, CPU percent) samples until the container goes away.
    pub fn stats(&self, id: &str) -> impl Stream<Item = (u64, f64)> + use<> {
        let options = StatsOptionsBuilder::default().stream(true).one_shot(false).build();
        self.raw().stats(id, Some(options)).filter_map(|s| async move { s.ok().as_ref().and_then(reading) })
    }

    /// The daemon's CPUs and memory.
    pub async fn machine(&self) -> Option<crate::builds::Machine> {
        let info = self.raw().info().await.ok()?;
        Some(crate::builds::Machine {
            cpus: u32::try_from(info.ncpu?).ok()?,
            memory_bytes: u64::try_from(info.mem_total?).ok()?,
        })
    }
}
