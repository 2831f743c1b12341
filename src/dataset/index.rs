//! The dataset's commits by short hash, shared by the job service, the build planners and the
//! document reader. The board starts with the dataset's first screenful; its reading thread puts
//! the whole dataset here before the board hears of it, so no commit the board shows is missing.

use super::{Commit, Entry};
use crate::ids::Short;
use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

#[derive(Debug, Clone, Default)]
pub struct CommitIndex(Arc<RwLock<HashMap<Short, Commit>>>);

impl CommitIndex {
    pub fn of(entries: &[Entry]) -> CommitIndex {
        entries.iter().map(|e| &e.commit).collect()
    }

    /// Hold `entries`' commits from now on, in place of those held.
    pub fn replace(&self, entries: &[Entry]) {
        let map = CommitIndex::map(entries.iter().map(|e| &e.commit));
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = map;
    }

    fn map<'a>(commits: impl IntoIterator<Item = &'a Commit>) -> HashMap<Short, Commit> {
        commits.into_iter().map(|c| (c.short.clone(), c.clone())).collect()
    }

    pub fn get(&self, short: &str) -> Option<Commit> {
        self.0.read().unwrap_or_else(PoisonError::into_inner).get(short).cloned()
    }
}

impl<'a> FromIterator<&'a Commit> for CommitIndex {
    fn from_iter<I: IntoIterator<Item = &'a Commit>>(commits: I) -> CommitIndex {
        CommitIndex(Arc::new(RwLock::new(CommitIndex::map(commits))))
    }
}
