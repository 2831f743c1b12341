//! Triage decisions (unfixable with a reason, skip, clear, notes) as an append-only history per
//! commit, and their crash-safe store. The mark is derived from the history, never stored twice.

use crate::ids::ImageRef;

mod store;

pub use store::{LoadReport, StoreError, TriageStore};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Change {
    Unfixable {
        reason: String,
    },
    Skip,
    Clear,
    Note {
        text: String,
    },
    /// A fix recipe applied to a variant's environment; `image` when it was committed as a fixed image.
    Fix {
        variant: String,
        recipe: String,
        outcome: FixOutcome,
        image: Option<ImageRef>,
        /// The fix's full output, kept in the workspace.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        log: Option<String>,
    },
    /// A variant's fixed image pushed to a registry: `reference` pulls exactly it back.
    Pushed {
        variant: String,
        image: ImageRef,
        /// `host/repo@sha256:…`
        reference: String,
    },
    /// A baseline image built from source at the parent (`perftriage build`); `image` when it was
    /// committed, which the baseline and agent then run in. `outcome`: `built` or the failure.
    Built {
        outcome: String,
        image: Option<ImageRef>,
        duration_s: u64,
        max_jobs: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        log: Option<String>,
    },
    /// A variant's fixed image removed from the engine: it no longer runs in it.
    ImageRemoved {
        variant: String,
        image: ImageRef,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FixOutcome {
    Verified,
    AlreadyApplied,
    Failed,
}

impl Change {
    pub fn describe(&self) -> String {
        match self {
            Change::Unfixable { reason } => format!("marked unfixable: {reason}"),
            Change::Skip => "marked skip".into(),
            Change::Clear => "mark cleared".into(),
            Change::Note { text } => format!("note: {text}"),
            Change::Fix { variant, recipe, outcome, image, .. } => {
                let how = match outcome {
                    FixOutcome::Verified => "verified",
                    FixOutcome::AlreadyApplied => "already applied",
                    FixOutcome::Failed => "FAILED verify",
                };
                let image = image.as_deref().map(|i| format!(", image {i}")).unwrap_or_default();
                format!("fix {recipe} on {variant}: {how}{image}")
            }
            Change::Pushed { variant, image, reference } => {
                format!("{variant}'s {image} pushed as {reference}")
            }
            Change::Built { outcome, image, duration_s, max_jobs, .. } => {
                let image = image.as_deref().map(|i| format!(", image {i}")).unwrap_or_default();
                format!("baseline build ({max_jobs} jobs, {duration_s} s): {outcome}{image}")
            }
            Change::ImageRemoved { variant, image } => format!("{variant}'s fixed image {image} removed"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// RFC 3339 UTC time of the change.
    pub at: String,
    #[serde(flatten)]
    pub change: Change,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Mark {
    Unfixable { reason: String },
    Skip,
}

impl Mark {
    pub fn name(&self) -> &'static str {
        match self {
            Mark::Unfixable { .. } => "unfixable",
            Mark::Skip => "skip",
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum TriageError {
    #[error("marking {0} unfixable needs a reason")]
    MissingReason(String),
    #[error("a note for {0} cannot be empty")]
    EmptyNote(String),
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TriageBook {
    pub schema_version: u32,
    #[serde(default)]
    pub commits: BTreeMap<String, Vec<HistoryEntry>>,
}

impl TriageBook {
    pub fn new() -> TriageBook {
        TriageBook { schema_version: SCHEMA_VERSION, commits: BTreeMap::new() }
    }

    /// Take in the entries of `other` this book lacks (histories are append-only, so nothing is
    /// lost either way); each history stays in time order.
    pub fn merge(&mut self, other: &TriageBook) {
        for (short, entries) in &other.commits {
            let mine = self.commits.entry(short.clone()).or_default();
            let before = mine.len();
            mine.extend(entries.iter().filter(|e| !mine[..before].contains(e)).cloned().collect::<Vec<_>>());
            if mine.len() > before {
                mine.sort_by(|a, b| a.at.cmp(&b.at));
            }
        }
    }

    /// Append a validated change to the commit's history.
    pub fn apply(&mut self, short: &str, change: Change, at: String) -> Result<(), TriageError> {
        // Cleaned before it is judged empty: an escape or a zero-width space is no reason.
        let change = match change {
            Change::Unfixable { reason } => Change::Unfixable { reason: crate::logs::display_text(&reason) },
            Change::Note { text } => Change::Note { text: crate::logs::display_text(&text) },
            other => other,
        };
        match &change {
            Change::Unfixable { reason } if crate::logs::is_blank(reason) => {
                return Err(TriageError::MissingReason(short.into()));
            }
            Change::Note { text } if crate::logs::is_blank(text) => {
                return Err(TriageError::EmptyNote(short.into()));
            }
            _ => {}
        }
        self.commits.entry(short.to_string()).or_default().push(HistoryEntry { at, change });
        Ok(())
    }

    pub fn history(&self, short: &str) -> &[HistoryEntry] {
        self.commits.get(short).map_or(&[], Vec::as_slice)
    }

    /// The current mark: the last mark-changing entry decides.
    pub fn mark(&self, short: &str) -> Option<Mark> {
        self.history(short).iter().rev().find_map(|h| match &h.change {
            Change::Unfixable { reason } => Some(Some(Mark::Unfixable { reason: reason.clone() })),
            Change::Skip => Some(Some(Mark::Skip)),
            Change::Clear => Some(None),
            Change::Note { .. }
            | Change::Fix { .. }
            | Change::Pushed { .. }
            | Change::Built { .. }
            | Change::ImageRemoved { .. } => None,
        })?
    }

    /// Verified fixes of a variant's environment, oldest first (each recipe once).
    pub fn fixes(&self, short: &str, variant: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for h in self.history(short) {
            if let Change::Fix {
                variant: v,
                recipe,
                outcome: FixOutcome::Verified | FixOutcome::AlreadyApplied,
                ..
            } = &h.change
                && v == variant
                && !out.contains(recipe)
            {
                out.push(recipe.clone());
            }
        }
        out
    }

    /// The fixed image a variant now runs in, if one was committed and not removed since.
    pub fn fixed_image(&self, short: &str, variant: &str) -> Option<ImageRef> {
        self.newest_fixed_image(short, variant).filter(|(_, removed)| !removed).map(|(image, _)| image)
    }

    /// The (commit, variant) pairs that run in `image` now (their fixed image), in commit order.
    pub fn naming(&self, image: &str) -> Vec<(String, crate::dataset::Variant)> {
        let mut named = Vec::new();
        for short in self.commits.keys() {
            let runs_in = |v: &crate::dataset::Variant| {
                self.fixed_image(short, v.name()).is_some_and(|i| i.as_str() == image)
            };
            named
                .extend(crate::dataset::Variant::ALL.into_iter().filter(runs_in).map(|v| (short.clone(), v)));
        }
        named
    }

    /// The fixed image a variant ran in until it was removed (no newer one made since): what a
    /// run's confirm names as gone.
    pub fn removed_fixed_image(&self, short: &str, variant: &str) -> Option<ImageRef> {
        self.newest_fixed_image(short, variant).filter(|(_, removed)| *removed).map(|(image, _)| image)
    }

    /// The newest fixed image made for a variant, and whether it was removed after.
    fn newest_fixed_image(&self, short: &str, variant: &str) -> Option<(ImageRef, bool)> {
        let mut removed = std::collections::HashSet::new();
        self.history(short).iter().rev().find_map(|h| match &h.change {
            Change::ImageRemoved { variant: v, image } if v == variant => {
                removed.insert(image.as_str());
                None
            }
            Change::Fix {
                variant: v,
                image: Some(image),
                outcome: FixOutcome::Verified | FixOutcome::AlreadyApplied,
                ..
            } if v == variant => Some((image.clone(), removed.contains(image.as_str()))),
            Change::Built { image: Some(image), .. } if variant != "human" => {
                Some((image.clone(), removed.contains(image.as_str())))
            }
            _ => None,
        })
    }

    /// When a fix last took on a variant (verified, or found applied already): the board marks the
    /// variant fixed until a run newer than this ends.
    pub fn last_fix_at(&self, short: &str, variant: &str) -> Option<&str> {
        self.history(short).iter().rev().find_map(|h| match &h.change {
            Change::Fix {
                variant: v, outcome: FixOutcome::Verified | FixOutcome::AlreadyApplied, ..
            } if v == variant => Some(h.at.as_str()),
            _ => None,
        })
    }

    /// The image `recipe` committed for a variant, if it verified at `since` or later (RFC 3339):
    /// a fix done before a campaign stopped, not to be applied again.
    pub fn fixed_since(&self, short: &str, variant: &str, recipe: &str, since: &str) -> Option<ImageRef> {
        self.history(short).iter().rev().take_while(|h| h.at.as_str() >= since).find_map(|h| {
            match &h.change {
                Change::Fix { variant: v, recipe: r, image: Some(image), outcome, .. }
                    if v == variant && r == recipe && *outcome != FixOutcome::Failed =>
                {
                    Some(image.clone())
                }
                _ => None,
            }
        })
    }

    /// When `image` was made as a variant's fixed image (the history's RFC 3339 time).
    pub fn fixed_at(&self, short: &str, variant: &str, image: &str) -> Option<&str> {
        self.history(short).iter().rev().find_map(|h| match &h.change {
            Change::Fix { variant: v, image: Some(i), .. } if v == variant && i == image => {
                Some(h.at.as_str())
            }
            Change::Built { image: Some(i), .. } if variant != "human" && i == image => Some(h.at.as_str()),
            _ => None,
        })
    }

    /// The last push of a variant's fixed image: (local tag, reference by digest).
    pub fn pushed(&self, short: &str, variant: &str) -> Option<(ImageRef, String)> {
        self.history(short).iter().rev().find_map(|h| match &h.change {
            Change::Pushed { variant: v, image, reference } if v == variant => {
                Some((image.clone(), reference.clone()))
            }
            _ => None,
        })
    }

    pub fn notes(&self, short: &str) -> impl Iterator<Item = &HistoryEntry> {
        self.history(short).iter().filter(|h| matches!(h.change, Change::Note { .. }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mark_follows_the_last_mark_change_and_notes_do_not_clear_it() {
        let mut book = TriageBook::new();
        book.apply("3a243095", Change::Skip, "t1".into()).unwrap();
        book.apply("3a243095", Change::Unfixable { reason: "RoPE llama3".into() }, "t2".into()).unwrap();
        book.apply("3a243095", Change::Note { text: "checked".into() }, "t3".into()).unwrap();
        assert_eq!(book.mark("3a243095"), Some(Mark::Unfixable { reason: "RoPE llama3".into() }));
        book.apply("3a243095", Change::Clear, "t4".into()).unwrap();
        assert_eq!(book.mark("3a243095"), None);
        assert_eq!(book.history("3a243095").len(), 4);
    }

    #[test]
    fn a_fix_is_found_done_since_a_time_only_when_it_verified_then_with_that_recipe() {
        let mut book = TriageBook::new();
        let fix = |recipe: &str, outcome, image: Option<&str>| Change::Fix {
            variant: "human".into(),
            recipe: recipe.into(),
            outcome,
            image: image.map(ImageRef::from),
            log: None,
        };
        book.apply("x", fix("numpy_lt_2", FixOutcome::Verified, Some("f:1")), "2026-11-27T01:00:00Z".into())
            .unwrap();
        book.apply("x", fix("numpy_lt_2", FixOutcome::Failed, None), "2026-11-27T03:00:00Z".into()).unwrap();
        let since = |t: &str| book.fixed_since("x", "human", "numpy_lt_2", t);
        assert_eq!(since("2026-11-27T00:00:00Z"), Some("f:1".into()));
        assert_eq!(since("2026-11-27T02:00:00Z"), None, "before the campaign started");
        assert_eq!(book.fixed_since("x", "human", "aimv2_exist_ok", "2026-11-27T00:00:00Z"), None);
        assert_eq!(book.fixed_since("x", "baseline", "numpy_lt_2", "2026-11-27T00:00:00Z"), None);
    }

    #[test]
    fn unfixable_needs_a_reason() {
        let mut book = TriageBook::new();
        let err = book.apply("x", Change::Unfixable { reason: "  ".into() }, "t".into());
        assert_eq!(err, Err(TriageError::MissingReason("x".into())));
        assert!(book.history("x").is_empty());
    }
}
