//! Hostile bytes in files never reach a terminal from a headless command: escape sequences (an
//! OSC 0 title change, an OSC 52 clipboard write, CSI), C1 controls and bidi overrides in result
//! files, dataset rows and triage reasons are taken out; markdown cells cannot start a heading;
//! `--json` escapes every control character. Closing the pipe early is not an error.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

const HOSTILE: &str =
    "boom \u{1b}]0;owned title\u{7}\u{1b}]52;c;aGFja2Vk\u{7}\u{1b}[2J\u{9b}31m\u{202e}txt.exe\u{7}";

use common::cli as run;

/// No ESC, BEL, other C0 but newline and tab, DEL, C1 or bidi control in these bytes.
fn assert_inert(bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    let bad = text.chars().find(|c| {
        (c.is_control() && *c != '\n' && *c != '\t')
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    });
    assert_eq!(bad, None, "{what} let a control character through: {text:?}");
}

/// A per-role result file whose error text is hostile.
fn hostile_result(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("7c01f706_human_result.json");
    let error =
        format!("ValueError: 'aimv2' is already used by a Transformers config, pick another name. {HOSTILE}");
    let body = serde_json::json!({ "human_commit": "7c01f706", "status": "error", "error": error });
    std::fs::write(&path, body.to_string()).unwrap();
    path
}

#[test]
fn classify_and_metrics_print_no_escape_sequence_from_a_file() {
    let ws = tempfile::tempdir().unwrap();
    let file = hostile_result(ws.path());
    let log = ws.path().join("plain.log");
    std::fs::write(
        &log,
        format!("ERROR ModuleNotFoundError: No module named 'vllm.vllm_flash_attn.fa_utils' {HOSTILE}\n"),
    )
    .unwrap();
    for args in [["classify", "x"], ["metrics", "x"]] {
        for target in [&file, &log] {
            let out = run(ws.path(), &[args[0], target.to_str().unwrap()]);
            if args[0] == "classify" {
                assert!(String::from_utf8_lossy(&out.stdout).contains("boom"), "the evidence is printed");
            }
            assert_inert(&out.stdout, args[0]);
            assert_inert(&out.stderr, args[0]);
            let out = run(ws.path(), &[args[0], target.to_str().unwrap(), "--json"]);
            assert_inert(&out.stdout, "--json");
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                serde_json::from_str::<serde_json::Value>(line).unwrap();
            }
        }
    }
}

#[test]
fn status_report_and_mark_print_no_escape_sequence_from_data_or_reasons() {
    let ws = tempfile::tempdir().unwrap();
    let mut row: serde_json::Value =
        serde_json::from_str(perftriage::dataset::EMBEDDED.lines().next().unwrap()).unwrap();
    row["subject"] = serde_json::json!(HOSTILE);
    let dataset = ws.path().join("d.jsonl");
    std::fs::write(&dataset, row.to_string()).unwrap();
    let short = row["short"].as_str().unwrap().to_string();
    let d = dataset.to_str().unwrap();
    let reason = format!("bad image\n# Injected heading\n{HOSTILE} | x");
    let marked = run(ws.path(), &["--dataset", d, "mark", &short, "--unfixable", &reason]);
    assert!(marked.status.success(), "{}", String::from_utf8_lossy(&marked.stderr));
    assert_inert(&marked.stdout, "mark");
    for args in [vec!["status"], vec!["status", "--json"], vec!["report"], vec!["report", "--format", "csv"]]
    {
        let out = run(ws.path(), &[&["--dataset", d][..], &args].concat());
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_inert(&out.stdout, &args.join(" "));
    }
    let md = String::from_utf8_lossy(&run(ws.path(), &["--dataset", d, "report"]).stdout).into_owned();
    assert!(!md.lines().any(|l| l.starts_with("# Injected")), "a reason started a heading:\n{md}");
    assert!(md.contains("bad image # Injected heading"), "{md}");
}

#[test]
fn closing_the_pipe_early_is_not_an_error() {
    let ws = tempfile::tempdir().unwrap();
    // More output than a pipe holds, so the reader is surely gone before the writer is done.
    let synth = ws.path().join("synth");
    assert!(
        run(ws.path(), &["synth", "--commits", "3000", "--files-per-commit", "0", synth.to_str().unwrap()])
            .status
            .success()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--workspace")
        .arg(ws.path())
        .args(["--dataset", synth.join("dataset.jsonl").to_str().unwrap(), "status"])
        .env("XDG_CONFIG_HOME", ws.path().join("no-config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(child.wait().unwrap().success());
    assert!(!err.to_lowercase().contains("broken pipe"), "{err}");
}
