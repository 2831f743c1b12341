//! Which local images are perftriage's fixed images, and whose: the board's `I` and `image rm`
//! list the same rows and refuse the same deletions.

use crate::app::{Elsewhere, ListedImage};
use crate::docker::{DockerError, Engine, RepoFilter, TaggedImage};
use crate::fixes::Owner;
use std::path::Path;

/// The fixed-image repositories (the configured one and the local one of re-runs), and the images
/// builds committed to the baseline template's repository (not the unfixed bases beside them).
pub fn our_repos(fixed_repo: &str, baseline_template: &str) -> Vec<RepoFilter> {
    let fixed = [fixed_repo, crate::jobs::fix::LOCAL_REPO];
    let mut repos: Vec<RepoFilter> = fixed.into_iter().map(RepoFilter::all).collect();
    let (baseline, _) = crate::jobs::build::split_image(baseline_template);
    if !baseline.contains(['{', '}']) && !fixed.contains(&baseline) {
        repos.push(RepoFilter::labelled(baseline, crate::jobs::build::LABEL_BUILT_FOR));
    }
    repos
}

/// The images `repos` take, each with the workspace that made it when that is not `owner`.
pub async fn listed(
    engine: &Engine,
    repos: &[RepoFilter],
    owner: &Owner,
) -> Result<Vec<ListedImage>, DockerError> {
    let images = engine.images_in(repos).await?;
    Ok(images.into_iter().map(|image| ListedImage { elsewhere: elsewhere(&image, owner), image }).collect())
}

/// Another workspace's image: that workspace, and the commits whose fixed image it is there (its
/// book read without its lock; a workspace gone from this machine names none).
fn elsewhere(image: &TaggedImage, owner: &Owner) -> Option<Elsewhere> {
    let workspace = image.fixed_in.as_deref().filter(|w| !owner.is(w))?;
    let store = crate::triage::TriageStore::open_read_only(Path::new(workspace));
    let (book, _) = store.load(&crate::session::now_compact());
    let naming = book.naming(&image.tag).into_iter().map(|(short, v)| format!("{short} {}", v.name()));
    // The label is read back from the engine: shown cleaned.
    Some(Elsewhere { workspace: crate::logs::display_text(workspace), naming: naming.collect() })
}
