//! The job service's image jobs: listing the fixed images of ours (the configured repository and
//! the local one of fixes that were not committed) and removing one.

use super::JobService;
use crate::app::{Level, Msg};

impl JobService {
    fn our_repos(&self) -> Vec<String> {
        vec![self.setup.fixed_repo.clone(), crate::jobs::fix::LOCAL_REPO.to_string()]
    }

    /// Answer with `Msg::Images`: our fixed images, or why they cannot be listed.
    pub fn list_images(&self) {
        let (engine, tx, repos) = (self.engine(), self.tx.clone(), self.our_repos());
        tokio::spawn(async move {
            let listed = match engine {
                Some(engine) => engine.images_in(&repos).await.map_err(|e| e.to_string()),
                None => Err("Docker is not connected".to_string()),
            };
            let _ = tx.send(Msg::Images(listed));
        });
    }

    /// Remove a fixed image's tag, say so, and list again.
    pub fn remove_image(&self, tag: String) {
        let (Some(engine), tx, repos) = (self.engine(), self.tx.clone(), self.our_repos()) else { return };
        tokio::spawn(async move {
            let (level, text) = match engine.remove_image(&tag).await {
                Ok(()) => (Level::Info, format!("removed image {tag}")),
                Err(e) => (Level::Error, format!("cannot remove image {tag}: {e}")),
            };
            let _ = tx.send(Msg::Notice(level, text));
            let _ = tx.send(Msg::Images(engine.images_in(&repos).await.map_err(|e| e.to_string())));
        });
    }
}
