//! Images: is it here, pull it with progress, build one from a tar context (test images).

use super::{DockerError, Engine};
use bollard::query_parameters::{
    BuildImageOptionsBuilder, CommitContainerOptionsBuilder, CreateImageOptionsBuilder, ListImagesOptions,
    RemoveImageOptions, TagImageOptionsBuilder,
};
use futures_util::StreamExt;
use std::collections::HashMap;

/// Pull progress: per-layer bytes, summed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PullEvent {
    pub layers: usize,
    pub layers_done: usize,
    pub current: i64,
    pub total: i64,
    pub status: String,
}

/// An image tag in one of our repositories (a fixed image): its size and when it was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaggedImage {
    pub tag: String,
    pub size_bytes: i64,
    pub created_unix: i64,
    /// The workspace that made it, as its `perftriage.fixed-in` label says (none before labels).
    pub fixed_in: Option<String>,
}

/// Statuses that mean a layer is in place, pulling or pushing.
pub(super) const LAYER_DONE: [&str; 4] =
    ["Pull complete", "Already exists", "Pushed", "Layer already exists"];

/// Fold one progress message into the per-layer (current, total, done) table; the sums so far.
pub(super) fn layer_event(
    layers: &mut HashMap<String, (i64, i64, bool)>,
    id: Option<String>,
    detail: Option<bollard::models::ProgressDetail>,
    status: String,
) -> PullEvent {
    if let Some(id) = id {
        let entry = layers.entry(id).or_default();
        if let Some(p) = detail {
            entry.0 = p.current.unwrap_or(entry.0);
            entry.1 = p.total.unwrap_or(entry.1);
        }
        entry.2 |= LAYER_DONE.contains(&status.as_str());
    }
    PullEvent {
        layers: layers.len(),
        layers_done: layers.values().filter(|l| l.2).count(),
        current: layers.values().map(|l| l.0).sum(),
        total: layers.values().map(|l| l.1).sum(),
        status,
    }
}

/// A repository whose images are listed: all of them, or only those carrying a label.
#[derive(Debug, Clone, PartialEq)]
pub struct RepoFilter {
    pub repo: String,
    pub label: Option<String>,
}

impl RepoFilter {
    pub fn all(repo: &str) -> RepoFilter {
        RepoFilter { repo: repo.to_string(), label: None }
    }

    /// Only the images of `repo` that carry `label` (the bases beside them are not ours).
    pub fn labelled(repo: &str, label: &str) -> RepoFilter {
        RepoFilter { repo: repo.to_string(), label: Some(label.to_string()) }
    }

    fn takes(&self, tag: &str, labels: &std::collections::HashMap<String, String>) -> bool {
        let in_repo = tag.rsplit_once(':').is_some_and(|(repo, _)| repo == self.repo);
        in_repo && self.label.as_ref().is_none_or(|l| labels.get(l).is_some_and(|v| !v.is_empty()))
    }
}

impl Engine {
    /// Every tag of the local images these filters take (`repo:tag`).
    pub async fn images_in(&self, repos: &[RepoFilter]) -> Result<Vec<TaggedImage>, DockerError> {
        let list = self
            .raw()
            .list_images(None::<ListImagesOptions>)
            .await
            .map_err(|e| DockerError::api("list images", e))?;
        let tagged = list.iter().flat_map(|image| {
            let ours = |tag: &&String| repos.iter().any(|r| r.takes(tag, &image.labels));
            let made = |tag: &String| TaggedImage {
                tag: tag.clone(),
                size_bytes: image.size,
                created_unix: image.created,
                fixed_in: image.labels.get(crate::fixes::LABEL_FIXED_IN).filter(|w| !w.is_empty()).cloned(),
            };
            image.repo_tags.iter().filter(ours).map(made).collect::<Vec<_>>()
        });
        Ok(tagged.collect())
    }

    /// Remove an image tag (the image goes when no tag is left).
    pub async fn remove_image(&self, tag: &str) -> Result<(), DockerError> {
        self.raw()
            .remove_image(tag, None::<RemoveImageOptions>, None)
            .await
            .map(|_| ())
            .map_err(|e| DockerError::api("remove image", e))
    }

