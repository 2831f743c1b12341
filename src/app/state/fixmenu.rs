//! The fix menu's model: what the runtime found applicable in the variant's image, suggestions
//! first; recipes that do not apply stay hidden until the operator asks why.

use crate::dataset::Variant;
use crate::fixes::FixOffer;
use crate::ids::Short;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixMenu {
    pub short: Short,
    pub variant: Variant,
    pub category: String,
    /// `None` while the image is being probed; `Err` when probing failed.
    pub offers: Option<Result<Vec<FixOffer>, crate::app::JobError>>,
    pub selected: usize,
    pub show_why: bool,
}

impl FixMenu {
    /// The offers on screen: applicable ones, plus the others when `show_why` is on.
    pub fn shown(&self) -> Vec<&FixOffer> {
        match &self.offers {
            Some(Ok(offers)) => offers.iter().filter(|o| self.show_why || o.why_not.is_none()).collect(),
            _ => Vec::new(),
        }
    }

    pub fn current(&self) -> Option<&FixOffer> {
        self.shown().get(self.selected).copied()
    }
}
