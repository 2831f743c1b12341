//! What a run plan will do, in the words a confirm shows: built from the plan itself, so the
//! confirm cannot name an image, command or GPU count other than the one that runs.

use super::{GpuRequest, RunPlan};
use crate::dataset::Variant;

impl RunPlan {
    pub fn describe(&self) -> Vec<String> {
        let v = self.variant;
        let fixed = if self.fixes.is_empty() {
            String::new()
        } else {
            format!("  (fixed image: {})", self.fixes.join(", "))
        };
        let mut lines = vec![
            format!("{} {}: {}{fixed}", v.letter(), v.name(), self.image),
            format!("  command: {}", self.final_command),
            format!("  GPUs: {}", gpu_words(&self.container.gpus)),
            format!("  benchmarks/ from {} ({})", short_hash(&self.scripts_commit), scripts_side(v)),
        ];
        if let Some(patch) = &self.patch {
            lines.push(format!("  agent patch: {}", patch.display()));
        }
        lines
    }
}

fn gpu_words(gpus: &GpuRequest) -> String {
    match gpus {
        GpuRequest::None => "none".into(),
        GpuRequest::All => "all of this host's".into(),
        GpuRequest::Count(n) => n.to_string(),
    }
}

fn scripts_side(variant: Variant) -> &'static str {
    match variant {
        Variant::Human => "the PR commit",
        Variant::Baseline | Variant::Agent => "the parent commit",
    }
}

fn short_hash(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}
