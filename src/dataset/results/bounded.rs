//! A result file read in bounded memory, whatever its size: its JSON text is copied as it streams
//! in, every string longer than `FIELD_CAP` kept as its head and its tail (where a benchmark's
//! numbers and a crash's last words are) with a marker between, so no copy of a 400 MB
//! `raw_output` is ever held. What was cut is said, per field.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};

/// Files up to this size are read whole, as they are.
pub const WHOLE_UP_TO: u64 = 64 << 20;
/// The longest string kept whole: longer ones keep `head` bytes and the last `tail`.
#[derive(Clone, Copy)]
struct Cap {
    head: usize,
    tail: usize,
}

const FIELD_CAP: Cap = Cap { head: 4 << 20, tail: 12 << 20 };

/// A file's JSON text, strings over the cap cut; and how many bytes each cut string lost.
pub struct Bounded {
    pub text: String,
    pub cut: Vec<u64>,
}

/// Where a string's bytes are in an escape: none, just after a backslash, or in `\uXXXX`'s
/// hex digits (how many are left).
#[derive(Clone, Copy, PartialEq)]
enum Escape {
    None,
    Began,
    Hex(u8),
}

impl Escape {
    fn after(self, b: u8) -> Escape {
        match self {
            Escape::None if b == b'\\' => Escape::Began,
            Escape::Began if b == b'u' => Escape::Hex(4),
            Escape::Hex(n) if n > 1 => Escape::Hex(n - 1),
            _ => Escape::None,
        }
    }
}

/// The copy as it goes: outside a string, or inside one (its head copied, its tail so far).
struct Copy {
    cap: Cap,
    out: Vec<u8>,
    in_string: bool,
    escape: Escape,
    head: usize,
    head_open: bool,
    length: usize,
    tail: VecDeque<u8>,
    cut: Vec<u64>,
}

/// Read `path`'s JSON text with every string longer than the cap cut (see the module's doc).
pub fn read(file: std::fs::File) -> std::io::Result<Bounded> {
    read_capped(file, FIELD_CAP)
}

fn read_capped(file: std::fs::File, cap: Cap) -> std::io::Result<Bounded> {
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut copy = Copy {
        cap,
        out: Vec::new(),
        in_string: false,
        escape: Escape::None,
        head: 0,
        head_open: true,
        length: 0,
        tail: VecDeque::new(),
        cut: Vec::new(),
    };
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        chunk.iter().for_each(|&b| copy.byte(b));
        let n = chunk.len();
        reader.consume(n);
    }
    let text =
        String::from_utf8(copy.out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Ok(Bounded { text, cut: copy.cut })
}

impl Copy {
    fn byte(&mut self, b: u8) {
        if !self.in_string {
            self.in_string = b == b'"';
            self.out.push(b);
            return;
        }
        if b == b'"' && self.escape == Escape::None {
            self.close();
            self.out.push(b);
            return;
        }
        let safe = self.escape == Escape::None && b & 0xC0 != 0x80;
        self.escape = self.escape.after(b);
        self.length += 1;
        if self.head_open && (self.head < self.cap.head || !safe) {
            self.head += 1;
            self.out.push(b);
            return;
        }
        self.head_open = false;
        if self.tail.len() == self.cap.tail {
            self.tail.pop_front();
        }
        self.tail.push_back(b);
    }

    /// A string ends: its tail, after a marker saying how much was left out where any was.
    fn close(&mut self) {
        let tail: Vec<u8> = std::mem::take(&mut self.tail).into();
        let lost = self.length - self.head - tail.len();
        (self.in_string, self.escape, self.head, self.head_open, self.length) =
            (false, Escape::None, 0, true, 0);
        if lost == 0 {
            self.out.extend_from_slice(&tail);
            return;
        }
        let start = safe_start(&tail);
        let lost = lost + start;
        let longest = self.cap.head + self.cap.tail;
        let marker = format!(
            "\\n[perftriage: {lost} bytes of this field not read: it is longer than {longest} bytes]\\n"
        );
        self.out.extend_from_slice(marker.as_bytes());
        self.out.extend_from_slice(&tail[start..]);
        self.cut.push(lost as u64);
    }
}

