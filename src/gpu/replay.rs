//! Recorded samples (JSON lines) as a GPU source, for tests and demos; loops at the end.

use super::GpuError;
use crate::telemetry::GpuSample;
use std::path::Path;

#[derive(Debug, Clone)]
pub struct Replay {
    samples: Vec<GpuSample>,
    next: usize,
}

impl Replay {
    pub fn load(path: &Path) -> Result<Replay, GpuError> {
        let error = |at: String, message: String| GpuError::Replay { file: at, message };
        let file = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| error(file.clone(), format!("cannot read: {e}")))?;
        let samples = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(n, l)| {
                serde_json::from_str(l).map_err(|e| error(format!("{file}:{}", n + 1), e.to_string()))
            })
            .collect::<Result<Vec<GpuSample>, GpuError>>()?;
        if samples.is_empty() {
            return Err(error(file, "no samples".into()));
        }
        Ok(Replay { samples, next: 0 })
    }

    pub fn next_sample(&mut self) -> GpuSample {
        let sample = self.samples[self.next % self.samples.len()].clone();
        self.next += 1;
        sample
    }
}
