//! A run's identity, as a type: a run id is never mistaken for a commit, an image or a host.

use serde::{Deserialize, Serialize};

/// A run's id: unique in a workspace (a timestamp and a counter, or `preview` for a confirm's plan);
/// it names the run's container, logs and launch record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(String);

impl RunId {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for RunId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::ops::Deref for RunId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for RunId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<std::path::Path> for RunId {
    fn as_ref(&self) -> &std::path::Path {
        self.0.as_ref()
    }
}

impl From<&str> for RunId {
    fn from(id: &str) -> RunId {
        RunId(id.to_string())
    }
}

impl From<String> for RunId {
    fn from(id: String) -> RunId {
        RunId(id)
    }
}

impl PartialEq<str> for RunId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RunId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}
