//! Whole lines at the speed of their bytes. A line's decoded text is its raw bytes unless the
//! line holds something the decoder changes (a control byte, DEL, a C1 or bidi control, invalid
//! UTF-8); those lines are found with a vector scan and decoded alone. Every line decodes the
//! same way on its own as in its stream, since a newline ends every sequence in progress.

use super::decode::Output;
use super::{Decoder, Line, Stream};

/// The decoded text of `text`, whole lines (each ending in a newline), when the decoder changes
/// any of them (only those are decoded); `None` when `text` is its own decoded text.
pub fn decoded_block(text: &str, stream: Stream) -> Option<String> {
    let raw = text.as_bytes();
    let changed = changed_lines(raw);
    if changed.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut copied = 0;
    for start in changed {
        out.extend_from_slice(&raw[copied..start]);
        let line = line_at(raw, start);
        if !plain_text(line, &mut out) {
            decode(line, stream).iter().for_each(|l| out.extend_from_slice(l.text().as_bytes()));
        }
        out.push(b'\n');
        copied = (start + line.len() + 1).min(raw.len());
    }
    out.extend_from_slice(&raw[copied..]);
    // Decoded lines are UTF-8 and plain text is cut only at ASCII bytes: never lossy.
    Some(String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// Append what the decoder makes of a UTF-8 `line` (no newline) when it changes the line only
/// by CSI sequences (colours), tabs and carriage returns — a progress bar's rewrites; `false`,
/// appending nothing, for anything else. Lines longer than the display cap are not capped.
pub(super) fn plain_text(line: &[u8], out: &mut Vec<u8>) -> bool {
    let begin = out.len();
    let mut i = 0;
    while i < line.len() {
        // Runs of bytes the decoder keeps are copied whole.
        let run = line[i..].iter().position(|&b| suspect(b)).unwrap_or(line.len() - i);
        out.extend_from_slice(&line[i..i + run]);
        i += run;
        let Some(&b) = line.get(i) else { break };
        match b {
            0x1b if line.get(i + 1) == Some(&b'[') => {
                match line[i + 2..].iter().position(|b| (0x40..=0x7e).contains(b)) {
                    Some(end) => i += end + 2,
                    None => break,
                }
            }
            // A bare carriage return starts the line again; one before the newline is dropped.
            b'\r' if i + 1 < line.len() => out.truncate(begin),
            b'\r' => {}
            b'\t' => out.extend_from_slice(b"    "),
            _ if changed_at(line, i) => break,
            b => out.push(b),
        }
        i += 1;
    }
    let whole = i >= line.len();
    if !whole {
        out.truncate(begin);
    }
    whole
}

/// The lines of `raw` (whole lines) after the first `skip`, decoded.
pub fn decode_after(raw: &[u8], skip: usize, stream: Stream) -> Vec<Line> {
    let from = match skip {
        0 => 0,
        n => memchr::memchr_iter(b'\n', raw).nth(n - 1).map_or(raw.len(), |i| i + 1),
    };
    decode(&raw[from..], stream)
}

/// Complete lines of `raw` decoded by a fresh decoder; an unterminated end is a line too.
fn decode(raw: &[u8], stream: Stream) -> Vec<Line> {
    let (mut decoder, mut out) = (Decoder::new(stream), Output::default());
    decoder.feed(raw, &mut out);
    decoder.finish(&mut out);
    out.lines
}

pub(super) fn line_start(block: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &block[..at]).map_or(0, |i| i + 1)
}

/// The line starting at `start`, without its newline.
pub(super) fn line_at(block: &[u8], start: usize) -> &[u8] {
    let rest = &block[start..];
    &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())]
}

/// Where the lines holding a byte the decoder changes start: C0 controls but the newline, DEL,
/// and the lead bytes of a C1 control (U+0080–U+009F) or a bidi control (U+200E/F, U+202A–E,
/// U+2066–9).
pub(super) fn changed_lines(block: &[u8]) -> Vec<usize> {
    let (mut found, mut at) = (Vec::new(), 0);
    while at < block.len() {
        let end = (at + CHUNK).min(block.len());
        at = match first_changed(block, at, end) {
            // One is enough: the rest of its line is skipped.
            Some(i) => {
                found.push(line_start(block, i));
                memchr::memchr(b'\n', &block[i..]).map_or(block.len(), |n| i + n + 1)
            }
            None => end,
        };
    }
    found
}

