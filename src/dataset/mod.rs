//! The commit list: the embedded ISO-Bench dataset (or `--dataset FILE`), result files joined
//! onto it, and image names. Pure domain: reads files it is pointed at, never the network.

mod commit;
pub mod digests;
mod entry;
mod images;
mod index;
mod join;
pub mod joined;
mod kind;
mod load;
mod measured;
pub mod results;
mod workload;

pub use commit::{Commit, Images, Outcome, PerfCommand, RunStatus, Upstream, Variant};
pub use entry::{CommitStatus, Entry, Overridden, VariantState, agent_names};
pub use images::ImageTemplates;
pub use index::CommitIndex;
pub use join::{Progress, Sources, join, load as load_results, unclassified};
pub use kind::BenchKind;
pub use load::{Dataset, DatasetError, DatasetTail, DatasetText, EMBEDDED, load_embedded, load_jsonl};
pub use measured::{Measured, MeasuredSet};
pub use workload::{Difference, PARTS as WORKLOAD_PARTS, Workload};

/// A commit id as data may give it (7 to 40 lower-case hex digits): nothing git could take for an
/// option or a path.
pub fn is_commit_id(text: &str) -> bool {
    let hex = text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    (7..=40).contains(&text.len()) && hex
}

/// The short hash a name or a full hash starts with: its first 8 characters, when they are hex
/// digits (lower-cased).
pub fn short_from_name(name: &str) -> Option<String> {
    let head = name.get(..8)?;
    head.bytes().all(|b| b.is_ascii_hexdigit()).then(|| head.to_ascii_lowercase())
}

/// A single path component that names something inside its folder: not empty, not `.` or `..`,
/// no separator, no NUL, not absolute.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0'])
}
