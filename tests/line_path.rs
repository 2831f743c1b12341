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