/// The first place in a string's kept tail where JSON text can start: not a UTF-8 continuation
/// byte, and not a byte a backslash escapes.
fn safe_start(tail: &[u8]) -> usize {
    (1..tail.len()).find(|&i| tail[i - 1] != b'\\' && tail[i] & 0xC0 != 0x80).unwrap_or(tail.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of `value` as JSON text, read bounded by `cap`, parsed back.
    fn round_trip(value: &serde_json::Value, cap: Cap) -> (serde_json::Value, Vec<u64>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        std::fs::write(&path, value.to_string()).unwrap();
        let read = read_capped(std::fs::File::open(&path).unwrap(), cap).unwrap();
        (serde_json::from_str(&read.text).unwrap_or_else(|e| panic!("still JSON: {e}")), read.cut)
    }

    #[test]
    fn short_fields_are_read_as_they_are() {
        let value = serde_json::json!({ "status": "success", "raw_output": "a \"quoted\" é\\n line\u{1}" });
        assert_eq!(round_trip(&value, FIELD_CAP), (value, Vec::new()));
    }

    #[test]
    fn a_long_field_keeps_its_head_and_tail_and_stays_json_wherever_the_cut_falls() {
        // Each of the 15 places each cut can fall in the unit's JSON text (a small cap: the same
        // copy as the real one's, which `the_real_cap_keeps_16_mib_of_a_long_field` guards).
        let cap = Cap { head: 4 << 10, tail: 12 << 10 };
        for extra in 0..15 {
            cut_field(cap, extra);
        }
    }

    #[test]
    fn the_real_cap_keeps_16_mib_of_a_long_field() {
        let text = cut_field(FIELD_CAP, 0);
        let (head, tail) = text.split_once("\n[perftriage: ").unwrap();
        let tail = tail.split_once("]\n").unwrap().1;
        // 4 MiB of JSON text before the marker and 12 after, read back as 7 bytes of every 15.
        let decoded = |mib: usize| (mib << 20) * 7 / 15;
        assert!(head.len().abs_diff(decoded(4)) < 64, "head {} bytes", head.len());
        assert!(tail.len().abs_diff(decoded(12)) < 64, "tail {} bytes", tail.len());
    }

    /// A field a MiB (or a 16th of the cap) longer than `cap`, `extra` bytes before its escapes
    /// and after them (so both cuts move): cut once, marked, its head and tail kept, no character
    /// cut in two, the text still JSON. The field as read back.
    fn cut_field(cap: Cap, extra: usize) -> String {
        // Escapes and two-byte characters everywhere, so each cut lands in or near one.
        let unit = "é\"\\\u{7}x\n";
        let longest = cap.head + cap.tail;
        let over = unit.repeat((longest + (longest / 16).min(1 << 20)) / unit.len());
        let ys = "y".repeat(extra);
        let body = format!("HEAD{ys}{over}{ys}TAIL");
        let value = serde_json::json!({ "raw_output": body, "status": "error" });
        let (back, cut) = round_trip(&value, cap);
        let text = back["raw_output"].as_str().unwrap();
        assert!(text.starts_with(&format!("HEAD{ys}é\"")) && text.ends_with(&format!("{ys}TAIL")));
        assert!(text.contains(&format!("it is longer than {longest} bytes]")), "the cut is marked");
        assert_eq!(cut.len(), 1);
        assert!(!text.contains('\u{FFFD}'), "no character is cut in two");
        // The cap counts the JSON text's bytes: a unit's 15 read back as 7.
        let kept = text.len();
        assert!(kept > longest * 7 / 15 - 1024 && kept < longest + 1024, "{kept} bytes kept of {longest}");
        assert_eq!(back["status"], "error", "what follows the long field is read");
        text.to_string()
    }
}
