//! Headless `classify FILE...` and `metrics FILE...`: plain logs or result JSON files.
//! Exit 0 when every file was read, 1 otherwise.

use crate::classify::{Classifier, LiveClassifier, Verdict};
use crate::dataset::results;
use crate::metrics::parse;
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One classification or parse target: a whole plain log, or one variant of a result file.
struct Target {
    label: Option<&'static str>,
    text: String,
}

fn targets(path: &Path) -> Result<Vec<Target>, String> {
    if path.extension().is_some_and(|e| e == "json") {
        let set = results::read_file(path)?;
        return Ok(set
            .records
            .into_iter()
            .map(|r| Target { label: Some(r.variant.name()), text: r.text })
            .collect());
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    Ok(vec![Target { label: None, text: String::from_utf8_lossy(&bytes).into_owned() }])
}

fn verdict_json(verdict: Option<&Verdict>) -> Value {
    match verdict {
        None => json!({ "category": null }),
        Some(v) => json!({
            "category": v.category,
            "disposition": v.disposition.name(),
            "fixes": v.fixes,
            "explain": v.explain,
            "evidence": v.evidence,
            "line": v.line,
            "tags": v.tags,
        }),
    }
}

/// Classify a plain log line by line, never holding it whole (logs can be gigabytes).
fn classify_stream(classifier: &Classifier, path: &Path) -> Result<Option<Verdict>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut live = LiveClassifier::new(classifier);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => return Ok(live.verdict()),
            Ok(_) => live.feed(String::from_utf8_lossy(&buf).trim_end_matches(['\n', '\r'])),
            Err(e) => return Err(format!("read failed: {e}")),
        }
    }
}

pub fn classify(classifier: &Classifier, files: &[PathBuf], as_json: bool) -> std::io::Result<ExitCode> {
    let mut rows = Vec::new();
    for path in files {
        let file = path.display().to_string();
        if path.extension().is_some_and(|e| e == "json") {
            match targets(path) {
                Ok(list) => rows.extend(list.into_iter().map(|t| {
                    let mut v = verdict_json(classifier.classify(&t.text).as_ref());
                    v["file"] = json!(file);
                    v["variant"] = json!(t.label);
                    v
                })),
                Err(e) => rows.push(json!({ "file": file, "error": e })),
            }
        } else {
            match classify_stream(classifier, path) {
                Ok(verdict) => {
                    let mut v = verdict_json(verdict.as_ref());
                    v["file"] = json!(file);
                    rows.push(v);
                }
                Err(e) => rows.push(json!({ "file": file, "error": e })),
            }
        }
    }
    emit(&rows, as_json, |r| {
        let head = head(r);
        match (&r["error"], &r["category"]) {
            (Value::String(e), _) => format!("{head}: ERROR {e}"),
            (_, Value::Null) => format!("{head}: no known failure signature"),
            _ => format!(
                "{head}: {} ({}) line {}: {}\n  fixes: {}  tags: {}",
                s(&r["category"]),
                s(&r["disposition"]),
                r["line"],
                s(&r["evidence"]),
                list(&r["fixes"]),
                list(&r["tags"])
            ),
        }
    })
}

pub fn metrics(files: &[PathBuf], as_json: bool) -> std::io::Result<ExitCode> {
    let mut rows = Vec::new();
    for path in files {
        let file = path.display().to_string();
        match targets(path) {
            Ok(list) => rows.extend(list.into_iter().map(|t| {
                let raw = raw_output(path, &t).unwrap_or(t.text);
                match parse::parse(&raw) {
                    Ok(p) => json!({ "file": file, "variant": t.label, "kind": p.kind, "metrics": p.metrics }),
                    Err(why) => json!({ "file": file, "variant": t.label, "no_metrics": why, "reason": why.describe() }),
                }
            })),
            Err(e) => rows.push(json!({ "file": file, "error": e })),
        }
    }
    emit(&rows, as_json, |r| match (&r["error"], &r["metrics"]) {
        (Value::String(e), _) => format!("{}: ERROR {e}", head(r)),
        (_, Value::Object(m)) => {
            let pairs: Vec<String> = m.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{} [{}]: {}", head(r), s(&r["kind"]), pairs.join(" "))
        }
        _ => format!("{}: no metrics — {}", head(r), s(&r["reason"])),
    })
}

/// For result files the benchmark output is `raw_output`, not the error text.
fn raw_output(path: &Path, target: &Target) -> Option<String> {
    target.label?;
    let text = std::fs::read_to_string(path).ok()?;
    let value: Value = serde_json::Deserializer::from_str(&text).into_iter().next()?.ok()?;
    value["raw_output"].as_str().map(str::to_string)
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

fn list(v: &Value) -> String {
    v.as_array().map(|a| a.iter().map(|x| s(x).to_string()).collect::<Vec<_>>().join(",")).unwrap_or_default()
}

fn head(r: &Value) -> String {
    match r["variant"].as_str() {
        Some(v) => format!("{} [{v}]", s(&r["file"])),
        None => s(&r["file"]).to_string(),
    }
}

fn emit(rows: &[Value], as_json: bool, plain: impl Fn(&Value) -> String) -> std::io::Result<ExitCode> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for r in rows {
        if as_json {
            serde_json::to_writer(&mut out, r)?;
            out.write_all(b"\n")?;
        } else {
            writeln!(out, "{}", plain(r))?;
        }
    }
    out.flush()?;
    let all_read = rows.iter().all(|r| r.get("error").is_none());
    Ok(if all_read { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Stream a log file through a LogStore in 1 MiB chunks and report lines per second.
pub fn ingest(file: &Path, spool: &Path, search: Option<&str>) -> std::io::Result<ExitCode> {
    use std::io::Read;
    let mut store = crate::logs::LogStore::create(spool, crate::logs::DEFAULT_RING)?;
    let mut input = std::fs::File::open(file)?;
    let mut buf = vec![0u8; 1 << 20];
    let started = std::time::Instant::now();
    let (mut lines, mut bytes) = (0usize, 0u64);
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        lines += store.ingest(crate::logs::Stream::Stdout, &buf[..n])?;
    }
    lines += store.finish()?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{lines} lines, {:.0} MB in {secs:.2} s: {:.0} lines/s, {:.0} MB/s; ring holds {}, spool has {}",
        bytes as f64 / 1e6,
        lines as f64 / secs,
        bytes as f64 / 1e6 / secs,
        store.ring().total() - store.ring().first(),
        store.reader()?.lines()
    );
    if let Some(query) = search {
        let regex = regex::Regex::new(query).map_err(std::io::Error::other)?;
        let reader = store.reader()?;
        let started = std::time::Instant::now();
        let (mut first, mut hits) = (0, 0);
        while first < reader.lines() {
            let batch = reader.read(first, 8192, crate::logs::Stream::Stdout)?;
            hits += batch.iter().filter(|l| regex.is_match(l.text())).count();
            first += batch.len().max(1);
        }
        let secs = started.elapsed().as_secs_f64();
        println!("search /{query}/ over the whole spool: {hits} matching lines in {secs:.2} s");
    }
    Ok(ExitCode::SUCCESS)
}
