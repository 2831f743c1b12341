//! The job service's image jobs: listing the fixed images of ours (the configured repository, the
//! local one of fixes that were not committed, and the baseline repository builds commit to), with
//! the workspace that made each, and removing one.

use super::{JobService, ServiceError};
use crate::app::{JobError, Level, Msg};
use crate::docker::RepoFilter;
use crate::jobs::images::listed;

impl JobService {
    /// The fixed-image repositories and the built baselines' (`jobs::images::our_repos`).
    fn our_repos(&self) -> Vec<RepoFilter> {
        crate::jobs::images::our_repos(&self.setup.fixed_repo, &self.setup.images.baseline)
    }

    fn owner(&self) -> crate::fixes::Owner {
        crate::fixes::Owner::of(&self.setup.exec.workspace)
    }

    /// The engine, or an error notice that `what` cannot be done without it.
    fn engine_for(&self, what: &str) -> Option<crate::docker::Engine> {
        let engine = self.engine();
        if engine.is_none() {
            let _ =
                self.tx.send(Msg::Notice(Level::Error, format!("cannot {what}: Docker is not connected")));
        }
        engine
    }

    /// Answer with `Msg::Images`: our fixed images, or why they cannot be listed.
    pub fn list_images(&self) {
        let (engine, tx, repos, owner) = (self.engine(), self.tx.clone(), self.our_repos(), self.owner());
        tokio::spawn(async move {
            let listed = match engine {
                Some(engine) => listed(&engine, &repos, &owner).await.map_err(JobError::from),
                None => Err(JobError::from(ServiceError::NoDocker)),
            };
            let _ = tx.send(Msg::Images(listed));
        });
    }

    /// Push a fixed image to the configured registry, saying each finished layer; answer with
    /// `Msg::Pushed` (its digest), or an error notice.
    pub fn push_image(&self, tag: String) {
        let Some(engine) = self.engine_for(&format!("push {tag}")) else { return };
        let tx = self.tx.clone();
        let registry = self.setup.registry.clone();
        tokio::spawn(async move {
            let msg = match push(&engine, &registry, &tag, &tx).await {
                Ok(reference) => Msg::Pushed { tag, reference },
                Err(why) => Msg::Notice(Level::Error, format!("cannot push {tag}: {why}")),
            };
            let _ = tx.send(msg);
        });
    }

    /// Remove a fixed image's tag, say so, and list again.
    pub fn remove_image(&self, tag: String) {
        let Some(engine) = self.engine_for(&format!("remove image {tag}")) else { return };
        let (tx, repos, owner) = (self.tx.clone(), self.our_repos(), self.owner());
        tokio::spawn(async move {
            let (level, text) = match engine.remove_image(&tag).await {
                Ok(()) => {
                    let _ = tx.send(Msg::ImageRemoved(tag.clone()));
                    (Level::Info, format!("removed image {tag}"))
                }
                Err(e) => (Level::Error, format!("cannot remove image {tag}: {e}")),
            };
            let _ = tx.send(Msg::Notice(level, text));
            let _ = tx.send(Msg::Images(listed(&engine, &repos, &owner).await.map_err(JobError::from)));
        });
    }
}

async fn push(
    engine: &crate::docker::Engine,
    registry: &crate::config::RegistryConfig,
    tag: &str,
    tx: &tokio::sync::mpsc::UnboundedSender<Msg>,
) -> Result<String, ServiceError> {
    let (remote, login) = crate::docker::registry::target(registry, tag)?;
    let progress = crate::docker::registry::on_layer(|done| {
        let _ = tx.send(Msg::Notice(Level::Info, format!("pushing {tag}: {done} layer(s) done")));
    });
    Ok(engine.push(tag, &remote, login, progress).await?)
}
