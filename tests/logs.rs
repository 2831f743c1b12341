//! LogStore decoding, ring and spool: hostile output renders as plain text; lines read back from
//! the spool equal the ones decoded live.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use perftriage::logs::{
    CellStyle, Color, DISPLAY_CAP, Decoder, Level, Line, Output, Ring, SpoolWriter, Stream,
};
use proptest::prelude::*;

fn decode(bytes: &[u8]) -> Vec<Line> {
    let mut d = Decoder::new(Stream::Stdout);
    let mut out = Output::default();
    d.feed(bytes, &mut out);
    d.finish(&mut out);
    out.lines
}

fn texts(bytes: &[u8]) -> Vec<String> {
    decode(bytes).iter().map(|l| l.text().to_string()).collect()
}

#[test]
fn newlines_and_carriage_returns() {
    assert_eq!(texts(b"a\r\nb\nc"), ["a", "b", "c"]);
    // tqdm rewrites its bar with bare CRs: only the final state remains.
    assert_eq!(texts(b" 10%|#  |\r 50%|### |\r100%|####|\nnext\n"), ["100%|####|", "next"]);
}

#[test]
fn sgr_becomes_styles_that_reset_at_line_end() {
    let lines = decode(b"\x1b[1;36m(APIServer pid=996)\x1b[0;0m INFO 07-24 13:15:43 [api.py:1] up\nplain\n");
    let first = &lines[0];
    assert_eq!(first.text(), "(APIServer pid=996) INFO 07-24 13:15:43 [api.py:1] up");
    let cyan_bold = CellStyle { fg: Some(Color::Indexed(6)), bold: true, ..Default::default() };
    assert_eq!(first.segments()[0], (cyan_bold, "(APIServer pid=996)"));
    assert_eq!(first.segments()[1].0, CellStyle::default());
    assert_eq!(first.level, Some(Level::Info));
    let unterminated = decode(b"\x1b[31mred without reset\nnext line\n");
    assert_eq!(
        unterminated[1].segments()[0].0,
        CellStyle::default(),
        "colour does not leak into the next line"
    );
    let extended = decode(b"\x1b[38;5;208mo\x1b[48;2;1;2;3mx\n");
    assert_eq!(extended[0].segments()[0].0.fg, Some(Color::Indexed(208)));
    assert_eq!(extended[0].segments()[1].0.bg, Some(Color::Rgb(1, 2, 3)));
}

#[test]
fn hostile_sequences_are_removed() {
    let hostile: &[&[u8]] = &[
        b"\x1b]0;pwned title\x07A",        // OSC retitle (BEL)
        b"\x1b]52;c;ZXZpbA==\x1b\\B",      // OSC 52 clipboard write (ST)
        b"\x1b[2J\x1b[H\x1b[10;10HC",      // clear screen, cursor moves
        b"\x1bP1$qm\x1b\\D",               // DCS request
        b"E\x07\x08\x7f",                  // BEL, backspace, DEL
        b"\x1bcF\x1b(BG\x1b[?1049h",       // reset, charset, alt screen
        "H\u{9b}31mI\u{202e}J".as_bytes(), // C1 CSI (dropped; its parameters stay inert text), bidi override
        b"\x1b",                           // lone ESC at end
    ];
    let joined: Vec<u8> = hostile.concat();
    let lines = decode(&joined);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].text(), "ABCDEFGH31mIJ");
}

#[test]
fn invalid_utf8_and_long_lines() {
    assert_eq!(texts(b"ok \xff\xfe done\n"), ["ok \u{fffd}\u{fffd} done"]);
    let long = "x".repeat(90_000) + "\n";
    let lines = decode(long.as_bytes());
    assert_eq!(lines[0].text().chars().count(), DISPLAY_CAP);
    assert_eq!(lines[0].full_chars, Some(90_000));
}

#[test]
fn levels_in_both_vllm_formats_and_tracebacks() {
    let lines = decode(
        b"WARNING 07-24 13:15:43 config.py:12] slow\n(EngineCore pid=7) ERROR 07-24 13:15:44 [core.py:9] boom\nTraceback (most recent call last):\nValueError: bad\nINFO: not a vllm line\n",
    );
    let levels: Vec<_> = lines.iter().map(|l| l.level).collect();
    assert_eq!(
        levels,
        [Some(Level::Warning), Some(Level::Error), Some(Level::Error), Some(Level::Error), None]
    );
}

#[test]
fn ring_keeps_the_newest_lines_with_absolute_numbers() {
    let mut ring = Ring::new(3);
    for line in decode(b"0\n1\n2\n3\n4\n") {
        ring.push(line);
    }
    assert_eq!(ring.total(), 5);
    assert_eq!(ring.first(), 2);
    assert!(ring.get(1).is_none());
    assert_eq!(ring.get(4).unwrap().text(), "4");
}

#[test]
fn spool_reads_back_any_line_exactly_as_decoded_live() {
    let dir = tempfile::tempdir().unwrap();
    let mut spool = SpoolWriter::create(&dir.path().join("logs/abc/human/run1.log")).unwrap();
    let mut decoder = Decoder::new(Stream::Stdout);
    let mut live = Vec::new();
    for chunk in 0..50 {
        let mut text = String::new();
        for i in 0..97 {
            text.push_str(&format!("\x1b[32mline {chunk}-{i}\x1b[0m tail\r\n"));
            if i % 10 == 0 {
                text.push_str(" 10%\r 90%\r100%\n");
            }
        }
        let mut out = Output::default();
        decoder.feed(text.as_bytes(), &mut out);
        spool.append(&out.raw).unwrap();
        live.extend(out.lines);
    }
    spool.flush().unwrap();
    let reader = spool.reader();
    assert_eq!(reader.lines(), live.len());
    for first in [0, 1, 63, 64, 65, 1000, live.len() - 5] {
        let back = reader.read(first, 10, Stream::Stdout).unwrap();
        let expected: Vec<Line> = live.iter().skip(first).take(10).cloned().collect();
        assert_eq!(back, expected, "from line {first}");
    }
    assert!(reader.read(live.len(), 10, Stream::Stdout).unwrap().is_empty());
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic_or_leave_control_characters(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        for line in decode(&bytes) {
            let text = line.text();
            prop_assert!(!text.chars().any(|c| c.is_control()), "control char in {text:?}");
            prop_assert!(!text.contains(char::from(27u8)));
            prop_assert!(line.styles.iter().all(|(at, _)| text.is_char_boundary(*at)));
        }
    }

    #[test]
    fn chunking_never_changes_the_result(bytes in proptest::collection::vec(any::<u8>(), 0..1024), cut in 0usize..1024) {
        let whole = decode(&bytes);
        let cut = cut.min(bytes.len());
        let mut d = Decoder::new(Stream::Stdout);
        let mut out = Output::default();
        d.feed(&bytes[..cut], &mut out);
        d.feed(&bytes[cut..], &mut out);
        d.finish(&mut out);
        prop_assert_eq!(whole, out.lines);
    }
}
