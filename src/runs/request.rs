//! What an operator asks to run — a variant of a commit, in a fixed image or not, on a host, so
//! many times — before it is planned (`launch_plan`) and launched.

use super::{LaunchAsk, RepeatPlan};
use crate::dataset::Variant;
use crate::ids::{ImageRef, Short};

#[derive(Debug, Clone, PartialEq)]
pub struct RunRequest {
    pub short: Short,
    pub variant: Variant,
    /// A fixed image to run in, with the recipes that made it.
    pub image: Option<ImageRef>,
    pub fixes: Vec<String>,
    /// The `[[hosts]]` host the confirm chose; `None`: placed when it starts.
    pub host: Option<String>,
    /// Benchmark runs against one server start, as the confirm (or `[runs] repeat`) chose.
    pub repeat: RepeatPlan,
}

impl RunRequest {
    /// What `launch_plan` needs of it beyond the commit and variant.
    pub fn ask(&self) -> LaunchAsk {
        let fixed = self.image.clone().map(|image| (image, self.fixes.clone()));
        LaunchAsk { fixed, repeat: self.repeat.clone() }
    }
}
