//! Raw bytes → safe lines, one decoder per stream. `\r\n` ends a line; a bare `\r` (tqdm, ninja)
//! rewrites it, so only the final state is kept; SGR becomes styles that reset at line end; every
//! other control or escape sequence (CSI, OSC, DCS/SOS/PM/APC strings, lone ESC, BEL, BS, C1) is
//! dropped; invalid UTF-8 becomes U+FFFD. A newline always ends the line and any sequence in
//! progress, so each line decodes the same way again when it is read back from the spool.

use super::line::detect_level;
use super::{CellStyle, DISPLAY_CAP, Line, Stream};

/// Raw bytes of an unfinished line beyond which they are handed to the spool early.
const RAW_FLUSH: usize = 1 << 20;
const MAX_PARAMS: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Ground,
    Esc,
    EscIntermediate,
    Csi,
    /// OSC, DCS, SOS, PM or APC: dropped up to BEL or ESC `\`.
    Str,
    StrEsc,
}

#[derive(Debug, Default)]
pub struct Output {
    pub lines: Vec<Line>,
    /// Raw bytes ready for the spool: whole lines, or the head of a line longer than 1 MiB.
    pub raw: Vec<u8>,
    /// Where in `raw` each of `lines` ends (after its newline).
    pub line_ends: Vec<usize>,
}

#[derive(Debug)]
pub struct Decoder {
    stream: Stream,
    state: State,
    style: CellStyle,
    params: Vec<u16>,
    param: Option<u16>,
    private: bool,
    pending_cr: bool,
    segment: Vec<u8>,
    text: String,
    styles: Vec<(usize, CellStyle)>,
    kept: usize,
    chars: usize,
    raw: Vec<u8>,
    /// Characters kept per line (`DISPLAY_CAP`, or unlimited to expand a line on demand).
    cap: usize,
}

impl Decoder {
    pub fn new(stream: Stream) -> Decoder {
        Decoder {
            stream,
            state: State::Ground,
            style: CellStyle::default(),
            params: Vec::new(),
            param: None,
            private: false,
            pending_cr: false,
            segment: Vec::new(),
            text: String::new(),
            styles: Vec::new(),
            kept: 0,
            chars: 0,
            raw: Vec::new(),
            cap: DISPLAY_CAP,
        }
    }

    /// A decoder that keeps whole lines, however long (for expanding one line on demand).
    pub fn uncapped(stream: Stream) -> Decoder {
        Decoder { cap: usize::MAX / 4, ..Decoder::new(stream) }
    }

