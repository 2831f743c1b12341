//! Which containers are ours: container id → run, commit and variant, from our labels.

use crate::docker::Engine;
use crate::runs::{LABEL_COMMIT, LABEL_RUN, LABEL_VARIANT};
use crate::telemetry::{Owner, Owners};

pub async fn owners(engine: &Engine, workspace: &str) -> Owners {
    let mut out = Owners::new();
    for c in engine.ours(workspace).await.unwrap_or_default() {
        let label = |k: &str| c.labels.get(k).cloned().unwrap_or_default();
        let owner = Owner {
            run_id: label(LABEL_RUN).into(),
            short: label(LABEL_COMMIT).into(),
            variant: label(LABEL_VARIANT),
        };
        out.insert(c.id.clone(), owner);
    }
    out
}
