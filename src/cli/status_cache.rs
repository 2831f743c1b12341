//! The status cache, `<workspace>/cache/status.jsonl`: what `status --json` printed for a load
//! whose entries came whole from the joined cache, so that the next one for the very same
//! inputs (the joined cache's: the binary, gates and secrets, the dataset file and every result
//! file), triage book, image templates and `--agent` prints it again without reading an entry.
//! Its lines are the output as printed, then one line saying what they are for (the trailer,
//! written last, so a file cut short has none). One for other inputs is written again; one
//! whose trailer does not read, or whose output is not the length it says, is said and written
//! again, never printed.

use crate::dataset::ImageTemplates;
use crate::dataset::joined::Inputs;
use crate::triage::TriageBook;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const FORMAT: u32 = 1;

/// The most of a trailer (its warnings) read back at a time: more is read while no line starts.
const TRAILER_READ: u64 = 64 << 10;

pub fn path_in(workspace: &Path) -> PathBuf {
    workspace.join("cache").join("status.jsonl")
}

/// What a status output is for: a 128-bit hash of everything it depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key(String);

impl Key {
    /// `None` where a part does not serialize (nothing then is cached).
    pub fn of(
        inputs: &Inputs,
        book: &TriageBook,
        images: &ImageTemplates,
        agent: Option<&str>,
    ) -> Option<Key> {
        let parts = (
            serde_json::to_string(inputs).ok()?,
            serde_json::to_string(book).ok()?,
            format!("{images:?}"),
            agent,
        );
        let mut hashers = (std::hash::DefaultHasher::new(), std::hash::DefaultHasher::new());
        (FORMAT, &parts).hash(&mut hashers.0);
        (FORMAT, &parts, FORMAT).hash(&mut hashers.1);
        Some(Key(format!("{:016x}{:016x}", hashers.0.finish(), hashers.1.finish())))
    }
}

/// The cache's last line.
#[derive(Debug, Serialize, Deserialize)]
struct Trailer {
    perftriage_status: u32,
    key: Key,
    /// The bytes of output before this line.
    bytes: u64,
    /// The load's warnings, as the command printed them.
    warnings: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum StatusCacheError {
    #[error("{path}: cannot read the status cache ({source}); written again")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}: the status cache's last line cannot be read ({source}); written again")]
    Trailer { path: PathBuf, source: serde_json::Error },
    #[error(
        "{path}: the status cache holds {found} bytes of output where its last line says {said}; written again"
    )]
    Length { path: PathBuf, found: u64, said: u64 },
}

/// A status cache found for a key: its output, and the load's warnings.
pub struct Hit {
    file: File,
    bytes: u64,
    pub warnings: Vec<String>,
}

/// The cache at `path` if it was written for `key` (none, or one for another key: `None`).
pub fn open(path: &Path, key: &Key) -> Result<Option<Hit>, StatusCacheError> {
    let read = |source| StatusCacheError::Read { path: path.to_path_buf(), source };
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(read(source)),
    };
    let (at, line) = last_line(&mut file).map_err(read)?;
    let trailer: Trailer = serde_json::from_slice(&line)
        .map_err(|source| StatusCacheError::Trailer { path: path.to_path_buf(), source })?;
    if trailer.perftriage_status != FORMAT || trailer.key != *key {
        return Ok(None);
    }
    if trailer.bytes != at {
        return Err(StatusCacheError::Length { path: path.to_path_buf(), found: at, said: trailer.bytes });
    }
    Ok(Some(Hit { file, bytes: trailer.bytes, warnings: trailer.warnings }))
}

/// Where a file's last line starts, and the line (without its newline).
fn last_line(file: &mut File) -> std::io::Result<(u64, Vec<u8>)> {
    let len = file.metadata()?.len();
    let mut want = TRAILER_READ.min(len);
    loop {
        file.seek(SeekFrom::Start(len - want))?;
        let mut tail = Vec::new();
        Read::by_ref(file).take(want).read_to_end(&mut tail)?;
        let body = tail.strip_suffix(b"\n").unwrap_or(&tail);
        match memchr::memrchr(b'\n', body) {
            Some(i) => return Ok((len - want + i as u64 + 1, body[i + 1..].to_vec())),
            None if want == len => return Ok((0, body.to_vec())),
            None => want = (want * 2).min(len),
        }
    }
}

impl Hit {
    /// Its output, to `out`.
    pub fn print(mut self, out: &mut impl Write) -> std::io::Result<()> {
        self.file.seek(SeekFrom::Start(0))?;
        let copied = std::io::copy(&mut self.file.take(self.bytes), out)?;
        if copied != self.bytes {
            return Err(std::io::Error::other(format!(
                "the status cache shrank while it was read ({copied} bytes)"
            )));
        }
        out.flush()
    }
}

/// A status cache being written beside the output: to a temporary file renamed over the old
/// one once the output is whole. One that cannot be written is logged and made again next time.
pub struct Writing {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
    bytes: u64,
}

impl Writing {
    pub fn start(path: &Path) -> Writing {
        let tmp = path.with_extension(format!("jsonl.{}.tmp", std::process::id()));
        let out = crate::files::create(&tmp).map(|file| BufWriter::with_capacity(1 << 20, file));
        let out =
            out.map_err(|e| log::warn!("{}: the status cache was not written: {e}", path.display())).ok();
        Writing { path: path.to_path_buf(), tmp, out, bytes: 0 }
    }

    /// The next bytes of output.
    pub fn write(&mut self, bytes: &[u8]) {
        if let Some(out) = &mut self.out
            && let Err(e) = out.write_all(bytes)
        {
            log::warn!("{}: the status cache was not written: {e}", self.tmp.display());
            self.out = None;
        }
        self.bytes += bytes.len() as u64;
    }

    /// The output is whole: its trailer, and the file in place.
    pub fn finish(mut self, key: Key, warnings: &[String]) {
        let Some(mut out) = self.out.take() else { return };
        let trailer =
            Trailer { perftriage_status: FORMAT, key, bytes: self.bytes, warnings: warnings.to_vec() };
        let written = serde_json::to_writer(&mut out, &trailer)
            .map_err(std::io::Error::other)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush())
            .and_then(|()| std::fs::rename(&self.tmp, &self.path));
        if let Err(e) = written {
            log::warn!("{}: the status cache was not written: {e}", self.path.display());
        }
    }
}

/// A status cache not in place (its output cut short by a closed pipe or an error, or its file
/// not written) leaves no temporary file; one renamed into place has none left to remove.
impl Drop for Writing {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.tmp);
    }
}
