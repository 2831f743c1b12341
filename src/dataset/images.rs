//! Image names from templates (ISO-Bench naming by default; overridable in config).

use super::{Commit, Variant};
use crate::ids::ImageRef;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImageTemplates {
    /// Variables: `{full}`, `{short}`, `{parent}`, `{parent12}`.
    #[serde(deserialize_with = "crate::checked::image_template")]
    pub human: String,
    #[serde(deserialize_with = "crate::checked::image_template")]
    pub baseline: String,
}

impl Default for ImageTemplates {
    fn default() -> Self {
        ImageTemplates {
            human: "anonymous/vllm-bench:{full}".into(),
            baseline: "anonymous/vllm-baseline:baseline-{parent12}".into(),
        }
    }
}

impl ImageTemplates {
    /// The image a variant runs in; the agent runs in the baseline image plus its patch.
    /// `None` when the template needs a parent the commit does not have.
    pub fn image_for(&self, commit: &Commit, variant: Variant) -> Option<ImageRef> {
        match variant {
            Variant::Human => {
                Some(commit.images.human_override.clone().unwrap_or_else(|| fill(&self.human, commit)))
            }
            Variant::Baseline | Variant::Agent => {
                if commit.parent.is_none() && self.baseline.contains("{parent") {
                    return None;
                }
                Some(fill(&self.baseline, commit))
            }
        }
    }
}

fn fill(template: &str, commit: &Commit) -> ImageRef {
    let parent = commit.parent.as_deref().unwrap_or("");
    template
        .replace("{full}", &commit.full)
        .replace("{short}", &commit.short)
        .replace("{parent12}", parent.get(..12).unwrap_or(parent))
        .replace("{parent}", parent)
        .into()
}
