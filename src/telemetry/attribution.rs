//! GPU processes meet our containers: a process whose container carries our labels is attributed to
//! that run, and each run's peak memory and mean utilisation are accounted for its result file.

use super::GpuSample;
use crate::ids::Short;
use crate::runs::RunId;
use std::collections::HashMap;

/// Our run in a container, from its labels.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Owner {
    pub run_id: RunId,
    pub short: Short,
    pub variant: String,
}

/// Container id → our run in it.
pub type Owners = HashMap<String, Owner>;

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
pub fn attribute(sample: &mut GpuSample, owners: &Owners, ledger: &mut HashMap<RunId, GpuSummary>) {
    let mut per_run: HashMap<RunId, (u64, Vec<u32>)> = HashMap::new();
    for p in &mut sample.processes {
        p.owner = p.container.as_ref().and_then(|c| owners.get(c)).cloned();
        if let Some(owner) = &p.owner {
            let entry = per_run.entry(owner.run_id.clone()).or_default();
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
