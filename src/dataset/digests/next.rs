//! The next digest cache: a line per file found, in file order, kept from the old cache or new;
//! written only when it differs from the old one, through a temporary file renamed over it.

use super::{DigestCache, FORMAT, Header, Line};
use std::io::Write;
use std::ops::Range;
use std::path::Path;

/// The most of the old cache copied at a time.
const COPY_AT_MOST: u64 = 1 << 20;

pub struct NextCache<'a> {
    old: &'a DigestCache,
    pieces: Vec<Piece>,
    /// Whether a line is new, or one of the old cache's is gone.
    changed: bool,
    kept: usize,
}

/// Lines of the old cache file (consecutive ones as one range, their newlines inside), or a new one.
enum Piece {
    Old(Range<u64>),
    New(String),
}

impl NextCache<'_> {
    pub fn after(old: &DigestCache) -> NextCache<'_> {
        NextCache { old, pieces: Vec::new(), changed: old.problem.is_some(), kept: 0 }
    }

    /// The next file's line (files come in their order).
    pub fn push(&mut self, path: &Path, line: Line) {
        let old = path.to_str().and_then(|name| self.old.line_of(name));
        match (line, old) {
            (Line::Kept, Some(range)) => self.keep(range),
            (Line::New(text), Some(range))
                if self.old.bytes(range.clone()).is_ok_and(|b| b == text.as_bytes()) =>
            {
                self.keep(range);
            }
            (Line::New(text), _) => {
                self.changed = true;
                self.pieces.push(Piece::New(text));
            }
            (Line::Uncached, old) => self.changed |= old.is_some(),
            (Line::Kept, None) => {}
        }
    }

    fn keep(&mut self, range: Range<u64>) {
        self.kept += 1;
        match self.pieces.last_mut() {
            Some(Piece::Old(last)) if last.end + 1 == range.start && last.end - last.start < COPY_AT_MOST => {
                last.end = range.end;
            }
            _ => self.pieces.push(Piece::Old(range)),
        }
    }

    /// Write the cache if it changed; one that cannot be written is logged, and read again next time.
    pub fn finish(self) {
        let Some(file) = &self.old.file else { return };
        if !self.changed && self.kept == self.old.lines.len() {
            return;
        }
        let tmp = file.with_extension(format!("jsonl.{}.tmp", std::process::id()));
        if let Err(e) = self.write(&tmp).and_then(|()| std::fs::rename(&tmp, file)) {
            log::warn!("{}: the digest cache was not written: {e}", file.display());
            let _ = std::fs::remove_file(&tmp);
        }
    }

    fn write(&self, tmp: &Path) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, crate::files::create(tmp)?);
        let header = Header { perftriage_digests: FORMAT, fingerprint: self.old.fingerprint.clone() };
        serde_json::to_writer(&mut out, &header)?;
        out.write_all(b"\n")?;
        for piece in &self.pieces {
            match piece {
                Piece::Old(range) => out.write_all(&self.old.bytes(range.clone())?)?,
                Piece::New(line) => out.write_all(line.as_bytes())?,
            }
            out.write_all(b"\n")?;
        }
        out.into_inner().map_err(std::io::IntoInnerError::into_error)?;
        Ok(())
    }
}
