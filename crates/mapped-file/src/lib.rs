//! A stretch of a file memory-mapped read-only, so a search reads it where the page cache holds
//! it instead of copying it out first. Mapping is the one unsafe call
//! (memmap2's `Mmap::map`), kept in this crate so that perftriage itself forbids unsafe code.
//!
//! The safety argument: a mapping is only as sound as the file stays put. perftriage maps only
//! its own spools, which one process (the run's owner) appends to and nobody rewrites, and only
//! bytes already written when the mapping is made, so the bytes seen cannot change under a
//! reader. What perftriage cannot rule out is another program cutting the file short while it
//! is mapped: reading past the new end then raises SIGBUS, as it would in ripgrep or grep
//! with `--mmap`. Each map is short-lived (one block of a search) and unmapped when dropped.

use std::fs::File;
use std::ops::Deref;

/// The mapped bytes; unmapped when dropped.
#[derive(Debug)]
pub struct Mapped {
    map: Option<memmap2::Mmap>,
}

impl Mapped {
    /// `len` bytes of `file` from byte `offset`, mapped read-only: fewer where the file is
    /// shorter now (bytes past its end would raise SIGBUS when read), none where that leaves
    /// none (which cannot be mapped).
    pub fn of(file: &File, offset: u64, len: u64) -> std::io::Result<Mapped> {
        let len = len.min(file.metadata()?.len().saturating_sub(offset));
        if len == 0 {
            return Ok(Mapped { map: None });
        }
        let len = usize::try_from(len).map_err(|_| std::io::Error::other("too large to map"))?;
        // SAFETY: see the crate's comment: the bytes mapped are a spool's already written ones,
        // which its one writer only appends after; a mapping never outlives its block.
        let map = unsafe { memmap2::MmapOptions::new().offset(offset).len(len).map(file)? };
        Ok(Mapped { map: Some(map) })
    }
}

impl Deref for Mapped {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.map.as_deref().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: &[u8]) -> File {
        let path = std::env::temp_dir().join(format!("mapped-file-{}-{}", std::process::id(), bytes.len()));
        File::create(&path).and_then(|mut f| f.write_all(bytes)).unwrap();
        let file = File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        file
    }

    #[test]
    fn a_stretch_is_mapped_no_further_than_the_file_holds() {
        let file = file_of(b"one\ntwo\n");
        assert_eq!(&*Mapped::of(&file, 0, 4).unwrap(), b"one\n");
        assert_eq!(&*Mapped::of(&file, 5, 2).unwrap(), b"wo", "from a byte inside a page");
        assert_eq!(&*Mapped::of(&file, 4, 0).unwrap(), b"");
        assert_eq!(&*Mapped::of(&file, 4, 4096).unwrap(), b"two\n");
        assert_eq!(&*Mapped::of(&file, 9, 1).unwrap(), b"", "past the end");
    }
}
