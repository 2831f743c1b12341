//! A cache line's spelling, and what a whole cache is valid for.

use super::FileDigest;
use crate::dataset::results::FileKey;
use serde::{Deserialize, Serialize};
use std::os::unix::fs::MetadataExt;

/// A cache line's first JSON value: the file's path and key, and the length of the digest
/// after it. Then, each after a space, the digest (its verdicts without their contexts) and the
/// contexts, one per record: a reader that shows none reads only the digest.
#[derive(Debug, Serialize, Deserialize)]
pub struct LineKey {
    pub path: String,
    pub file: FileKey,
    /// The digest's length in bytes.
    pub digest: u64,
}

/// Where a line's digest and contexts are, from the line's start.
pub struct LineParts {
    pub key: LineKey,
    pub digest: std::ops::Range<u64>,
    pub contexts: std::ops::Range<u64>,
}

impl LineKey {
    /// A line's key and parts; `None` if the key cannot be read or its digest is not followed by
    /// the contexts.
    pub fn split(line: &str) -> Option<LineParts> {
        let mut values = serde_json::Deserializer::from_str(line).into_iter::<LineKey>();
        let key = values.next()?.ok()?;
        let start = values.byte_offset() as u64 + 1;
        let end = start.checked_add(key.digest)?;
        let after = line.as_bytes().get(usize::try_from(end).ok()?);
        (after == Some(&b' ')).then(|| LineParts {
            digest: start..end,
            contexts: end + 1..line.len() as u64,
            key,
        })
    }

    /// The line for `path`'s digest (without its newline); `None` if it cannot be spelled in
    /// JSON (a number that is not finite, a path that is not UTF-8).
    pub fn join(path: &str, file: &FileKey, digest: &mut FileDigest) -> Option<String> {
        let contexts = digest.take_contexts();
        let parts = serde_json::to_string(digest).and_then(|d| Ok((d, serde_json::to_string(&contexts)?)));
        digest.put_contexts(contexts);
        let (digest, contexts) = parts.ok()?;
        let key = LineKey { path: path.to_string(), file: *file, digest: digest.len() as u64 };
        Some(format!("{} {digest} {contexts}", serde_json::to_string(&key).ok()?))
    }
}

/// What a cache is valid for: this binary (its size and time: a rebuild may classify or read
/// differently), the configured gates and the secrets redacted. `None` when the binary cannot
/// be found: then nothing is cached.
pub fn fingerprint() -> Option<String> {
    let exe = std::fs::metadata(std::env::current_exe().ok()?).ok()?;
    Some(format!(
        "{} {} {} {:?} {}",
        env!("CARGO_PKG_VERSION"),
        exe.len(),
        crate::dataset::results::nanos(exe.mtime(), exe.mtime_nsec()),
        crate::metrics::gates::configured(),
        crate::logs::Redactor::process().fingerprint()
    ))
}
