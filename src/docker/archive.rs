//! In-memory tar archives for uploads (benchmark scripts, patches, injected files) and builds.

/// A tar of `(path inside the archive, contents, mode)` entries.
pub fn tar_of(entries: &[(&str, &[u8], u32)]) -> std::io::Result<Vec<u8>> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, data, mode) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(*mode);
        header.set_mtime(0);
        builder.append_data(&mut header, path, *data)?;
    }
    builder.into_inner()
}