    /// Decode a chunk; complete lines (and the raw bytes for the spool) are appended to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Output) {
        let mut i = 0;
        while i < bytes.len() {
            if self.pending_cr {
                self.pending_cr = false;
                if bytes[i] != b'\n' {
                    self.rewrite_line();
                }
            }
            if self.state == State::Ground {
                let run = bytes[i..].iter().position(|&b| b < 0x20 || b == 0x7f).unwrap_or(bytes.len() - i);
                if run > 0 {
                    self.text(&bytes[i..i + run]);
                    self.raw.extend_from_slice(&bytes[i..i + run]);
                    i += run;
                    continue;
                }
            }
            let b = bytes[i];
            self.raw.push(b);
            i += 1;
            if b == b'\n' {
                self.end_line(out);
                continue;
            }
            self.control(b);
        }
        if self.raw.len() >= RAW_FLUSH {
            out.raw.append(&mut self.raw);
        }
    }

    /// End of stream: a last line without a newline is still a line.
    pub fn finish(&mut self, out: &mut Output) {
        if !self.raw.is_empty() || !self.text.is_empty() || !self.segment.is_empty() {
            self.raw.push(b'\n');
            self.end_line(out);
        }
    }

    fn text(&mut self, bytes: &[u8]) {
        self.chars += bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count();
        let room = (self.cap * 4).saturating_sub(self.kept);
        let take = bytes.len().min(room);
        self.segment.extend_from_slice(&bytes[..take]);
        self.kept += take;
    }

    fn control(&mut self, b: u8) {
        match (self.state, b) {
            (State::Ground, b'\r') => self.pending_cr = true,
            (State::Ground, b'\t') => self.text(b"    "),
            (State::Ground, 0x1b) => self.state = State::Esc,
            (State::Ground, _) => {} // BEL, BS, other C0, DEL: dropped
            (State::Esc, b'[') => {
                self.state = State::Csi;
                self.params.clear();
                self.param = None;
                self.private = false;
            }
            (State::Esc, b']' | b'P' | b'X' | b'^' | b'_') => self.state = State::Str,
            (State::Esc | State::EscIntermediate, 0x20..=0x2f) => self.state = State::EscIntermediate,
            (State::Esc | State::EscIntermediate, _) => self.state = State::Ground,
            (State::Csi, b'0'..=b'9') => {
                let digit = u16::from(b - b'0');
                self.param = Some(self.param.unwrap_or(0).saturating_mul(10).saturating_add(digit));
            }
            (State::Csi, b';' | b':') => self.push_param(),
            (State::Csi, b'<'..=b'?') => self.private = true,
            (State::Csi, 0x20..=0x2f) => self.private = true,
            (State::Csi, 0x40..=0x7e) => {
                self.push_param();
                if b == b'm' && !self.private {
                    self.set_style();
                }
                self.state = State::Ground;
            }
            (State::Csi, _) => {}
            (State::Str, 0x07) => self.state = State::Ground,
            (State::Str, 0x1b) => self.state = State::StrEsc,
            (State::Str, _) => {}
            (State::StrEsc, b'\\') => self.state = State::Ground,
            (State::StrEsc, _) => self.state = State::Str,
        }
    }

    fn push_param(&mut self) {
        if self.params.len() < MAX_PARAMS {
            self.params.push(self.param.unwrap_or(0));
        }
        self.param = None;
    }

    fn set_style(&mut self) {
        let mut next = self.style;
        // `ESC [ m` carries one implicit 0 after push_param; both mean reset.
        next.apply(&self.params);
        if next != self.style {
            self.flush_segment();
            self.style = next;
            // A run starts where the text now ends; a later change at the same spot replaces it.
            match self.styles.last_mut() {
                Some((at, style)) if *at == self.text.len() => *style = next,
                _ => self.styles.push((self.text.len(), next)),
            }
        }
    }

    fn flush_segment(&mut self) {
        if self.segment.is_empty() {
            return;
        }
        push_printable(&mut self.text, &self.segment);
        self.segment.clear();
    }

    /// A bare carriage return: what follows overwrites the line, so start it again.
    fn rewrite_line(&mut self) {
        self.segment.clear();
        self.text.clear();
        self.styles.clear();
        self.kept = 0;
        self.chars = 0;
    }

    fn end_line(&mut self, out: &mut Output) {
        self.flush_segment();
        let mut styles = std::mem::take(&mut self.styles);
        // Runs that start at the end (a colour set, then nothing printed) or are all default say nothing.
        styles.retain(|(at, _)| *at < self.text.len());
        if styles.iter().all(|(_, s)| *s == CellStyle::default()) {
            styles.clear();
        }
        let full_chars = (self.kept >= self.cap * 4 || self.chars > self.cap).then_some(self.chars);
        let mut line = Line {
            text: std::mem::take(&mut self.text),
            styles,
            stream: self.stream,
            full_chars,
            level: None,
            noise: false,
        };
        if full_chars.is_some() {
            cap_chars(&mut line, self.cap);
        }
        line.level = detect_level(&line.text);
        out.lines.push(line);
        out.raw.append(&mut self.raw);
        out.line_ends.push(out.raw.len());
        self.style = CellStyle::default();
        self.state = State::Ground;
        self.pending_cr = false;
        self.kept = 0;
        self.chars = 0;
    }
}

/// Append lossy UTF-8 without control or bidirectional-override characters. Ground-state bytes hold
/// no C0 controls, so ASCII needs no check at all.
fn push_printable(text: &mut String, bytes: &[u8]) {
    if bytes.is_ascii() {
        text.push_str(std::str::from_utf8(bytes).unwrap_or_default());
        return;
    }
    let decoded = String::from_utf8_lossy(bytes);
    text.extend(decoded.chars().filter(|&c| !unsafe_char(c)));
}

fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
}

fn cap_chars(line: &mut Line, cap: usize) {
    if let Some((cut, _)) = line.text.char_indices().nth(cap) {
        line.text.truncate(cut);
        line.styles.retain(|(at, _)| *at < cut);
    }
}
