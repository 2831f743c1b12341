//! Everything a headless command prints for people goes through here. Text from files, datasets
//! and containers can carry escape sequences (an OSC 52 clipboard write, a title change), C1
//! controls or bidi overrides; each line is decoded like container output — only SGR colours
//! survive, as styles — and written back with colour only when stdout is a terminal. JSON gets
//! every control and bidi character escaped.

pub use crate::logs::SafeWriter;
use std::io::{IsTerminal, Write};

/// Colour is for terminals, and off under `NO_COLOR`.
pub fn colour_wanted() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Standard output for people: sanitised, coloured only on a terminal.
pub fn stdout() -> SafeWriter<std::io::StdoutLock<'static>> {
    SafeWriter::new(std::io::stdout().lock(), colour_wanted())
}

/// Lines to standard output, sanitised; a closed pipe (`| head -1`) is an error for `main` to
/// end quietly on, never a panic.
pub fn lines<S: AsRef<str>>(lines: impl IntoIterator<Item = S>) -> std::io::Result<()> {
    let mut out = stdout();
    for line in lines {
        writeln!(out, "{}", line.as_ref())?;
    }
    out.finish()
}

/// One line to standard error, sanitised and without colour.
pub fn err(text: &str) {
    let mut w = SafeWriter::new(std::io::stderr().lock(), false);
    let _ = writeln!(w, "{text}");
}

/// A value as one line of JSON, with DEL, C1 controls, bidi controls and line separators escaped
/// as well as what JSON itself requires (they can only stand inside strings).
pub fn json(value: &impl serde::Serialize) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(256);
    write_json(&mut out, value)?;
    // Only whole UTF-8 sequences or ASCII escapes were written.
    String::from_utf8(out).map_err(|e| serde::ser::Error::custom(e.to_string()))
}

/// `json` into `writer`, escaped as it is written (no second pass over the text).
pub fn write_json(writer: &mut impl Write, value: &impl serde::Serialize) -> serde_json::Result<()> {
    value.serialize(&mut serde_json::Serializer::with_formatter(writer, Escaping))
}

/// JSON lines to standard output: `write_json` leaves no control or bidi character unescaped, so
/// they go out as written, with no decoder on the way.
pub struct JsonLines {
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
}

impl JsonLines {
    pub fn stdout() -> JsonLines {
        JsonLines { out: std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock()) }
    }

    pub fn line(&mut self, value: &impl serde::Serialize) -> std::io::Result<()> {
        write_json(&mut self.out, value)?;
        self.out.write_all(b"\n")
    }

    /// A line per item, in order, each made by `value` and written by `write_json` (on every
    /// core, a chunk of lines each).
    pub fn lines_of<'a, T: Sync, V: serde::Serialize>(
        &mut self,
        items: &'a [T],
        value: impl Fn(&'a T) -> V + Sync,
    ) -> std::io::Result<()> {
        self.lines_teed(items, value, |_| ())
    }

    /// `lines_of`, each round of lines also handed to `tee` once written.
    pub fn lines_teed<'a, T: Sync, V: serde::Serialize>(
        &mut self,
        items: &'a [T],
        value: impl Fn(&'a T) -> V + Sync,
        mut tee: impl FnMut(&[u8]),
    ) -> std::io::Result<()> {
        json_lines_in_order(items, value, |lines| {
            self.out.write_all(lines)?;
            tee(lines);
            Ok(())
        })
    }

    pub fn finish(mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Lines a thread of `json_lines_in_order` makes at a time, at most.
const LINES_PER_CHUNK: usize = 256;
/// What one round of every thread's chunk may hold, about: a commit's line can be hundreds of
/// kilobytes (a re-run history's overridden records), and the lines wait here to be written.
const ROUND_BYTES: usize = 4 << 20;

/// A JSON line per item, made a chunk per core at a time and handed to `write` in order; each
/// round's chunks are sized by the lines of the round before (the first: a line each).
fn json_lines_in_order<'a, T: Sync, V: serde::Serialize>(
    items: &'a [T],
    value: impl Fn(&'a T) -> V + Sync,
    mut write: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (mut at, mut per_chunk) = (0, 1);
    while at < items.len() {
        let round = &items[at..items.len().min(at + per_chunk * threads)];
        let made: Vec<std::io::Result<Vec<u8>>> = std::thread::scope(|scope| {
            let chunks = round.chunks(per_chunk).map(|chunk| scope.spawn(|| json_lines(chunk, &value)));
            let handles: Vec<_> = chunks.collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        });
        let mut bytes = 0;
        for lines in made {
            let lines = lines?;
            bytes += lines.len();
            write(&lines)?;
        }
        let per_line = (bytes / round.len()).max(1);
        (at, per_chunk) = (at + round.len(), (ROUND_BYTES / threads / per_line).clamp(1, LINES_PER_CHUNK));
    }
    Ok(())
}

/// A JSON line per item of `chunk`.
fn json_lines<'a, T, V: serde::Serialize>(
    chunk: &'a [T],
    value: &impl Fn(&'a T) -> V,
) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    for item in chunk {
        write_json(&mut out, &value(item))?;
        out.push(b'\n');
    }
    Ok(out)
}

