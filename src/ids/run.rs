//! A run's id: unique in a workspace (a timestamp and a counter, or `preview` for a confirm's plan);
//! it names the run's container, logs and launch record.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(String);

super::string_identity!(RunId);

impl RunId {
    /// Letters, digits, `-`, `_` and `.`, not starting with a `.`: usable as one file name.
    pub fn is_plain(&self) -> bool {
        super::plain_name(&self.0)
    }
}

impl AsRef<std::path::Path> for RunId {
    fn as_ref(&self) -> &std::path::Path {
        self.0.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::RunId;

    #[test]
    fn only_a_plain_name_is_a_file_name() {
        for ok in ["20261127t014545z-27343", "20261127014611p31518-1", "fix", "a.b_c-1"] {
            assert!(RunId::from(ok).is_plain(), "{ok}");
        }
        for bad in ["", ".", "..", "../x", "a/b", ".hidden", "a b", "run\n1"] {
            assert!(!RunId::from(bad).is_plain(), "{bad:?}");
        }
    }
}
