//! This machine's builds, one JSON line each in `<workspace>/builds/history.jsonl`: the expected
//! time and size of the next one come from them. A line that does not parse is skipped (and
//! counted), never fatal: the history only informs.

use crate::ids::{ImageRef, Short};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildRecord {
    pub short: Short,
    pub parent: String,
    pub image: ImageRef,
    /// `built`, or the failure kind's name.
    pub outcome: String,
    pub duration_s: f64,
    pub max_jobs: u32,
    pub peak_bytes: u64,
    /// What the commit added to the image (0 when it was not committed).
    pub size_bytes: u64,
    pub at: String,
}

pub fn path(workspace: &Path) -> PathBuf {
    workspace.join("builds").join("history.jsonl")
}

/// The records that parse, and how many lines did not.
pub fn read(workspace: &Path) -> (Vec<BuildRecord>, usize) {
    let text = std::fs::read_to_string(path(workspace)).unwrap_or_default();
    let parsed: Vec<Option<BuildRecord>> =
        text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).ok()).collect();
    let bad = parsed.iter().filter(|r| r.is_none()).count();
    (parsed.into_iter().flatten().collect(), bad)
}

pub fn append(workspace: &Path, record: &BuildRecord) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = crate::files::append(&path(workspace))?;
    writeln!(out, "{}", serde_json::to_string(record).map_err(std::io::Error::other)?)
}

/// The median duration of the successful builds, and how many there were.
pub fn expected_duration(records: &[BuildRecord]) -> Option<(f64, usize)> {
    let mut times: Vec<f64> = records.iter().filter(|r| r.outcome == "built").map(|r| r.duration_s).collect();
    times.sort_by(f64::total_cmp);
    let mid = *times.get(times.len() / 2)?;
    Some((mid, times.len()))
}

/// The largest image growth seen, else `default_bytes`.
pub fn expected_size(records: &[BuildRecord], default_bytes: u64) -> u64 {
    records.iter().map(|r| r.size_bytes).max().filter(|b| *b > 0).unwrap_or(default_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(outcome: &str, duration_s: f64, size_bytes: u64) -> BuildRecord {
        BuildRecord {
            short: "abcd1234".into(),
            parent: "p".into(),
            image: "i".into(),
            outcome: outcome.into(),
            duration_s,
            max_jobs: 8,
            peak_bytes: 0,
            size_bytes,
            at: "2026-11-23T00:00:00Z".into(),
        }
    }

    #[test]
    fn expected_time_is_the_median_of_successes_and_a_bad_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for r in [
            record("built", 1800.0, 9 << 30),
            record("oom", 60.0, 0),
            record("built", 2100.0, 0),
            record("built", 1900.0, 0),
        ] {
            append(dir.path(), &r).unwrap_or_else(|e| panic!("{e}"));
        }
        let mut text = std::fs::read_to_string(path(dir.path())).unwrap_or_default();
        text.push_str("{not json\n");
        std::fs::write(path(dir.path()), text).unwrap_or_else(|e| panic!("{e}"));
        let (records, bad) = read(dir.path());
        assert_eq!((records.len(), bad), (4, 1));
        assert_eq!(expected_duration(&records), Some((1900.0, 3)));
        assert_eq!(expected_size(&records, 1), 9 << 30);
        assert_eq!(expected_size(&[], 7), 7);
    }
}
