//! Where a fix commits the image it fixed.

/// Where a fixed image for an immediate re-run is tagged.
pub const LOCAL_REPO: &str = "perftriage-fixed-local";

/// `repo:tag` of the fixed image: `{repo}:{full}` for human, `{repo}:baseline-{parent12}` for
/// baseline and agent; without a repository, a local tag.
pub fn commit_target(
    commit: &crate::dataset::Commit,
    variant: crate::dataset::Variant,
    repo: Option<&str>,
) -> (String, String) {
    let parent = commit.parent.as_deref().unwrap_or_default();
    match (repo, variant) {
        (Some(repo), crate::dataset::Variant::Human) => (repo.to_string(), commit.full.clone()),
        (Some(repo), _) => (repo.to_string(), format!("baseline-{}", parent.get(..12).unwrap_or(parent))),
        (None, _) => (LOCAL_REPO.into(), format!("{}-{}", commit.short, variant.name())),
    }
}
