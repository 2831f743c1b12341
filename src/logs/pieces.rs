//! A log of any size read as blocks of whole lines in bounded memory: a line longer than
//! `LINE_CAP` is cut into pieces, each its own line (still searched and classified), and input
//! that is mostly NUL bytes (`/dev/zero`, a core file) is refused where it starts.

use std::io::Read;

/// Bytes read at a time.
const BLOCK: usize = 8 << 20;
/// The longest line handed on whole; longer ones are cut into pieces of this size.
pub const LINE_CAP: usize = 1 << 20;
/// A read of at least this many bytes that is more than a quarter NUL is not text.
const BINARY_PROBE: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum PiecesError {
    #[error("cannot read: {0}")]
    Read(#[from] std::io::Error),
    #[error("not a text log: {nul} of {bytes} bytes from byte {at} are NUL")]
    Binary { at: u64, nul: usize, bytes: usize },
}

/// What a read came to: the bytes read, and the cuts made in lines longer than `LINE_CAP`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadStats {
    pub bytes: u64,
    pub cuts: usize,
}

/// Hand `each` the text of `reader` in blocks of whole lines (each ending in a newline but the
/// last), holding at most one block and one line piece at a time.
pub fn read_pieces(reader: impl Read, mut each: impl FnMut(&str)) -> Result<ReadStats, PiecesError> {
    read_blocks(reader, |bytes| each(&text_of(bytes)))
}

/// `read_pieces` before the bytes are made text: for a caller that does that on threads of its own.
pub fn read_blocks(mut reader: impl Read, mut each: impl FnMut(&[u8])) -> Result<ReadStats, PiecesError> {
    let mut block = vec![0u8; BLOCK];
    let (mut kept, mut stats) = (0usize, ReadStats::default());
    loop {
        let n = read_some(&mut reader, &mut block[kept..])?;
        if n == 0 {
            stats.cuts += emit(&block[..kept], &mut each);
            return Ok(stats);
        }
        refuse_binary(&block[kept..kept + n], stats.bytes)?;
        stats.bytes += n as u64;
        let filled = kept + n;
        let mut end = memchr::memrchr(b'\n', &block[..filled]).map_or(0, |i| i + 1);
        if filled - end >= LINE_CAP {
            // The line in progress is already too long: hand on its whole pieces now.
            end = char_start(&block[..filled], end + (filled - end) / LINE_CAP * LINE_CAP);
            stats.cuts += 1;
        }
        stats.cuts += emit(&block[..end], &mut each);
        block.copy_within(end..filled, 0);
        kept = filled - end;
    }
}

fn read_some(reader: &mut impl Read, into: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match reader.read(into) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            done => return done,
        }
    }
}

/// Refuse a read that is more than a quarter NUL bytes.
fn refuse_binary(read: &[u8], at: u64) -> Result<(), PiecesError> {
    if memchr::memchr(0, read).is_none() {
        return Ok(()); // text: counting would find none
    }
    let nul = bytecount::count(read, 0);
    if read.len() >= BINARY_PROBE && nul * 4 > read.len() {
        return Err(PiecesError::Binary { at, nul, bytes: read.len() });
    }
    Ok(())
}

/// Hand on `bytes` (whole lines, or whole pieces of one), its lines longer than `LINE_CAP` cut
/// into pieces; how many cuts were made.
fn emit(bytes: &[u8], each: &mut impl FnMut(&[u8])) -> usize {
    if bytes.is_empty() {
        return 0;
    }
    if !has_line_longer(bytes, LINE_CAP) {
        each(bytes);
        return 0;
    }
    let (cut, text) = cut_long_lines(bytes);
    each(&text);
    cut
}

/// Whether a line of `bytes` is longer than `cap`: from each line start, the last newline within
/// `cap` bytes is the next start (found from the window's end, so a block of short lines takes
/// a step per `cap` bytes, not one per line).
fn has_line_longer(bytes: &[u8], cap: usize) -> bool {
    let mut start = 0;
    while bytes.len() - start > cap {
        match memchr::memrchr(b'\n', &bytes[start..=start + cap]) {
            Some(i) => start += i + 1,
            None => return true,
        }
    }
    false
}