    /// Whether the daemon has `image`; a failed inspection is an error, not a no (as
    /// `image_digest`).
    pub async fn has_image(&self, image: &str) -> Result<bool, DockerError> {
        Ok(self.image_digest(image).await?.is_some())
    }

    /// The image's content digest: its repository's digest when it came from a registry, else its
    /// id. Another repository's digest of the same image (pushed elsewhere under another name)
    /// is not this reference's. `None` only where the daemon says it has no such image: an
    /// inspection that failed otherwise (a daemon busy or going away) is an error, not a reason
    /// to pull an image that is here and call the run's image missing.
    pub async fn image_digest(&self, image: &str) -> Result<Option<String>, DockerError> {
        digest_of(image, self.raw().inspect_image(image).await)
    }

    /// Pull `image`, reporting progress; a failure keeps the daemon's words.
    pub async fn pull(&self, image: &str, progress: impl FnMut(&PullEvent)) -> Result<(), DockerError> {
        self.pull_as(image, None, progress).await
    }

    /// Pull `image` with a registry login.
    pub async fn pull_as(
        &self,
        image: &str,
        login: Option<bollard::auth::DockerCredentials>,
        mut progress: impl FnMut(&PullEvent),
    ) -> Result<(), DockerError> {
        let options = CreateImageOptionsBuilder::default().from_image(image).build();
        let mut stream = self.raw().create_image(Some(options), None, login);
        let mut layers = HashMap::new();
        while let Some(item) = stream.next().await {
            let info = item.map_err(|e| pull_error(image, e.to_string()))?;
            if let Some(detail) = info.error_detail.and_then(|d| d.message) {
                return Err(pull_error(image, detail));
            }
            let status = info.status.unwrap_or_default();
            progress(&layer_event(&mut layers, info.id, info.progress_detail, status));
        }
        Ok(())
    }

    /// Give `image` another name (`repo:tag`).
    pub async fn tag(&self, image: &str, name: &str) -> Result<(), DockerError> {
        let (repo, tag) = name.rsplit_once(':').unwrap_or((name, "latest"));
        let options = TagImageOptionsBuilder::default().repo(repo).tag(tag).build();
        self.raw().tag_image(image, Some(options)).await.map_err(|e| DockerError::api("tag image", e))
    }

    /// Save a container's filesystem as `repo:tag`.
    pub async fn commit(
        &self,
        id: &str,
        repo: &str,
        tag: &str,
        comment: &str,
    ) -> Result<String, DockerError> {
        self.commit_labelled(id, repo, tag, comment, HashMap::new()).await
    }

    /// `commit`, with `labels` added to the image's own.
    pub async fn commit_labelled(
        &self,
        id: &str,
        repo: &str,
        tag: &str,
        comment: &str,
        labels: HashMap<String, String>,
    ) -> Result<String, DockerError> {
        let options = CommitContainerOptionsBuilder::default()
            .container(id)
            .repo(repo)
            .tag(tag)
            .comment(comment)
            .build();
        let mut labels = labels;
        // The container's own labels would pass to every container of the image: ours are emptied.
        for ours in crate::runs::CONTAINER_LABELS {
            labels.entry(ours.to_string()).or_default();
        }
        let config = bollard::models::ContainerConfig { labels: Some(labels), ..Default::default() };
        let name = format!("{repo}:{tag}");
        let replaced = self.raw().inspect_image(&name).await.ok().and_then(|i| i.id);
        self.raw()
            .commit_container(options, config)
            .await
            .map_err(|e| DockerError::api("commit container", e))?;
        if let Some(old) = replaced {
            // The image the tag named before (a fix applied again after a crash): removed unless a
            // container or another tag still uses it.
            let _ = self.raw().remove_image(&old, None::<RemoveImageOptions>, None).await;
        }
        Ok(name)
    }

    /// Build `tag` from an in-memory tar context holding a Dockerfile.
    pub async fn build(&self, tag: &str, context: Vec<u8>) -> Result<(), DockerError> {
        let options = BuildImageOptionsBuilder::default().dockerfile("Dockerfile").t(tag).rm(true).build();
        let mut stream = self.raw().build_image(options, None, Some(bollard::body_full(context.into())));
        while let Some(item) = stream.next().await {
            let info = item.map_err(|e| DockerError::api(&format!("build {tag}"), e))?;
            if let Some(message) = info.error_detail.and_then(|d| d.message) {
                return Err(DockerError::Api { action: format!("build {tag}"), message });
            }
        }
        Ok(())
    }
}

