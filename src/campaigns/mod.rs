//! Campaigns as data: what a campaign asks for (commits × variants, repeats, its policy), its
//! journal of events, the state the journal folds to, and the policy that says what each
//! (commit, variant) needs next. Pure: running and writing the journal are the caller's.

mod checks;
#[cfg(test)]
mod counts;
mod driver;
mod journal;
mod morning;
mod outcome;
mod policy;
mod snapshot;
pub(crate) mod state;

pub use driver::{Driver, Liveness, Verb, stopped_line};
pub use journal::{Event, JournalError, Parsed, SCHEMA, parse, to_line};
pub use morning::{Lookups, MorningRow};
pub use outcome::{Outcome, outcome};
pub use policy::{BOARD_RETRIES, Decision, Next, Policy, next};
pub use snapshot::{CellLine, FixLine, Placed, RunLine, Snapshot};
pub use state::{Attempt, CampaignState, Cell, Finish, FixTry, Headline, Progress};

use crate::dataset::Variant;
use crate::ids::{CampaignName, Short};
use crate::runs::Repeat;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What a campaign was started with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CampaignSpec {
    pub name: CampaignName,
    pub commits: Vec<Short>,
    pub variants: Vec<Variant>,
    pub repeat: Repeat,
    pub policy: Policy,
    /// Runs at once.
    #[serde(default = "one")]
    pub concurrency: u32,
    /// Its runs go to Slurm (`[slurm]`) as batch jobs rather than to Docker engines.
    #[serde(default)]
    pub slurm: bool,
    /// Only these (commit, variant) cells, not every commit × variant (`--failing`,
    /// `--rerun-failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<Vec<(Short, Variant)>>,
}

fn one() -> u32 {
    1
}

impl CampaignSpec {
    /// Every (commit, variant) of the campaign, in order: commit by commit, variants as asked.
    pub fn cells(&self) -> impl Iterator<Item = (Short, Variant)> + '_ {
        let every = self.commits.iter().flat_map(|c| self.variants.iter().map(move |v| (c.clone(), *v)));
        every.filter(|cell| self.only.as_ref().is_none_or(|only| only.contains(cell)))
    }

    /// `<workspace>/campaigns/<name>/journal.jsonl`.
    pub fn journal_path(workspace: &Path, name: &CampaignName) -> PathBuf {
        workspace.join("campaigns").join(name.as_str()).join("journal.jsonl")
    }
}

/// `b,h,a`, `baseline,human,agent` or any mix, comma- or space-separated.
pub fn parse_variants(text: &str) -> Result<Vec<Variant>, CampaignError> {
    let mut out = Vec::new();
    for word in text.split([',', ' ']).filter(|w| !w.is_empty()) {
        let variant = Variant::ALL
            .into_iter()
            .find(|v| v.name() == word.to_lowercase() || word.eq_ignore_ascii_case(&v.letter().to_string()))
            .ok_or_else(|| CampaignError::Variant(word.to_string()))?;
        if !out.contains(&variant) {
            out.push(variant);
        }
    }
    if out.is_empty() {
        return Err(CampaignError::Variant(text.to_string()));
    }
    Ok(out)
}

#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    #[error("`{0}` is no variant: say baseline, human, agent (or b, h, a), comma-separated")]
    Variant(String),
    #[error("campaign name `{0}` is not a plain name (letters, digits, `-`, `_`, `.`, at most 64)")]
    Name(String),
    #[error("no commit `{0}` in the dataset (use the 8-character short hash)")]
    NoCommit(String),
    #[error("no commit matches what was asked (--commits, --filter, --failing)")]
    NothingAsked,
    #[error("campaign {0} has no cell left failed to run again")]
    NothingFailed(CampaignName),
    #[error("campaign {0} cannot be read: {1}")]
    Unreadable(CampaignName, String),
    #[error(
        "--auto-fix with --slurm: a job's run on its node cannot take a fixed image yet; fix first, or run without --auto-fix"
    )]
    FixOnSlurm,
    #[error("--slurm needs [slurm] shared_dir in the config (where jobs write their files)")]
    NoSharedDir,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_are_read_by_name_or_letter_in_any_mix() {
        let all = vec![Variant::Baseline, Variant::Human, Variant::Agent];
        assert_eq!(parse_variants("b,h,a").unwrap(), all);
        assert_eq!(parse_variants("baseline human,agent").unwrap(), all);
        assert_eq!(parse_variants("H,h,human").unwrap(), vec![Variant::Human]);
        for bad in ["", "x", "b,humans"] {
            assert!(parse_variants(bad).is_err(), "{bad:?}");
        }
    }
}
