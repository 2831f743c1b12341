//! A cache line's spelling, and what a whole cache is valid for.

use super::FileDigest;
use crate::dataset::results::FileKey;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::ops::Range;
use std::os::unix::fs::MetadataExt;

/// A cache line: this key, then after a tab the digest (its verdicts without their contexts),
/// then after a tab the contexts, one per record. JSON holds no raw tab or newline, so a key is
/// read up to its tab and the rest is skipped by the lengths it gives: an index reads only keys,
/// and a reader that shows no context reads only digests.
#[derive(Debug, Serialize, Deserialize)]
pub struct LineKey {
    pub path: String,
    pub file: FileKey,
    /// The digest's and the contexts' lengths in bytes.
    pub digest: u64,
    pub contexts: u64,
}

/// A line's key, and where the line and its parts are in the cache file.
pub struct Located {
    pub key: LineKey,
    pub line: Range<u64>,
    pub digest: Range<u64>,
    pub contexts: Range<u64>,
}

/// The next line at `at` (moved past it): `Ok(None)` at the end, `InvalidData` for a line that
/// cannot be read (what follows it cannot be found either).
pub fn next_line(
    reader: &mut BufReader<&File>,
    at: &mut u64,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<Located>> {
    buf.clear();
    let read = reader.read_until(b'\t', buf)? as u64;
    if read == 0 {
        return Ok(None);
    }
    let bad = || std::io::Error::from(std::io::ErrorKind::InvalidData);
    let key: LineKey =
        buf.strip_suffix(b"\t").and_then(|k| serde_json::from_slice(k).ok()).ok_or_else(bad)?;
    // Lengths from a corrupt line may be anything: summed without overflowing.
    let sum = |parts: &[u64]| parts.iter().try_fold(0u64, |sum, part| sum.checked_add(*part)).ok_or_else(bad);
    let digest = sum(&[*at, read])?..sum(&[*at, read, key.digest])?;
    let contexts = sum(&[digest.end, 1])?..sum(&[digest.end, 1, key.contexts])?;
    reader.seek_relative(i64::try_from(contexts.end - digest.start).map_err(|_| bad())?)?;
    let mut end = [0; 1];
    reader.read_exact(&mut end).map_err(|_| bad())?;
    if end != *b"\n" {
        return Err(bad());
    }
    let line = *at..contexts.end;
    *at = contexts.end + 1;
    Ok(Some(Located { key, line, digest, contexts }))
}

impl LineKey {
    /// The line for `path`'s digest (without its newline); `None` if it cannot be spelled in
    /// JSON (a number that is not finite, a path that is not UTF-8).
    pub fn join(path: &str, file: &FileKey, digest: &mut FileDigest) -> Option<String> {
        let contexts = digest.take_contexts();
        let parts = serde_json::to_string(digest).and_then(|d| Ok((d, serde_json::to_string(&contexts)?)));
        digest.put_contexts(contexts);
        let (digest, contexts) = parts.ok()?;
        let lengths = (digest.len() as u64, contexts.len() as u64);
        let key = LineKey { path: path.to_string(), file: *file, digest: lengths.0, contexts: lengths.1 };
        Some(format!("{}\t{digest}\t{contexts}", serde_json::to_string(&key).ok()?))
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