impl Engine {
    /// Copy `image` to another engine without a registry: `docker save` here streamed into
    /// `docker load` there (nothing of it held in memory).
    pub async fn copy_image_to(&self, other: &Engine, image: &str) -> Result<(), DockerError> {
        let saved = self.raw().export_image(image);
        let options = bollard::query_parameters::ImportImageOptionsBuilder::default().quiet(true).build();
        let mut loaded = Box::pin(other.raw().import_image_stream(options, saved, None));
        while let Some(item) = loaded.next().await {
            let info = item.map_err(|e| DockerError::api(&format!("copy {image}"), e))?;
            if let Some(message) = info.error_detail.and_then(|d| d.message) {
                return Err(DockerError::Api { action: format!("copy {image}"), message });
            }
        }
        Ok(())
    }
}

/// The daemon's words for a registry that did not answer this time (refused, timed out,
/// overloaded): the pull may work later. Anything else (unknown manifest, denied, a registry name
/// nobody resolves) says the image cannot come from here.
const TRANSIENT: &[&str] = &[
    "connection refused",
    "connection reset",
    "i/o timeout",
    "TLS handshake timeout",
    "context deadline exceeded",
    "unexpected EOF",
    "Service Unavailable",
    "Bad Gateway",
    "Gateway Timeout",
    "Too Many Requests",
];

fn pull_error(image: &str, message: String) -> DockerError {
    match TRANSIENT.iter().any(|t| message.contains(t)) {
        true => DockerError::PullFailed { image: image.into(), message },
        false => DockerError::ImageMissing { image: image.into(), message },
    }
}

/// What an image inspection says of `image`'s digest (see `Engine::image_digest`).
fn digest_of(
    image: &str,
    inspected: Result<bollard::models::ImageInspect, bollard::errors::Error>,
) -> Result<Option<String>, DockerError> {
    let info = match inspected.map_err(|e| DockerError::api(&format!("inspect image {image}"), e)) {
        Ok(info) => info,
        Err(DockerError::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let repo = crate::ids::repository(image);
    let own = |d: &String| d.split('@').next() == Some(repo);
    Ok(info.repo_digests.and_then(|d| d.into_iter().find(own)).or(info.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bollard::errors::Error as Bollard;

    fn refused(status_code: u16, message: &str) -> Result<bollard::models::ImageInspect, Bollard> {
        Err(Bollard::DockerResponseServerError { status_code, message: message.into() })
    }

    #[test]
    fn only_the_daemons_no_such_image_reads_as_an_absent_image() {
        let absent =
            digest_of("perftriage-test/vllm:ok", refused(404, "No such image: perftriage-test/vllm:ok"));
        assert!(matches!(absent, Ok(None)), "{absent:?}");
        let busy = digest_of("perftriage-test/vllm:ok", refused(500, "layer does not exist"));
        assert!(
            matches!(busy, Err(DockerError::Api { .. })),
            "a failed inspection is not an absence: {busy:?}"
        );
        let gone = digest_of("perftriage-test/vllm:ok", Err(Bollard::RequestTimeoutError));
        assert!(matches!(gone, Err(DockerError::Unreachable(_))), "{gone:?}");
    }

    #[test]
    fn the_digest_is_the_references_own_repository_digest_else_the_image_id() {
        let info = |digests: &[&str]| bollard::models::ImageInspect {
            id: Some("sha256:1d".into()),
            repo_digests: Some(digests.iter().map(|d| d.to_string()).collect()),
            ..Default::default()
        };
        let pushed =
            digest_of("reg:5000/vllm:ok", Ok(info(&["other/vllm@sha256:aa", "reg:5000/vllm@sha256:bb"])));
        assert_eq!(pushed.unwrap().as_deref(), Some("reg:5000/vllm@sha256:bb"));
        let local = digest_of("reg:5000/vllm:ok", Ok(info(&["other/vllm@sha256:aa"])));
        assert_eq!(local.unwrap().as_deref(), Some("sha256:1d"));
    }
}
