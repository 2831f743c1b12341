//! A run in a fixed image: the image a fix committed stands in for the variant's own, which the
//! plan keeps, so a run whose fixed image is gone falls back to it, unfixed.

use super::RunPlan;
use crate::ids::ImageRef;

impl RunPlan {
    /// Run in a fixed image (from a fix), with the recipes that made it.
    pub fn with_fixed_image(mut self, image: ImageRef, fixes: Vec<String>) -> RunPlan {
        let before = std::mem::replace(&mut self.image, image.clone());
        self.unfixed.get_or_insert(before);
        self.container.image = image;
        self.fixes = fixes;
        self
    }

    /// Back in the image its fixed image stood in for, with no fix: the fixed image is gone.
    /// `None` when it runs in no fixed image.
    pub fn without_fix(&self) -> Option<RunPlan> {
        let mut plan = self.clone();
        let unfixed = plan.unfixed.take()?;
        (plan.image, plan.container.image) = (unfixed.clone(), unfixed);
        plan.fixes.clear();
        Some(plan)
    }

    /// Whether its image can only have been made on an engine (a fixed image named without a
    /// registry host): a missing one is gone, not pulled.
    pub fn in_a_local_fixed_image(&self) -> bool {
        let first = self.image.as_str().split('/').next().unwrap_or_default();
        let names_a_registry = self.image.as_str().contains('/')
            && (first.contains('.') || first.contains(':') || first == "localhost");
        self.unfixed.is_some() && !names_a_registry
    }

    /// The plan back in the image its local fixed image stood in for, where its engine said it
    /// has no such image; `None` where it has it, or could not say (the run inspects the image
    /// again, and a failure there is a Docker error, retried — not a run without its fix).
    pub fn unfixed_when_gone<E>(&self, has_image: &Result<bool, E>) -> Option<RunPlan> {
        match has_image {
            Ok(false) if self.in_a_local_fixed_image() => self.without_fix(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RunConfig, plan};
    use super::*;
    use crate::dataset::{BenchKind, Variant};
    use std::path::Path;

    fn human() -> RunPlan {
        let commits = crate::dataset::load_embedded().unwrap().commits;
        let commit = commits.iter().find(|c| c.kind() == BenchKind::Serving).unwrap();
        let images = crate::dataset::ImageTemplates::default();
        plan(commit, Variant::Human, &RunConfig::default(), &images, Path::new("/ws"), &"r".into()).unwrap()
    }

    #[test]
    fn a_fixed_image_keeps_the_image_it_stands_in_for_and_only_a_local_one_is_never_pulled() {
        let plan = human();
        let unfixed = plan.image.clone();
        let fixed = plan.clone().with_fixed_image("perftriage-fixed:abc".into(), vec!["numpy_lt_2".into()]);
        assert!(fixed.in_a_local_fixed_image());
        let again = fixed.clone().with_fixed_image("perftriage-fixed:def".into(), vec![]);
        assert_eq!((again.image.as_str(), again.unfixed.as_ref()), ("perftriage-fixed:def", Some(&unfixed)));
        let back = fixed.without_fix().unwrap();
        assert_eq!((&back.image, &back.container.image, back.fixes.len()), (&unfixed, &unfixed, 0));
        assert_eq!(plan.without_fix(), None, "no fixed image, nothing to fall back from");
        let pushed = plan.with_fixed_image("registry.lab:5000/perftriage-fixed:abc".into(), vec![]);
        assert!(!pushed.in_a_local_fixed_image(), "a registry's image is pulled as any image is");
    }

    #[test]
    fn a_fixed_image_is_gone_only_where_the_engine_says_it_has_no_such_image() {
        let fixed = human().with_fixed_image("perftriage-fixed:abc".into(), vec!["numpy_lt_2".into()]);
        let unfixed = fixed.unfixed_when_gone(&Ok::<_, ()>(false)).expect("gone: back in its own image");
        assert_eq!((unfixed.image, unfixed.fixes.len()), (human().image, 0));
        assert_eq!(fixed.unfixed_when_gone(&Ok::<_, ()>(true)), None, "there");
        assert_eq!(fixed.unfixed_when_gone(&Err(())), None, "an engine that cannot say keeps the fix");
        let pushed = human().with_fixed_image("registry.lab:5000/perftriage-fixed:abc".into(), vec![]);
        assert_eq!(pushed.unfixed_when_gone(&Ok::<_, ()>(false)), None, "a registry's image is pulled");
    }
}
