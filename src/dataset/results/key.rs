//! What a result file is known by while it is unchanged: its size, times and inode (a rewrite in
//! place changes the change time, a rewrite by rename the inode). Read as the file is found.

use serde::{Deserialize, Serialize};
use std::os::unix::fs::MetadataExt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileKey {
    len: u64,
    /// Modification and change times, nanoseconds since the epoch.
    mtime: i64,
    ctime: i64,
    ino: u64,
}

/// Seconds and nanoseconds as nanoseconds since the epoch.
pub fn nanos(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

impl FileKey {
    pub fn of(meta: &std::fs::Metadata) -> FileKey {
        FileKey {
            len: meta.len(),
            mtime: nanos(meta.mtime(), meta.mtime_nsec()),
            ctime: nanos(meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
        }
    }

    /// Whether the file last changed at least `settle` ago: one changed more recently may
    /// change again within its clock's tick, unseen by its times.
    pub fn settled(&self, settle: std::time::Duration) -> bool {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let (now, settle) = (i64::try_from(now.as_nanos()), i64::try_from(settle.as_nanos()));
        now.unwrap_or(i64::MAX).saturating_sub(self.mtime.max(self.ctime)) >= settle.unwrap_or(i64::MAX)
    }
}