/// A copy of `bytes` with a newline put every `LINE_CAP` bytes (at a character's start) of
/// each line longer than that; how many cuts were made.
fn cut_long_lines(bytes: &[u8]) -> (usize, Vec<u8>) {
    let (mut out, mut cut, mut start) = (Vec::with_capacity(bytes.len() + bytes.len() / LINE_CAP), 0, 0);
    for nl in memchr::memchr_iter(b'\n', bytes).map(|i| i + 1).chain(std::iter::once(bytes.len())) {
        let mut line = &bytes[start..nl.max(start)];
        while line.len() > LINE_CAP {
            let at = char_start(line, LINE_CAP).max(1);
            out.extend_from_slice(&line[..at]);
            out.push(b'\n');
            line = &line[at..];
            cut += 1;
        }
        out.extend_from_slice(line);
        start = nl;
    }
    (cut, out)
}

/// `at`, moved back to the start of the UTF-8 character it falls in (at most 3 bytes).
fn char_start(bytes: &[u8], at: usize) -> usize {
    let mut i = at.min(bytes.len());
    while i > 0 && i < bytes.len() && at - i < 3 && bytes[i] & 0xC0 == 0x80 {
        i -= 1;
    }
    i
}

/// UTF-8 text as it is (checked with SIMD, not copied), else with replacement characters (checked
/// first: `from_utf8_lossy` walks valid text several times slower).
pub fn text_of(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    simdutf8::basic::from_utf8(bytes)
        .map_or_else(|_| String::from_utf8_lossy(bytes), std::borrow::Cow::Borrowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(input: &[u8]) -> (Vec<String>, ReadStats) {
        let mut out = Vec::new();
        let stats = read_pieces(input, |t| out.push(t.to_string())).unwrap();
        (out, stats)
    }

    #[test]
    fn short_lines_come_whole_and_a_long_one_in_marked_pieces() {
        let (out, stats) = pieces(b"one\ntwo\n");
        assert_eq!((out.concat(), stats.cuts), ("one\ntwo\n".to_string(), 0));
        let long = format!("start\n{}END\n", "x".repeat(3 * LINE_CAP));
        let (out, stats) = pieces(long.as_bytes());
        let text = out.concat();
        assert!(text.lines().all(|l| l.len() <= LINE_CAP), "no piece over the cap");
        assert!(text.contains("END") && text.starts_with("start\n") && stats.cuts >= 1, "{stats:?}");
        assert_eq!(text.replace('\n', "").len(), long.replace('\n', "").len(), "nothing lost");
    }

    #[test]
    fn a_line_longer_than_the_cap_is_found_wherever_it_lies() {
        let longest = |bytes: &[u8]| bytes.split(|b| *b == b'\n').map(<[u8]>::len).max().unwrap_or(0);
        let lines = |lens: &[usize]| lens.iter().map(|n| "x".repeat(*n)).collect::<Vec<_>>().join("\n");
        for lens in [&[3, 9, 2][..], &[10, 10, 10], &[11], &[1, 1, 1, 1, 1, 11], &[10, 0, 10, 11, 0], &[]] {
            for tail in ["", "\n"] {
                let text = lines(lens) + tail;
                let naive = longest(text.as_bytes()) > 10;
                assert_eq!(has_line_longer(text.as_bytes(), 10), naive, "{lens:?} {tail:?}");
            }
        }
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let long = "é".repeat(LINE_CAP); // two bytes each: a cut at an odd byte would split one
        let (out, _) = pieces(long.as_bytes());
        assert!(!out.concat().contains('\u{fffd}'));
    }

    #[test]
    fn nul_bytes_are_refused_where_they_start() {
        let zeros = vec![0u8; 64 << 10];
        let err = read_pieces(&zeros[..], |_| {}).unwrap_err().to_string();
        assert_eq!(err, "not a text log: 65536 of 65536 bytes from byte 0 are NUL");
        let (out, _) = pieces(b"a line with one \0 NUL\n");
        assert_eq!(out.len(), 1, "a stray NUL is text");
    }
}
