//! An image reference as Docker takes it (`repo/name:tag`, `name@sha256:…`): what a run, a fix or
//! a build ran in, never confused with a commit or a template that still holds `{short}`.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ImageRef(String);

super::string_identity!(ImageRef);
