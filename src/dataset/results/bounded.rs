//! A result file read in bounded memory, whatever its size: its JSON text is copied as it streams
//! in, every string longer than `FIELD_CAP` kept as its head and its tail (where a benchmark's
//! numbers and a crash's last words are) with a marker between, so no copy of a 400 MB
//! `raw_output` is ever held. What was cut is said, per field.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};

/// Files up to this size are read whole, as they are.
pub const WHOLE_UP_TO: u64 = 64 << 20;
/// The longest string kept whole: longer ones keep `HEAD` bytes and the last `TAIL`.
const HEAD: usize = 4 << 20;
const TAIL: usize = 12 << 20;
const FIELD_CAP: usize = HEAD + TAIL;

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
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut copy = Copy {
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
        if self.head_open && (self.head < HEAD || !safe) {
            self.head += 1;
            self.out.push(b);
            return;
        }
        self.head_open = false;
        if self.tail.len() == TAIL {
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
        let marker = format!(
            "\\n[perftriage: {lost} bytes of this field not read: it is longer than {FIELD_CAP} bytes]\\n"
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

    /// A file of `value` as JSON text, read bounded, parsed back.
    fn round_trip(value: &serde_json::Value) -> (serde_json::Value, Vec<u64>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        std::fs::write(&path, value.to_string()).unwrap();
        let read = read(std::fs::File::open(&path).unwrap()).unwrap();
        (serde_json::from_str(&read.text).unwrap_or_else(|e| panic!("still JSON: {e}")), read.cut)
    }

    #[test]
    fn short_fields_are_read_as_they_are() {
        let value = serde_json::json!({ "status": "success", "raw_output": "a \"quoted\" é\\n line\u{1}" });
        assert_eq!(round_trip(&value), (value, Vec::new()));
    }

    #[test]
    fn a_long_field_keeps_its_head_and_tail_and_stays_json_wherever_the_cut_falls() {
        // Escapes and two-byte characters everywhere, so each cut lands in or near one.
        let unit = "é\"\\\u{7}x\n";
        for extra in 0..4 {
            let body =
                format!("HEAD{}{}TAIL", unit.repeat((FIELD_CAP + (1 << 20)) / unit.len()), "y".repeat(extra));
            let value = serde_json::json!({ "raw_output": body, "status": "error" });
            let (back, cut) = round_trip(&value);
            let text = back["raw_output"].as_str().unwrap();
            assert!(text.starts_with("HEADé\"") && text.ends_with(&format!("{}TAIL", "y".repeat(extra))));
            assert!(text.contains("bytes of this field not read"), "the cut is marked");
            assert_eq!(cut.len(), 1);
            assert!(text.len() < FIELD_CAP + 1024, "{} bytes kept", text.len());
            assert_eq!(back["status"], "error", "what follows the long field is read");
        }
    }
}