/// What the log view's decoder makes of one line (no newline), appended to `out`: its text as a
/// search matches it. Short lines of colours, tabs and carriage returns are made cheaply.
pub(super) fn line_text(line: &[u8], out: &mut Vec<u8>) {
    // A tab is 4 characters: a line of at most DISPLAY_CAP / 4 bytes is never capped.
    let short = line.len() <= super::DISPLAY_CAP / 4;
    if short && std::str::from_utf8(line).is_ok() && plain_text(line, out) {
        return;
    }
    if let Some(decoded) = decode(line, Stream::Stdout).first() {
        out.extend_from_slice(decoded.text().as_bytes());
    }
}

/// `changed_lines`, and the starts of the lines holding invalid UTF-8 (a character cut at the
/// end of `raw` included), in order.
pub(super) fn changed_or_invalid(raw: &[u8]) -> Vec<usize> {
    let mut starts = changed_lines(raw);
    let mut at = 0;
    while let Err(e) = simdutf8::compat::from_utf8(&raw[at..]) {
        let bad = at + e.valid_up_to();
        starts.push(line_start(raw, bad));
        at = match memchr::memchr(b'\n', &raw[bad..]) {
            Some(n) => bad + n + 1,
            None => break,
        };
    }
    starts.sort_unstable();
    starts.dedup();
    starts
}

const CHUNK: usize = 64;

/// The first byte of `block[at..end]` (at most `CHUNK` bytes) that the decoder changes.
fn first_changed(block: &[u8], at: usize, end: usize) -> Option<usize> {
    let mut mask = suspects(&block[at..end]);
    while mask != 0 {
        let i = at + mask.trailing_zeros() as usize;
        if changed_at(block, i) {
            return Some(i);
        }
        mask &= mask - 1;
    }
    None
}

/// Bit k set when byte k of `chunk` (at most `CHUNK` bytes) is `suspect`.
fn suspects(chunk: &[u8]) -> u64 {
    // A full chunk is checked in a few vector instructions; most have nothing.
    let any = match <&[u8; CHUNK]>::try_from(chunk) {
        Ok(full) => full.iter().fold(0u8, |any, &b| any | u8::from(suspect(b))) != 0,
        Err(_) => true,
    };
    if !any {
        return 0;
    }
    chunk.iter().enumerate().fold(0, |mask, (k, &b)| mask | (u64::from(suspect(b)) << k))
}

/// Bytes the decoder may change (`changed_at` says whether it does).
fn suspect(b: u8) -> bool {
    (b < 0x20 && b != b'\n') | (b == 0x7f) | (b == 0xc2) | (b == 0xe2)
}

fn changed_at(block: &[u8], at: usize) -> bool {
    let next = |k: usize| block.get(at + k).copied().unwrap_or(0);
    match block[at] {
        b'\n' => false,
        b if b < 0x20 || b == 0x7f => true,
        0xc2 => (0x80..=0x9f).contains(&next(1)),
        0xe2 => matches!((next(1), next(2)), (0x80, 0x8e | 0x8f | 0xaa..=0xae) | (0x81, 0xa6..=0xa9)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line decoded by one stream decoder: what the block's text must equal.
    fn decoded(raw: &[u8]) -> String {
        crate::logs::joined(&decode(raw, Stream::Stdout))
    }

    #[test]
    fn a_blocks_text_is_what_the_decoder_makes_of_each_line() {
        let mut log = crate::logs::chatty_log(600).into_bytes();
        log.extend_from_slice(
            "ai\x1b[1mmv2 split\nbar \r\x1b[32m 50%\r100%\r\nx\r\r\ry\n\ttab\there\nbell\x07 rung\n\
             title\x1b]0;t\x07 set\nopen \x1b[12\nC1 \u{85} and bidi \u{202E}x\ncr at end\r\n\n"
                .as_bytes(),
        );
        let log = String::from_utf8(log).unwrap();
        assert_eq!(decoded_block(&log, Stream::Stdout).unwrap(), decoded(log.as_bytes()));
        assert_eq!(decoded_block("plain\nlines\n", Stream::Stdout), None);
    }

    #[test]
    fn lines_after_a_skip_decode_with_their_styles() {
        let lines = decode_after(b"one\n\x1b[31mtwo\x1b[0m\nthree\n", 1, Stream::Stderr);
        let texts: Vec<&str> = lines.iter().map(Line::text).collect();
        assert_eq!(texts, ["two", "three"]);
        assert!(!lines[0].styles.is_empty() && lines[1].stream == Stream::Stderr);
        assert!(decode_after(b"one\n", 5, Stream::Stdout).is_empty());
    }
}
