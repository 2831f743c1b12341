//! A launch record is a claim on a container: before a run is picked up again from its record,
//! the container must be ours (its labels name this workspace, the record's commit, variant and
//! run id) and created from the record's plan (its name and image the record's, its plan label
//! the fingerprint of the record's plan — so changed commands, fixes or repeats are seen too).
//! Pure: the caller inspects the container.

use super::{LABEL_COMMIT, LABEL_RUN, LABEL_VARIANT, LABEL_WORKSPACE, RunPlan};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;

/// The container label holding the fingerprint of the plan it was created for.
pub const LABEL_PLAN: &str = "perftriage.plan";

/// A container as Docker says it was created.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatedAs {
    pub name: String,
    pub image: String,
    pub labels: HashMap<String, String>,
}

/// Where a launch record and its container disagree: what, and both values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the launch record does not match its container: {what} is `{}` in the record, `{}` on the container; the run is refused and its container left for a look",
    crate::logs::display_text(recorded),
    crate::logs::display_text(container)
)]
pub struct Disagreement {
    pub what: &'static str,
    pub recorded: String,
    pub container: String,
}

impl RunPlan {
    /// A digest of everything the plan says (key order fixed, so it is the same in every
    /// process), without the labels the container carries it in.
    pub fn fingerprint(&self) -> String {
        let mut plan = self.clone();
        plan.container.labels.clear();
        // A plan is strings, numbers and maps with string keys: it always serialises.
        let value = serde_json::to_value(&plan).unwrap_or_default();
        let digest = Sha256::digest(serde_json::to_vec(&value).unwrap_or_default());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Whether the container `created` is the one `plan` (read from its launch record) launched in
/// `workspace`; the first disagreement otherwise.
pub fn check(plan: &RunPlan, workspace: &Path, created: &CreatedAs) -> Result<(), Disagreement> {
    let label = |key: &str| created.labels.get(key).cloned().unwrap_or_else(|| "(none)".into());
    let expected = [
        ("its workspace label", LABEL_WORKSPACE, workspace.display().to_string()),
        ("its run id label", LABEL_RUN, plan.run_id.to_string()),
        ("its commit label", LABEL_COMMIT, plan.short.to_string()),
        ("its variant label", LABEL_VARIANT, plan.variant.name().to_string()),
    ];
    let labelled = expected.into_iter().map(|(what, key, recorded)| (what, recorded, label(key)));
    let created_as = [
        ("its name", plan.container.name.clone(), created.name.clone()),
        ("its image", plan.image.to_string(), created.image.clone()),
        // Last: any other change (commands, fixes, repeats) shows only here. A container made
        // before plans were fingerprinted has no such label: that much is not checked.
        ("its plan", plan.fingerprint(), label(LABEL_PLAN)),
    ];
    let unlabelled = !created.labels.contains_key(LABEL_PLAN);
    let created_as = created_as.into_iter().filter(|(what, _, _)| !(unlabelled && *what == "its plan"));
    let pairs = labelled.chain(created_as);
    match pairs.into_iter().find(|(_, recorded, container)| recorded != container) {
        Some((what, recorded, container)) => Err(Disagreement { what, recorded, container }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The human run of the embedded dataset's first serving commit.
    fn plan() -> RunPlan {
        let commits = crate::dataset::load_embedded().unwrap().commits;
        let commit = commits.iter().find(|c| c.kind() == crate::dataset::BenchKind::Serving).unwrap();
        let (config, images) =
            (super::super::RunConfig::default(), crate::dataset::ImageTemplates::default());
        let variant = crate::dataset::Variant::Human;
        super::super::plan(commit, variant, &config, &images, Path::new("/ws"), &"r1".into()).unwrap()
    }

    fn created(plan: &RunPlan, ws: &Path) -> CreatedAs {
        let mut labels = HashMap::from([
            (LABEL_WORKSPACE.to_string(), ws.display().to_string()),
            (LABEL_RUN.to_string(), plan.run_id.to_string()),
            (LABEL_COMMIT.to_string(), plan.short.to_string()),
            (LABEL_VARIANT.to_string(), plan.variant.name().to_string()),
        ]);
        labels.insert(LABEL_PLAN.into(), plan.fingerprint());
        CreatedAs { name: plan.container.name.clone(), image: plan.image.to_string(), labels }
    }

    #[test]
    fn a_record_matching_its_container_holds_and_each_change_is_named_with_both_values() {
        let (ws, plan) = (Path::new("/ws"), plan());
        let ours = created(&plan, ws);
        assert_eq!(check(&plan, ws, &ours), Ok(()));
        let mut other = plan.clone();
        other.variant = crate::dataset::Variant::Baseline;
        assert_eq!(check(&other, ws, &ours).unwrap_err().what, "its variant label");
        let mut argv = plan.clone();
        argv.bench_argv.push("--extra".into());
        let wrong = check(&argv, ws, &ours).unwrap_err();
        assert_eq!((wrong.what, wrong.container.as_str()), ("its plan", ours.labels[LABEL_PLAN].as_str()));
        let mut image = plan.clone();
        image.image = "other/image:1".into();
        assert_eq!(check(&image, ws, &ours).unwrap_err().what, "its image");
        let mut named = ours.clone();
        named.name = "unrelated".into();
        let wrong = check(&plan, ws, &named).unwrap_err();
        assert_eq!(
            (wrong.what, wrong.recorded.as_str(), wrong.container.as_str()),
            ("its name", plan.container.name.as_str(), "unrelated")
        );
        let mut older = ours.clone();
        older.labels.remove(LABEL_PLAN);
        assert_eq!(check(&plan, ws, &older), Ok(()), "a container from before fingerprints");
        let stranger = CreatedAs { labels: HashMap::new(), ..ours };
        assert_eq!(check(&plan, ws, &stranger).unwrap_err().container, "(none)");
    }

    #[test]
    fn a_fingerprint_ignores_label_order_and_the_labels_themselves() {
        let plan = plan();
        let mut relabelled = plan.clone();
        relabelled.container.labels.insert(LABEL_PLAN.into(), "anything".into());
        assert_eq!(plan.fingerprint(), relabelled.fingerprint());
        let reread: RunPlan = serde_json::from_slice(&serde_json::to_vec_pretty(&plan).unwrap()).unwrap();
        assert_eq!(plan.fingerprint(), reread.fingerprint(), "a plan read back from its record");
    }
}
