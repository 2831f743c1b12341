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

/// Where an offer is listed in the menu, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OfferGroup {
    /// It answers the failure and applies to the image.
    Answers,
    /// It applies to the image but answers another failure.
    AlsoApplies,
    /// It does not apply to the image (listed with `show_why`).
    DoesNotApply,
}

impl OfferGroup {
    pub fn of(offer: &FixOffer) -> OfferGroup {
        match (offer.why_not.is_some(), offer.suggested) {
            (true, _) => OfferGroup::DoesNotApply,
            (false, true) => OfferGroup::Answers,
            (false, false) => OfferGroup::AlsoApplies,
        }
    }
}

impl FixMenu {
    /// The offers on screen by group: applicable ones, plus the others when `show_why` is on.
    pub fn shown(&self) -> Vec<&FixOffer> {
        let Some(Ok(offers)) = &self.offers else { return Vec::new() };
        let mut shown: Vec<&FixOffer> =
            offers.iter().filter(|o| self.show_why || o.why_not.is_none()).collect();
        shown.sort_by_key(|o| OfferGroup::of(o));
        shown
    }

    pub fn current(&self) -> Option<&FixOffer> {
        self.shown().get(self.selected).copied()
    }
}
