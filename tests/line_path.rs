//! The one line path (decoder → redactor → spool → classifier): a secret split across chunks,
//! escape sequences or Docker's 16 KiB frames never reaches a line or the spool; lines read back
//! from the spool are the lines forwarded; the live verdict sees every line.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use perftriage::classify::Classifier;
use perftriage::jobs::lines::LinePath;
use perftriage::logs::{Line, Redactor, Stream};
use std::sync::Arc;

const TOKEN: &str = "hf_SECRETabc123";

fn path(dir: &std::path::Path) -> LinePath {
    let classifier = Arc::new(Classifier::embedded().unwrap());
    LinePath::create(&dir.join("spool.log"), Redactor::new([TOKEN.to_string()]), classifier).unwrap()
}

/// Feed chunks; every line forwarded, then the spool's bytes.
fn feed(chunks: &[&[u8]]) -> (Vec<Line>, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = path(dir.path());
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend(lines.ingest(Stream::Stdout, chunk).unwrap());
    }
    out.extend(lines.finish().unwrap());
    let spool = String::from_utf8_lossy(&std::fs::read(dir.path().join("spool.log")).unwrap()).into_owned();
    (out, spool)
}

fn assert_clean(lines: &[Line], spool: &str) {
    for line in lines {
        assert!(!line.text().contains("SECRETabc"), "on a line: {}", line.text());
    }
    assert!(!spool.contains("SECRETabc") && !spool.contains("RETabc123"), "in the spool: {spool:?}");
    assert!(lines.iter().any(|l| l.text().contains("[REDACTED]")));
}

#[test]
fn a_token_printed_in_pieces_is_redacted() {
    let (lines, spool) = feed(&[b"login hf_SEC", b"RETabc123 ok\n"]);
    assert_eq!(lines[0].text(), "login [REDACTED] ok");
    assert_clean(&lines, &spool);
}

#[test]
fn a_token_split_by_an_escape_sequence_is_redacted_in_the_spool_too() {
    let (lines, spool) = feed(&[b"token \x1b[1mhf_SEC\x1b[0mRETabc123\n"]);
    assert_eq!(lines[0].text(), "token [REDACTED]");
    assert_clean(&lines, &spool);
}

#[test]
fn a_token_straddling_a_16_kib_docker_frame_is_redacted() {
    let mut line = "x".repeat(16 * 1024 - 5).into_bytes();
    line.extend_from_slice(format!("{TOKEN} tail\n").as_bytes());
    let (first, second) = line.split_at(16 * 1024);
    let (lines, spool) = feed(&[first, second]);
    assert!(lines[0].full_chars.is_some(), "shown capped; the spool has it whole");
    assert!(spool.trim_end().ends_with("[REDACTED] tail"), "{}", &spool[spool.len() - 40..]);
    assert!(!spool.contains("SECRETabc") && !lines[0].text().contains("SECRETabc"));
}

#[test]
fn spooled_lines_read_back_as_forwarded_and_the_verdict_is_live() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = path(dir.path());
    let text =
        "INFO start\nValueError: 'aimv2' is already used by a Transformers config, pick another name.\n";
    let forwarded = lines.ingest(Stream::Stdout, text.as_bytes()).unwrap();
    assert_eq!(lines.verdict().unwrap().category, "aimv2");
    let back = lines.reader().unwrap().read(0, 10, Stream::Stdout).unwrap();
    let texts = |l: &[Line]| l.iter().map(|x| x.text().to_string()).collect::<Vec<_>>();
    assert_eq!(texts(&back), texts(&forwarded));
    assert_eq!(lines.total(), 2);
}

#[test]
fn a_token_split_by_an_escape_in_the_middle_of_a_chunk_is_redacted() {
    // Whole lines in the middle of a chunk take the block road: the escape hides the token from the raw bytes.
    let (lines, spool) =
        feed(&[b"start\ntoken \x1b[1mhf_SEC\x1b[0mRETabc123\nlater hf_SECRETabc123 too\nend\n"]);
    let texts: Vec<&str> = lines.iter().map(Line::text).collect();
    assert_eq!(texts, ["start", "token [REDACTED]", "later [REDACTED] too", "end"]);
    assert_clean(&lines, &spool);
}

/// A log with every kind of line the decoder changes, and a failure for the classifier to find.
fn tricky_log() -> Vec<u8> {
    let mut log = Vec::new();
    for i in 0..3_000 {
        log.extend_from_slice(format!("INFO 07-24 13:15:43 [core.py:1] step {i}\n").as_bytes());
        log.extend_from_slice(
            b"\x1b[1;36m(APIServer pid=9)\x1b[0m INFO 07-24 13:15:44 [api_server.py:1] ready\n",
        );
        log.extend_from_slice(b"Capturing:  52%|##   | 35/67\r100%|#####| 67/67\n\ttab\there\r\n");
        log.extend_from_slice(
            "INFO:     127.0.0.1:44458 - \"POST /v1/completions HTTP/1.1\" 200 OK\n".as_bytes(),
        );
    }
    log.extend_from_slice(
        b"bell\x07 title\x1b]0;t\x07 C1 \xc2\x85 bidi \xe2\x80\x8f end\nnot utf-8 \xff here\n",
    );
    log.extend_from_slice(
        b"ValueError: 'aimv2' is already used by a Transformers config, pick another name.\n",
    );
    log.extend_from_slice(b"last line without a newline");
    log
}

