//! The per-run log file: every raw byte, never truncated, plus a sparse index (the offset of every
//! 64th line) so any line can be read back without holding the whole log in memory.

use super::decode::Output;
use super::{Decoder, Line, Stream};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

const STRIDE: usize = 64;

/// Line-start offsets of lines 0, 64, 128, …; shared by the writer and its readers.
#[derive(Debug, Default)]
struct Index {
    checkpoints: Vec<u64>,
    lines: usize,
    bytes: u64,
    last_line_start: u64,
}

#[derive(Debug)]
pub struct SpoolWriter {
    path: PathBuf,
    file: BufWriter<File>,
    index: Arc<RwLock<Index>>,
}

#[derive(Debug, Clone)]
pub struct SpoolReader {
    path: PathBuf,
    index: Arc<RwLock<Index>>,
}

impl SpoolWriter {
    pub fn create(path: &Path) -> std::io::Result<SpoolWriter> {
        let file = BufWriter::with_capacity(1 << 20, crate::files::create(path)?);
        Ok(SpoolWriter { path: path.into(), file, index: Arc::default() })
    }

    pub fn reader(&self) -> SpoolReader {
        SpoolReader { path: self.path.clone(), index: self.index.clone() }
    }

    /// Append raw bytes handed out by a decoder; `lines` is how many lines they end.
    pub fn append(&mut self, raw: &[u8]) -> std::io::Result<()> {
        self.file.write_all(raw)?;
        let mut index = self.index.write().map_err(|_| std::io::Error::other("spool index poisoned"))?;
        let base = index.bytes;
        for nl in memchr::memchr_iter(b'\n', raw) {
            if index.lines.is_multiple_of(STRIDE) {
                let start = index.last_line_start;
                index.checkpoints.push(start);
            }
            index.lines += 1;
            index.last_line_start = base + nl as u64 + 1;
        }
        index.bytes += raw.len() as u64;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Make everything appended so far readable.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Index {
    fn checkpoint(&self, line: usize) -> Option<u64> {
        self.checkpoints.get(line / STRIDE).copied()
    }
}

impl SpoolReader {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Complete lines written so far.
    pub fn lines(&self) -> usize {
        self.index.read().map(|i| i.lines).unwrap_or(0)
    }

    /// Decode lines `first..first + count` (fewer at the end of the log).
    pub fn read(&self, first: usize, count: usize, stream: Stream) -> std::io::Result<Vec<Line>> {
        self.read_with(first, count, Decoder::new(stream))
    }

    /// One line in full, however long (the ring and pages keep `DISPLAY_CAP` characters).
    pub fn read_full(&self, line: usize, stream: Stream) -> std::io::Result<Option<Line>> {
        Ok(self.read_with(line, 1, Decoder::uncapped(stream))?.pop())
    }

    fn read_with(&self, first: usize, count: usize, mut decoder: Decoder) -> std::io::Result<Vec<Line>> {
        let (offset, total) = {
            let index = self.index.read().map_err(|_| std::io::Error::other("spool index poisoned"))?;
            match index.checkpoint(first) {
                Some(offset) => (offset, index.lines),
                None => return Ok(Vec::new()),
            }
        };
        let wanted = count.min(total.saturating_sub(first));
        let mut file = BufReader::with_capacity(1 << 16, File::open(&self.path)?);
        file.seek(SeekFrom::Start(offset))?;
        let mut out = Output::default();
        let skip = first % STRIDE;
        let mut buf = vec![0u8; 1 << 16];
        while out.lines.len() < skip + wanted {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            decoder.feed(&buf[..n], &mut out);
            out.raw.clear();
        }
        out.lines.truncate(skip + wanted);
        Ok(out.lines.split_off(skip.min(out.lines.len())))
    }

    /// The indexed line at or before `line` and where it starts.
    pub fn checkpoint_near(&self, line: usize) -> (usize, u64) {
        let index = self.index.read().ok();
        let at = index.as_ref().and_then(|i| i.checkpoint(line.min(i.lines.saturating_sub(1))));
        at.map_or((0, 0), |offset| ((line / STRIDE) * STRIDE, offset))
    }

    /// Where line `line` starts; past the last complete line, where the complete lines end.
    pub fn offset_of(&self, line: usize) -> std::io::Result<u64> {
        let (lines, end) = {
            let index = self.index.read().map_err(|_| std::io::Error::other("spool index poisoned"))?;
            (index.lines, index.last_line_start)
        };
        if line >= lines {
            return Ok(end);
        }
        let (mut at, mut offset) = self.checkpoint_near(line);
        let mut file = BufReader::with_capacity(1 << 16, File::open(&self.path)?);
        file.seek(SeekFrom::Start(offset))?;
        let mut skipped = Vec::new();
        while at < line {
            skipped.clear();
            offset += file.read_until(b'\n', &mut skipped)? as u64;
            at += 1;
        }
        Ok(offset)
    }

    /// Copy the whole raw log to `dest`.
    pub fn save_to(&self, dest: &Path) -> std::io::Result<u64> {
        crate::files::copy(&self.path, dest)
    }
}