/// serde_json's compact output with the characters `needs_escape` names written as `\uXXXX`.
struct Escaping;

impl serde_json::ser::Formatter for Escaping {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        // Every such character is DEL or starts with byte C2 (C1 controls) or E2 (the rest).
        if memchr::memchr3(0x7f, 0xc2, 0xe2, fragment.as_bytes()).is_none() {
            return writer.write_all(fragment.as_bytes());
        }
        let mut plain = 0;
        for (at, c) in fragment.char_indices().filter(|(_, c)| needs_escape(*c)) {
            writer.write_all(&fragment.as_bytes()[plain..at])?;
            write!(writer, "\\u{:04x}", u32::from(c))?;
            plain = at + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[plain..])
    }
}

fn needs_escape(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{200e}' | '\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character `needs_escape` names leaves as `\uXXXX`, inside and across string
    /// fragments (serde_json cuts a string at its own escapes); plain text is written as it is.
    #[test]
    fn json_escapes_bidi_c1_and_del_and_leaves_plain_text_alone() {
        let value = serde_json::json!({
            "subject": "safe \u{202E}exe\"txt\u{7f} \u{85}x\u{2028}\u{2069}é ✓",
            "plain": "ascii and ünïcode",
        });
        let text = json(&value).unwrap();
        assert_eq!(
            text,
            r#"{"plain":"ascii and ünïcode","subject":"safe \u202eexe\"txt\u007f \u0085x\u2028\u2069é ✓"}"#
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value, "what is read back is what was written");
    }

    #[test]
    fn long_json_lines_are_made_a_few_at_a_time() {
        let long = "x".repeat(ROUND_BYTES / 4);
        let mut writes = Vec::new();
        json_lines_in_order(
            &[0; 40],
            |_| long.as_str(),
            |lines| {
                writes.push(lines.len());
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(writes.iter().sum::<usize>(), 40 * (long.len() + 3), "every line, quoted");
        assert!(writes.iter().all(|n| *n <= ROUND_BYTES), "at most a round held: {writes:?}");
    }

    #[test]
    fn json_lines_made_on_every_core_come_out_in_order_and_escaped() {
        let items: Vec<usize> = (0..LINES_PER_CHUNK * 5 + 7).collect();
        let value = |n: &usize| serde_json::json!({ "n": n, "text": "\u{202E}" });
        let mut written = Vec::new();
        json_lines_in_order(&items, value, |lines| {
            written.extend_from_slice(lines);
            Ok(())
        })
        .unwrap();
        let one_by_one: String = items.iter().map(|n| json(&value(n)).unwrap() + "\n").collect();
        assert_eq!(String::from_utf8(written).unwrap(), one_by_one);
    }
}