/// Lines (text, styles, noise, stream), the spool's bytes and the verdict, feeding `log` in `chunk`-byte pieces.
fn through(log: &[u8], chunk: usize) -> (Vec<Line>, Vec<u8>, Option<perftriage::classify::Verdict>) {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = path(dir.path());
    let mut out = Vec::new();
    for piece in log.chunks(chunk) {
        out.extend(lines.ingest(Stream::Stdout, piece).unwrap());
    }
    out.extend(lines.finish().unwrap());
    (out, std::fs::read(dir.path().join("spool.log")).unwrap(), lines.verdict())
}

#[test]
fn the_block_road_gives_what_line_by_line_decoding_gives() {
    let log = tricky_log();
    // 5-byte pieces hold hardly a whole line: nearly every line goes through the decoder alone.
    let (slow_lines, slow_spool, slow_verdict) = through(&log, 5);
    for chunk in [4096, 1 << 20] {
        let (lines, spool, verdict) = through(&log, chunk);
        assert_eq!(lines.len(), slow_lines.len(), "{chunk}-byte chunks");
        assert!(lines == slow_lines, "{chunk}-byte chunks: the same lines, styles and noise marks");
        assert!(spool == slow_spool, "{chunk}-byte chunks: the same spool");
        assert_eq!(verdict, slow_verdict, "{chunk}-byte chunks");
    }
    let verdict = slow_verdict.unwrap();
    assert_eq!((verdict.category.as_str(), verdict.line), ("aimv2", 15_003));
    assert!(slow_lines.iter().any(|l| l.noise), "access lines are noise");
}

#[test]
fn a_caller_keeping_a_ring_gets_the_newest_lines_and_the_count_of_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let classifier = Arc::new(Classifier::embedded().unwrap());
    let mut lines = LinePath::create(&dir.path().join("spool.log"), Redactor::default(), classifier)
        .unwrap()
        .keeping(100);
    let log = tricky_log();
    for piece in log.chunks(1 << 16) {
        lines.push(Stream::Stdout, piece).unwrap();
    }
    let batch = lines.finish_batch().unwrap();
    assert_eq!((batch.skipped + batch.lines.len(), batch.lines.len()), (lines.total(), 100));
    assert_eq!(batch.lines.last().unwrap().text(), "last line without a newline");
    let (all, _, _) = through(&log, 1 << 16);
    assert!(batch.lines[..] == all[all.len() - 100..], "the newest 100, decoded as every line is");
}

#[test]
fn spools_and_their_folders_are_private_to_their_owner() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let classifier = Arc::new(Classifier::embedded().unwrap());
    let spool = dir.path().join("logs/7c01f706/human/run-server.log");
    let mut lines = LinePath::create(&spool, Redactor::default(), classifier).unwrap();
    lines.finish().unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&spool), 0o600);
    assert_eq!(mode(&dir.path().join("logs/7c01f706/human")), 0o700);
    let export = dir.path().join("exports/x.log");
    std::fs::create_dir_all(export.parent().unwrap()).unwrap();
    lines.reader().unwrap().save_to(&export).unwrap();
    assert_eq!(mode(&export), 0o600);
}

#[test]
fn a_large_block_scanned_on_two_threads_gives_what_line_by_line_decoding_gives() {
    // Over 1 MiB in one chunk: the caller scans the first two fifths (a token there), the spool's
    // thread the rest (a token and the failure there); the verdict's line counts across the cut.
    let mut log = format!("{TOKEN} first\n").into_bytes();
    (0..12_000).for_each(|i| log.extend_from_slice(format!("INFO 07-24 13:15:43 step {i}\n").as_bytes()));
    log.extend_from_slice(&tricky_log());
    log.extend_from_slice(format!("\n{TOKEN} last\n").as_bytes());
    assert!(log.len() > 1 << 20);
    let (slow_lines, slow_spool, slow_verdict) = through(&log, 5);
    let (lines, spool, verdict) = through(&log, 4 << 20);
    assert!(lines == slow_lines && spool == slow_spool, "the same lines and spool");
    assert_eq!(verdict, slow_verdict);
    assert_eq!(verdict.map(|v| v.line), Some(1 + 12_000 + 15_003));
    assert_clean(&lines, &String::from_utf8_lossy(&spool));
    assert_eq!(lines.iter().filter(|l| l.text().contains("[REDACTED]")).count(), 2);
}

#[test]
fn a_spool_that_cannot_be_written_is_said_at_the_next_sync_and_lines_keep_flowing() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool.log");
    // Every write to /dev/full fails with "no space left on device".
    std::os::unix::fs::symlink("/dev/full", &spool).unwrap();
    let classifier = Arc::new(Classifier::embedded().unwrap());
    let mut lines = LinePath::create(&spool, Redactor::default(), classifier).unwrap();
    let mut flowed = 0;
    for piece in tricky_log().chunks(1 << 16) {
        flowed += lines.ingest(Stream::Stdout, piece).unwrap().len();
    }
    assert_eq!(flowed, 15_003, "every whole line reached the caller");
    let error = lines.finish().unwrap_err().to_string();
    assert!(error.contains("spool") && error.contains("No space left on device"), "{error}");
    assert!(lines.reader().is_err(), "said again: {error}");
    assert_eq!(lines.verdict().map(|v| v.category), Some("aimv2".into()), "the verdict is kept");
}
