//! The per-run log file: every raw byte, never truncated, plus an index (see `spool_index`) so
//! any line can be read back without holding the whole log in memory, and a text file beside
//! it (unlinked: it goes with the last reader) holding the decoded text of the lines whose text
//! is not their bytes, so that a search never decodes.

use super::decode::Output;
use super::spool_index::{Index, IndexCopy, STRIDE};
use super::{Decoder, Line, Stream};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

#[derive(Debug)]
pub struct SpoolWriter {
    path: PathBuf,
    file: BufWriter<File>,
    text: BufWriter<File>,
    shared: Shared,
}

#[derive(Debug, Clone)]
struct Shared {
    index: Arc<RwLock<Index>>,
    /// The text file, for reading.
    text: Arc<File>,
}

#[derive(Debug, Clone)]
pub struct SpoolReader {
    path: PathBuf,
    shared: Shared,
}

impl SpoolWriter {
    pub fn create(path: &Path) -> std::io::Result<SpoolWriter> {
        let file = BufWriter::with_capacity(1 << 20, crate::files::create(path)?);
        let text = text_file(path)?;
        let shared = Shared { index: Arc::default(), text: Arc::new(text.try_clone()?) };
        Ok(SpoolWriter { path: path.into(), file, text: BufWriter::with_capacity(1 << 18, text), shared })
    }

    pub fn reader(&self) -> SpoolReader {
        SpoolReader { path: self.path.clone(), shared: self.shared.clone() }
    }

    /// Append raw bytes handed out by a decoder: whole lines, or the head of a long one.
    pub fn append(&mut self, raw: &[u8]) -> std::io::Result<()> {
        self.file.write_all(raw)?;
        // The lock through an Arc of its own: `changed_line` borrows `self` while it is held.
        let shared = self.shared.index.clone();
        let mut index = shared.write().map_err(|_| std::io::Error::other("spool index poisoned"))?;
        index.append(raw, |index, line| self.changed_line(index, &raw[line]))
    }

    /// The line being ended, `line`, is one whose text is not its bytes: its text goes to the
    /// text file, unless it began in an earlier append (then a search decodes it).
    fn changed_line(&mut self, index: &mut Index, line: &[u8]) -> std::io::Result<()> {
        let n = index.spool.lines;
        index.changed.set(n);
        if index.continuing {
            return Ok(());
        }
        let mut text = Vec::with_capacity(line.len() + 1);
        super::block::line_text(line, &mut text);
        text.push(b'\n');
        self.text.write_all(&text)?;
        index.texted.set(n);
        let end = index.text.bytes + text.len() as u64;
        index.text.ended_at(end - 1);
        index.text.bytes = end;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Make everything appended so far readable.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()?;
        self.text.flush()
    }
}

/// The text file of the spool at `path`, open and already unlinked.
fn text_file(path: &Path) -> std::io::Result<File> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.text", std::process::id()));
    let at = path.with_file_name(name);
    // Private like the spool (0600): its lines are the spool's, redacted the same way.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&at)?;
    std::fs::remove_file(&at)?;
    Ok(file)
}

impl SpoolReader {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The text file (see the module's comment).
    pub fn text_file(&self) -> &File {
        &self.shared.text
    }

    /// The index so far.
    pub fn index_copy(&self) -> IndexCopy {
        self.shared.index.read().map_or_else(|_| IndexCopy::default(), |i| IndexCopy::of(&i))
    }

    /// Complete lines written so far.
    pub fn lines(&self) -> usize {
        self.shared.index.read().map(|i| i.spool.lines).unwrap_or(0)
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
            let index =
                self.shared.index.read().map_err(|_| std::io::Error::other("spool index poisoned"))?;
            match index.spool.checkpoint(first) {
                Some((_, offset)) => (offset, index.spool.lines),
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
    fn checkpoint_near(&self, line: usize) -> (usize, u64) {
        let index = self.shared.index.read().ok();
        index.and_then(|i| i.spool.checkpoint(line)).unwrap_or((0, 0))
    }

    /// Where line `line` starts; past the last complete line, where the complete lines end.
    pub fn offset_of(&self, line: usize) -> std::io::Result<u64> {
        let (lines, end) = {
            let index =
                self.shared.index.read().map_err(|_| std::io::Error::other("spool index poisoned"))?;
            (index.spool.lines, index.spool.last_line_start)
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
