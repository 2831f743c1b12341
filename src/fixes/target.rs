//! Where a fix commits the image it fixed.

use std::path::{Path, PathBuf};

/// Where a fixed image for an immediate re-run is tagged.
pub const LOCAL_REPO: &str = "perftriage-fixed-local";

/// The label a fixed image carries naming the workspace that made it (not `perftriage.workspace`:
/// the containers of an image inherit its labels, and that one marks a workspace's own containers).
pub const LABEL_FIXED_IN: &str = "perftriage.fixed-in";

/// The workspace a fixed image belongs to: its absolute path, and in every tag it makes a mark
/// (12 hex digits of its SHA-256), so two workspaces fixing one parent never retag each other's
/// image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    path: PathBuf,
    mark: String,
}

impl Owner {
    pub fn of(workspace: &Path) -> Owner {
        let path = std::path::absolute(workspace).unwrap_or_else(|_| workspace.to_path_buf());
        let mark = crate::files::stable_id(&[path.as_os_str().as_encoded_bytes()]);
        Owner { path, mark }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The label value: the workspace's path as text.
    pub fn label(&self) -> String {
        self.path.display().to_string()
    }

    /// Whether an image's `LABEL_FIXED_IN` names this workspace.
    pub fn is(&self, label: &str) -> bool {
        Owner::of(Path::new(label)) == *self
    }
}

/// `repo:tag` of the fixed image: `{repo}:{full}-{mark}` for human, `{repo}:baseline-{parent12}-{mark}`
/// for baseline and agent (one image for the variants of one parent); without a repository, a local
/// tag `{short}-{variant}-{mark}`.
pub fn commit_target(
    commit: &crate::dataset::Commit,
    variant: crate::dataset::Variant,
    repo: Option<&str>,
    owner: &Owner,
) -> (String, String) {
    let parent = commit.parent.as_deref().unwrap_or_default();
    let mark = &owner.mark;
    match (repo, variant) {
        (Some(repo), crate::dataset::Variant::Human) => (repo.to_string(), format!("{}-{mark}", commit.full)),
        (Some(repo), _) => {
            (repo.to_string(), format!("baseline-{}-{mark}", parent.get(..12).unwrap_or(parent)))
        }
        (None, _) => (LOCAL_REPO.into(), format!("{}-{}-{mark}", commit.short, variant.name())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Variant;

    fn commit() -> crate::dataset::Commit {
        let commit = crate::dataset::load_embedded().unwrap().commits.remove(0);
        crate::dataset::Commit { parent: Some("fedcba9876543210".into()), ..commit }
    }

    #[test]
    fn two_workspaces_fixing_one_parent_get_two_tags_and_one_workspace_keeps_its_own() {
        let (a, b) = (Owner::of(Path::new("/srv/ws-a")), Owner::of(Path::new("/srv/ws-b")));
        for repo in [Some("perftriage-fixed"), None] {
            for variant in Variant::ALL {
                let (ta, tb) = (
                    commit_target(&commit(), variant, repo, &a),
                    commit_target(&commit(), variant, repo, &b),
                );
                assert_ne!(ta, tb, "{variant:?} in {repo:?}");
                assert_eq!(ta, commit_target(&commit(), variant, repo, &Owner::of(Path::new("/srv/ws-a"))));
            }
        }
        let (_, tag) = commit_target(&commit(), Variant::Agent, Some("r"), &a);
        assert_eq!(tag, format!("baseline-fedcba987654-{}", a.mark));
        assert_eq!(commit_target(&commit(), Variant::Baseline, Some("r"), &a).1, tag, "one image per parent");
    }

    #[test]
    fn an_owner_is_its_absolute_path() {
        let here = std::env::current_dir().unwrap();
        assert_eq!(Owner::of(Path::new("ws")), Owner::of(&here.join("ws")));
        assert!(Owner::of(&here.join("ws")).is(&here.join("ws").display().to_string()));
        assert!(!Owner::of(Path::new("/srv/ws-a")).is("/srv/ws-b"));
    }
}
