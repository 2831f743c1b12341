//! HF tokens in result files never leave the process: every headless command that reads them
//! prints them redacted, and nothing the workspace keeps (the digest cache) holds them; a cache
//! made with other secrets is not used. A token is caught by its shape (`hf_` and 30+ letters or
//! digits) or as the environment's `HF_TOKEN`, and also when the file spells it with JSON `\u`
//! escapes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

/// Shaped like an HF token.
const SHAPED: &str = "hf_abcdefghijklmnopqrstuvwxyz0123456789";
/// The environment's token: not token-shaped, so only `HF_TOKEN` says it is a secret.
const ENV_SECRET: &str = "s3cr3t-env-value";

fn perftriage(workspace: &Path, args: &[&str]) -> Output {
    perftriage_with(workspace, args, ENV_SECRET)
}

/// With `token` as the environment's `HF_TOKEN`; result files are cached at once.
fn perftriage_with(workspace: &Path, args: &[&str], token: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--workspace")
        .arg(workspace)
        .args(args)
        .env("XDG_CONFIG_HOME", workspace.join("no-config"))
        .env("HF_TOKEN", token)
        .env("PERFTRIAGE_DIGEST_SETTLE_MS", "0")
        .output()
        .unwrap()
}

/// A failed per-role result holding the token as written, the environment's secret in its
/// output, and the token again spelled with `\u` escapes (`hf_` as `\u0068\u0066_`).
fn result_with_secrets(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("7c01f706_human_result.json");
    let escaped = SHAPED.replacen("hf_", "\\u0068\\u0066_", 1);
    let body = format!(
        r#"{{"human_commit": "7c01f706", "status": "error", "error": "login {SHAPED} then ValueError: 'aimv2' is already used by a Transformers config", "raw_output": "token={ENV_SECRET}\nagain {escaped}\nValueError: 'aimv2' is already used by a Transformers config"}}"#
    );
    std::fs::write(&path, body).unwrap();
    path
}

fn assert_no_secret(bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    for secret in [SHAPED, ENV_SECRET] {
        assert!(!text.contains(secret), "{what} printed a secret: {text}");
    }
}

#[test]
fn status_report_classify_and_metrics_print_result_files_redacted() {
    let ws = tempfile::tempdir().unwrap();
    let results = ws.path().join("results-in");
    std::fs::create_dir(&results).unwrap();
    let file = result_with_secrets(&results);
    let (r, f) = (results.to_str().unwrap(), file.to_str().unwrap());
    let commands: [&[&str]; 6] = [
        &["--results", r, "status"],
        &["--results", r, "status", "--json"],
        &["--results", r, "report"],
        &["--results", r, "report", "--format", "csv"],
        &["classify", f, "--json"],
        &["metrics", f, "--json"],
    ];
    for args in commands {
        let out = perftriage(ws.path(), args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_no_secret(&out.stdout, &args.join(" "));
        assert_no_secret(&out.stderr, &args.join(" "));
    }
    let json = perftriage(ws.path(), &["--results", r, "status", "--json"]).stdout;
    let text = String::from_utf8_lossy(&json);
    assert!(text.contains("login [REDACTED] then"), "the evidence is kept, redacted: {text}");
}

#[test]
fn the_digest_cache_holds_no_secret_and_one_made_with_other_secrets_is_not_used() {
    let ws = tempfile::tempdir().unwrap();
    let results = ws.path().join("results-in");
    std::fs::create_dir(&results).unwrap();
    result_with_secrets(&results);
    let status = ["--results", results.to_str().unwrap(), "status", "--verbose"];
    for _ in 0..2 {
        assert!(perftriage(ws.path(), &status).status.success());
    }
    let cache = std::fs::read(ws.path().join("cache/digests.jsonl")).unwrap();
    assert_no_secret(&cache, "the digest cache");
    assert!(String::from_utf8_lossy(&cache).contains("[REDACTED]"), "the record is cached, redacted");
    let other = perftriage_with(ws.path(), &status, "another-secret-value");
    let said = String::from_utf8_lossy(&other.stderr);
    assert!(said.contains("1 result files read") && said.contains(", 0 of them unchanged"), "{said}");
}
