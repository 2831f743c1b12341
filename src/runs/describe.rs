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

pub(super) fn gpu_words(gpus: &GpuRequest) -> String {
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

/// The confirm's check that the variants about to run measure one workload (they do by
/// construction: nothing in it depends on the variant): the line that says so, or why not.
pub fn one_workload(plans: &[&RunPlan]) -> String {
    let Some(first) = plans.first() else { return String::new() };
    let reasons: Vec<String> = plans[1..]
        .iter()
        .flat_map(|p| crate::report::reasons(first.variant, &first.workload, p.variant, &p.workload).0)
        .collect();
    if !reasons.is_empty() {
        return format!("≠ the variants would measure different workloads: {}", reasons.join("; "));
    }
    let known = first.workload.described().into_iter().filter(|(_, v)| v != "unknown");
    let parts: Vec<String> = known.map(|(label, value)| format!("{label} {value}")).collect();
    format!("one workload for every variant: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{ImageTemplates, load_embedded};

    #[test]
    fn the_three_variants_of_a_commit_measure_one_workload_and_a_changed_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let commits = load_embedded().unwrap().commits;
        let commit = commits.iter().find(|c| c.kind() == crate::dataset::BenchKind::Serving).unwrap();
        std::fs::write(dir.path().join(format!("{}.patch", commit.short)), "").unwrap();
        let config = super::super::RunConfig { patches: Some(dir.path().into()), ..Default::default() };
        let images = ImageTemplates::default();
        let plans: Vec<RunPlan> = Variant::ALL
            .into_iter()
            .map(|v| super::super::plan(commit, v, &config, &images, dir.path(), &"t".into()).unwrap())
            .collect();
        let refs: Vec<&RunPlan> = plans.iter().collect();
        let line = one_workload(&refs);
        assert!(line.starts_with("one workload for every variant: benchmark serving"), "{line}");
        assert!(line.contains("harness perftriage") && line.contains("rewrite rules perftriage 1"), "{line}");
        let mut other = plans[2].clone();
        other.workload.set("prompts", "7");
        let line = one_workload(&[&plans[0], &other]);
        assert!(
            line.starts_with(
                "≠ the variants would measure different workloads: prompts: baseline 100 — agent 7"
            ),
            "{line}"
        );
    }
}
