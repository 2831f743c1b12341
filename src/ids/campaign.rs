//! A campaign's name: the folder of its journal, so a plain file name.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CampaignName(String);

super::string_identity!(CampaignName);

impl CampaignName {
    /// Letters, digits, `-`, `_` and `.`, not starting with a `.`, at most 64 characters.
    pub fn is_plain(&self) -> bool {
        self.0.len() <= 64 && super::plain_name(&self.0)
    }
}
