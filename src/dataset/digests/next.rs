//! The next digest cache: a line per file found, in file order, kept from the old cache or new.
//! Until a line differs from the old cache, only where the kept lines are is remembered; from
//! the first that does, lines go to a temporary file as they come (never all in memory: 300,000
//! new lines are hundreds of MB), which is renamed over the old cache at the end.

use super::{DigestCache, FORMAT, Header, Line};
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::PathBuf;

/// The most of the old cache copied at a time.
const COPY_AT_MOST: u64 = 1 << 20;

pub struct NextCache<'a> {
    old: &'a DigestCache,
    /// Kept lines not yet written: consecutive ones as one range of the old file.
    pending: Vec<Range<u64>>,
    /// The temporary file, once a line differs.
    out: Option<(PathBuf, BufWriter<std::fs::File>)>,
    failed: Option<std::io::Error>,
    /// Whether a line is new, or one of the old cache's is gone.
    changed: bool,
    kept: usize,
}

impl<'a> NextCache<'a> {
    pub fn after(old: &'a DigestCache) -> NextCache<'a> {
        let changed = old.problem.is_some();
        NextCache { old, pending: Vec::new(), out: None, failed: None, changed, kept: 0 }
    }

    /// The lines of the next chunk of files; how many of them were kept from the old cache.
    pub fn push_chunk(&mut self, lines: Vec<Line>) -> usize {
        let kept = lines.iter().filter(|l| matches!(l, Line::Kept(_))).count();
        lines.into_iter().for_each(|line| self.push(line));
        kept
    }

    fn push(&mut self, line: Line) {
        match line {
            Line::Kept(range) => self.keep(range),
            Line::New { text, old: Some(range) }
                if self.old.bytes(range.clone()).is_ok_and(|b| b == text.as_bytes()) =>
            {
                self.keep(range);
            }
            Line::New { text, .. } => {
                self.changed = true;
                self.write_new(&text);
            }
            // A file too young to cache (or unreadable now): its old line no longer matches its
            // key, so it is never used, and is kept rather than dropped: a result file being
            // written must not make every load write the whole cache again.
            Line::Uncached { old: Some(range) } => self.keep(range),
            Line::Uncached { old: None } => {}
        }
    }

    fn keep(&mut self, range: Range<u64>) {
        self.kept += 1;
        match self.pending.last_mut() {
            Some(last) if last.end + 1 == range.start && last.end - last.start < COPY_AT_MOST => {
                last.end = range.end;
            }
            _ => self.pending.push(range),
        }
        // Writing: all but the last range, which the next kept line may still extend.
        if self.out.is_some() && self.pending.len() > 1 {
            let last = self.pending.pop();
            self.flush_pending();
            self.pending.extend(last);
        }
    }

    fn write_new(&mut self, line: &str) {
        self.start();
        self.flush_pending();
        let written = self
            .out
            .as_mut()
            .map(|(_, out)| out.write_all(line.as_bytes()).and_then(|()| out.write_all(b"\n")));
        self.note(written);
    }

    /// Open the temporary file and write the header, once.
    fn start(&mut self) {
        let Some(file) = self.old.file.as_ref().filter(|_| self.out.is_none() && self.failed.is_none())
        else {
            return;
        };
        let tmp = file.with_extension(format!("jsonl.{}.tmp", std::process::id()));
        let header = Header { perftriage_digests: FORMAT, fingerprint: self.old.fingerprint.clone() };
        let opened = crate::files::create(&tmp).and_then(|f| {
            let mut out = BufWriter::with_capacity(1 << 20, f);
            serde_json::to_writer(&mut out, &header)?;
            out.write_all(b"\n").map(|()| out)
        });
        match opened {
            Ok(out) => self.out = Some((tmp, out)),
            Err(e) => self.failed = Some(e),
        }
    }

    /// Copy the kept lines not yet written from the old cache.
    fn flush_pending(&mut self) {
        let Some((_, out)) = self.out.as_mut() else { return };
        let mut written = Ok(());
        for range in self.pending.drain(..) {
            written = written
                .and_then(|()| self.old.bytes(range))
                .and_then(|bytes| out.write_all(&bytes))
                .and_then(|()| out.write_all(b"\n"));
        }
        self.note(Some(written));
    }

    fn note(&mut self, written: Option<std::io::Result<()>>) {
        if let Some(Err(e)) = written {
            self.failed.get_or_insert(e);
        }
    }

    /// Write the cache if it changed; one that cannot be written is logged, and read again next time.
    pub fn finish(mut self) {
        let Some(file) = self.old.file.clone() else { return };
        if !self.changed && self.kept == self.old.lines.len() {
            return;
        }
        self.start();
        self.flush_pending();
        let done = match (self.out.take(), self.failed.take()) {
            (Some((tmp, out)), None) => {
                let closed = out.into_inner().map_err(std::io::IntoInnerError::into_error);
                closed.and_then(|_| std::fs::rename(&tmp, &file)).map_err(|e| (Some(tmp), e))
            }
            (out, Some(e)) => Err((out.map(|(tmp, _)| tmp), e)),
            (None, None) => Ok(()),
        };
        if let Err((tmp, e)) = done {
            log::warn!("{}: the digest cache was not written: {e}", file.display());
            if let Some(tmp) = tmp {
                let _ = std::fs::remove_file(tmp);
            }
        }
    }
}
