//! A commit's short hash, as a type.

use serde::{Deserialize, Serialize};

/// A commit's short hash as the dataset names it (`8aa1485f`): the key of a board row, a result
/// file's name and an image tag's part.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Short(String);

super::string_identity!(Short);

impl Short {
    /// Letters, digits, `-`, `_` and `.`, not starting with a `.`: usable as one file name.
    pub fn is_plain(&self) -> bool {
        super::plain_name(&self.0)
    }
}

/// A short hash names a folder and a file: `results/<short>_…`, `logs/<short>/…`.
impl AsRef<std::path::Path> for Short {
    fn as_ref(&self) -> &std::path::Path {
        self.0.as_ref()
    }
}

impl PartialEq<Short> for &str {
    fn eq(&self, other: &Short) -> bool {
        *self == other.0
    }
}
