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
