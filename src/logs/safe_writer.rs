//! A writer for people's eyes: text from files, datasets and containers decoded like container
//! output — every control but SGR colours removed, those kept as styles — and written back with
//! colour only when asked. Every headless line goes through it.

use super::{CellStyle, Color, Decoder, Line, Output, Stream};
use std::io::Write;

/// A writer that lets through printable text and newlines, and SGR colours when `colour`.
pub struct SafeWriter<W: Write> {
    inner: W,
    decoder: Decoder,
    out: Output,
    colour: bool,
}

impl<W: Write> SafeWriter<W> {
    pub fn new(inner: W, colour: bool) -> SafeWriter<W> {
        SafeWriter { inner, decoder: Decoder::uncapped(Stream::Stdout), out: Output::default(), colour }
    }

    fn emit(&mut self) -> std::io::Result<()> {
        self.out.raw.clear();
        self.out.line_ends.clear();
        for line in std::mem::take(&mut self.out.lines) {
            let text = if self.colour { styled(&line) } else { line.text };
            self.inner.write_all(text.as_bytes())?;
            self.inner.write_all(b"\n")?;
        }
        Ok(())
    }

    /// Write out an unfinished last line.
    pub fn finish(&mut self) -> std::io::Result<()> {
        self.decoder.finish(&mut self.out);
        self.emit()?;
        self.inner.flush()
    }
}

impl<W: Write> Write for SafeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.decoder.feed(buf, &mut self.out);
        self.emit()?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for SafeWriter<W> {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// A decoded line with its styles as SGR sequences, reset at the end.
fn styled(line: &Line) -> String {
    if line.styles.is_empty() {
        return line.text.clone();
    }
    let mut out = String::with_capacity(line.text.len() + 16);
    for (style, text) in line.segments() {
        out.push_str(&sgr(style));
        out.push_str(text);
    }
    out.push_str("\x1b[0m");
    out
}

fn sgr(style: CellStyle) -> String {
    let mut codes = vec!["0".to_string()];
    for (on, code) in [(style.bold, "1"), (style.dim, "2"), (style.italic, "3"), (style.underline, "4")] {
        if on {
            codes.push(code.into());
        }
    }
    if style.reversed {
        codes.push("7".into());
    }
    codes.extend(style.fg.map(|c| colour_code(c, 38)));
    codes.extend(style.bg.map(|c| colour_code(c, 48)));
    format!("\x1b[{}m", codes.join(";"))
}

fn colour_code(colour: Color, base: u8) -> String {
    match colour {
        Color::Indexed(n) => format!("{base};5;{n}"),
        Color::Rgb(r, g, b) => format!("{base};2;{r};{g};{b}"),
    }
}
