//! Recorded samples (JSON lines) as a GPU source, for tests and demos; loops at the end.

use super::GpuSample;
use std::path::Path;

#[derive(Debug, Clone)]
pub struct Replay {
    samples: Vec<GpuSample>,
    next: usize,
}

impl Replay {
    pub fn load(path: &Path) -> Result<Replay, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read GPU replay {}: {e}", path.display()))?;
        let samples = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(n, l)| serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1)))
            .collect::<Result<Vec<GpuSample>, String>>()?;
        if samples.is_empty() {
            return Err(format!("{}: no samples", path.display()));
        }
        Ok(Replay { samples, next: 0 })
    }

    pub fn next_sample(&mut self) -> GpuSample {
        let sample = self.samples[self.next % self.samples.len()].clone();
        self.next += 1;
        sample
    }
}
