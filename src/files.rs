//! Files the tool writes hold container output, results and triage notes, which can carry
//! secrets and paths: they are created for their owner only (files 0600, folders 0700).

use std::fs::{DirBuilder, File, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;

/// `dir` and its missing parents, 0700 (folders that exist keep their mode).
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// A new (or truncated) file, 0600, its folder made first.
pub fn create(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        private_dir(dir)?;
    }
    OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(path)
}

pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::io::Write::write_all(&mut create(path)?, bytes)
}

/// Write `path` atomically: a crash leaves the old file or the new one, never a torn one (a temp
/// file beside it, synced, renamed over it, and its folder synced).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let mut file = create(&tmp)?;
    std::io::Write::write_all(&mut file, bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)?;
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => File::open(dir)?.sync_all(),
        _ => Ok(()),
    }
}

/// Copy `from` to a new private file `to`; the bytes copied.
pub fn copy(from: &Path, to: &Path) -> std::io::Result<u64> {
    std::io::copy(&mut File::open(from)?, &mut create(to)?)
}

/// A file to append to, 0600 when new, its folder made first.
pub fn append(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        private_dir(dir)?;
    }
    OpenOptions::new().append(true).create(true).mode(0o600).open(path)
}

/// Why a file perftriage reads back could not be opened as one.
#[derive(Debug, thiserror::Error)]
pub enum RegularError {
    #[error("{} is not a regular file (a symlink, a FIFO or a device?): perftriage will not use it", path.display())]
    NotRegular { path: std::path::PathBuf },
    #[error("cannot open {}: {source}", path.display())]
    Io { path: std::path::PathBuf, source: std::io::Error },
    #[error("{} is over {max} bytes: not a file perftriage wrote", path.display())]
    TooBig { path: std::path::PathBuf, max: u64 },
}

impl RegularError {
    /// Whether the file is not there at all.
    pub fn is_missing(&self) -> bool {
        matches!(self, RegularError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// A file the user names (a config, recipes, rules), read whole: a symlink to it is followed
/// (they are often kept elsewhere), but only a regular file is opened — a FIFO is never waited
/// on, a device never read — and at most `max` bytes are.
pub fn read_named(path: &Path, max: u64) -> Result<String, RegularError> {
    let io = |source| RegularError::Io { path: path.into(), source };
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(RegularError::NotRegular { path: path.into() });
    }
    let mut text = String::new();
    let file = File::open(path).map_err(io)?;
    std::io::Read::read_to_string(&mut std::io::Read::take(file, max + 1), &mut text).map_err(io)?;
    match text.len() as u64 > max {
        true => Err(RegularError::TooBig { path: path.into(), max }),
        false => Ok(text),
    }
}

/// A file perftriage wrote, read back whole: opened only as a regular file, at most `max` bytes.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, RegularError> {
    let file = open_regular(path, false)?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(file, max + 1), &mut bytes)
        .map_err(|source| RegularError::Io { path: path.into(), source })?;
    match bytes.len() as u64 > max {
        true => Err(RegularError::TooBig { path: path.into(), max }),
        false => Ok(bytes),
    }
}

/// `path` opened only as a regular file (made 0600 when `create`): a symlink is not followed, a
/// FIFO or a device is not waited on.
pub fn open_regular(path: &Path, create: bool) -> Result<File, RegularError> {
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    let mut options = OpenOptions::new();
    options.read(true).write(create).create(create).mode(0o600).custom_flags(flags.bits() as i32);
    let not_regular = || RegularError::NotRegular { path: path.into() };
    let io = |source| RegularError::Io { path: path.into(), source };
    let file = options.open(path).map_err(|e| match e.raw_os_error() {
        Some(code) if code == rustix::io::Errno::LOOP.raw_os_error() => not_regular(),
        _ => io(e),
    })?;
    match file.metadata().map_err(io)?.is_file() {
        true => Ok(file),
        false => Err(not_regular()),
    }
}

/// A 12-hex-digit name for `parts` (SHA-256, each part length-prefixed): the same on every
/// machine and toolchain, unlike `std`'s hasher, so images tagged by it are found again.
pub fn stable_id(parts: &[&[u8]]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hasher.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_stable_id_is_sha256_of_the_length_prefixed_parts() {
        // sha256(le64(3) "abc" le64(0)), computed with Python's hashlib.
        assert_eq!(super::stable_id(&[b"abc", b""]), "3e2f8940c3a0");
        assert_ne!(super::stable_id(&[b"ab", b"c"]), super::stable_id(&[b"a", b"bc"]));
    }
}
