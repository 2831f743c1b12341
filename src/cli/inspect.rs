//! Headless `classify FILE...` and `metrics FILE...`: plain logs or result JSON files.
//! Exit 0 when every file was read, 1 otherwise.

use crate::classify::{Classifier, LiveClassifier, Verdict};
use crate::dataset::results;
use crate::metrics::{gates, parse};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Why a file given to `classify` or `metrics` gave nothing: said in its row, never silence.
#[derive(Debug, thiserror::Error)]
enum InspectError {
    #[error(transparent)]
    Result(#[from] results::ReadError),
    #[error("no result record of a known shape{}", .0.as_ref().map(|w| format!(" ({w})")).unwrap_or_default())]
    NoRecord(Option<String>),
    #[error("cannot read: {0}")]
    Unreadable(#[from] std::io::Error),
    #[error(transparent)]
    Log(#[from] crate::logs::PiecesError),
}

/// A result file's records, or why it holds none.
fn records(path: &Path) -> Result<Vec<results::ResultRecord>, InspectError> {
    let set = results::read_file(path)?;
    if set.records.is_empty() {
        return Err(InspectError::NoRecord(set.warnings.first().map(|w| w.message.clone())));
    }
    Ok(set.records)
}

fn is_result_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}

/// What names a record in a row: file, variant, agent, and why it cannot stand for its variant.
fn record_row(file: &str, r: &results::ResultRecord) -> Value {
    let mut row = json!({ "file": file, "variant": r.variant.name(), "agent": r.agent, "status": r.outcome.status.word() });
    if let Some(why) = &r.not_comparable {
        row["not_comparable"] = json!(why);
    }
    row
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
            "field": v.field,
            "tags": v.tags,
        }),
    }
}

/// Classify a plain log block by block, never holding it whole (logs can be gigabytes, or one
/// endless line): its failure signature, else the validity gate its benchmark result lines fail
/// (a log that claims no measurement fails none); how many cuts long lines took.
fn classify_stream(
    classifier: &std::sync::Arc<Classifier>,
    path: &Path,
) -> Result<(Option<Verdict>, usize), InspectError> {
    let (mut live, mut scan) = (LiveClassifier::new(classifier.clone()), gates::Scan::default());
    let read = crate::logs::read_blocks(std::fs::File::open(path)?, |bytes| {
        let (first, second) = live.feed_bytes(bytes, |text| gates::Scan::of(&[text]));
        scan.absorb(first);
        scan.absorb(second);
    })?;
    let gated = || gates::check_log(&scan, &gates::configured())?.verdict(classifier);
    Ok((live.verdict().or_else(gated), read.cuts))
}

/// Where long lines were cut, said in a row (`cut`: how many cuts of `LINE_CAP` bytes).
fn with_cuts(mut row: Value, cuts: usize) -> Value {
    if cuts > 0 {
        row["cut"] =
            json!(format!("{cuts} cut(s): lines longer than {} bytes read in pieces", crate::logs::LINE_CAP));
    }
    row
}

pub fn classify(
    classifier: &std::sync::Arc<Classifier>,
    files: &[PathBuf],
    as_json: bool,
) -> std::io::Result<ExitCode> {
    let rows: Vec<Value> = files.iter().flat_map(|path| classify_file(classifier, path)).collect();
    emit(&rows, as_json, verdict_text)
}

/// One row per record of a result file, or one for a plain log; an unreadable file is a row too.
fn classify_file(classifier: &std::sync::Arc<Classifier>, path: &Path) -> Vec<Value> {
    let file = path.display().to_string();
    let merged = |verdict: Option<Verdict>, mut row: Value| {
        for (k, v) in verdict_json(verdict.as_ref()).as_object().into_iter().flatten() {
            row[k] = v.clone();
        }
        row
    };
    let record_row = |r: &results::ResultRecord| {
        let mut row = merged(r.classify(classifier), record_row(&file, r));
        row["warnings"] = json!(r.warnings(classifier));
        row
    };
    let rows = if is_result_file(path) {
        records(path).map(|list| list.iter().map(record_row).collect())
    } else {
        classify_stream(classifier, path)
            .map(|(verdict, cuts)| vec![with_cuts(merged(verdict, json!({ "file": file })), cuts)])
    };
    rows.unwrap_or_else(|e| vec![json!({ "file": file, "error": e.to_string() })])
}

fn verdict_text(r: &Value) -> String {
    let head = head(r);
    match (&r["error"], &r["category"]) {
        (Value::String(e), _) => format!("{head}: ERROR {e}"),
        (_, Value::Null) => format!("{head}: no known failure signature{}", warning_lines(&r["warnings"])),
        _ => format!(
            "{head}: {} ({}) {}line {}: {}\n  fixes: {}  tags: {}",
            s(&r["category"]),
            s(&r["disposition"]),
            r["field"].as_str().map(|f| format!("{f} ")).unwrap_or_default(),
            r["line"],
            s(&r["evidence"]),
            list(&r["fixes"]),
            list(&r["tags"])
        ),
    }
}

/// A measured record's warnings, one indented line each.
fn warning_lines(warnings: &Value) -> String {
    let lines = warnings.as_array().into_iter().flatten().map(|w| {
        format!("\n  warning {} ({} line {}): {}", s(&w["rule"]), s(&w["field"]), w["line"], s(&w["text"]))
    });
    lines.collect()
}

pub fn metrics(files: &[PathBuf], as_json: bool) -> std::io::Result<ExitCode> {
    let mut rows = Vec::new();
    for path in files {
        let file = path.display().to_string();
        let found = if is_result_file(path) {
            records(path).map(|list| list.iter().map(|r| record_metrics(&file, r)).collect())
        } else {
            log_metrics(&file, path).map(|row| vec![row])
        };
        rows.extend(found.unwrap_or_else(|e| vec![json!({ "file": file, "error": e.to_string() })]));
    }
    emit(&rows, as_json, |r| match (&r["error"], &r["metrics"]) {
        (Value::String(e), _) => format!("{}: ERROR {e}", head(r)),
        (_, Value::Object(m)) => {
            let pairs: Vec<String> = m.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let invalid = r["invalid"].as_str().map_or(String::new(), |why| format!("\n  INVALID: {why}"));
            format!("{} [{}] from {}: {}{invalid}", head(r), s(&r["kind"]), s(&r["from"]), pairs.join(" "))
        }
        _ => format!("{}: no metrics — {}", head(r), s(&r["reason"])),
    })
}

/// A log's numbers, read block by block, and the validity gate they fail (`invalid`), if one.
fn log_metrics(file: &str, path: &Path) -> Result<Value, InspectError> {
    let (mut numbers, mut scan) = (crate::metrics::stream::StreamParse::default(), gates::Scan::default());
    let read = crate::logs::read_blocks(std::fs::File::open(path)?, |bytes| {
        let (first, second) = numbers.feed_bytes(bytes, |text| gates::Scan::of(&[text]));
        scan.absorb(first);
        scan.absorb(second);
    })?;
    let row = match numbers.finish() {
        Ok(p) => {
            let mut row = json!({ "file": file, "kind": p.kind, "metrics": p.metrics, "partial": p.partial });
            if let Some(failed) = gates::check_scanned(&scan, &p.metrics, &gates::configured()) {
                row["invalid"] = json!(failed.to_string());
            }
            row
        }
        Err(why) => json!({ "file": file, "no_metrics": why, "reason": why.describe() }),
    };
    Ok(with_cuts(row, read.cuts))
}

/// A record's numbers as the board holds them, with where they came from; without any, why.
fn record_metrics(file: &str, r: &results::ResultRecord) -> Value {
    let mut row = record_row(file, r);
    if let Some(failed) = &r.invalid {
        row["invalid"] = json!(failed.to_string());
    }
    let raw = r.texts.iter().find(|t| t.field.contains("raw")).map(|t| parse::parse(&t.text));
    match (&r.outcome.metrics_from, raw) {
        (Some(from), raw) => {
            row["metrics"] = json!(r.outcome.metrics);
            row["from"] = json!(from.describe());
            row["source"] = json!(from);
            row["kind"] = json!(raw.and_then(Result::ok).map(|p| p.kind));
        }
        (None, Some(Err(why))) => {
            row["no_metrics"] = json!(why);
            row["reason"] = json!(why.describe());
        }
        (None, _) => {
            row["reason"] = json!(format!("the record holds no metrics ({})", r.outcome.status.word()))
        }
    }
    row
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

fn list(v: &Value) -> String {
    v.as_array().map(|a| a.iter().map(|x| s(x).to_string()).collect::<Vec<_>>().join(",")).unwrap_or_default()
}

fn head(r: &Value) -> String {
    let agent = r["agent"].as_str().map(|a| format!(" {a}")).unwrap_or_default();
    let aside = r["not_comparable"].as_str().map(|w| format!(" (not comparable: {w})")).unwrap_or_default();
    match r["variant"].as_str() {
        Some(v) => format!("{} [{v}{agent}]{aside}", s(&r["file"])),
        None => s(&r["file"]).to_string(),
    }
}

fn emit(rows: &[Value], as_json: bool, plain: impl Fn(&Value) -> String) -> std::io::Result<ExitCode> {
    let mut out = super::out::stdout();
    for r in rows {
        if as_json {
            writeln!(out, "{}", super::out::json(r)?)?;
        } else {
            writeln!(out, "{}", plain(r))?;
        }
    }
    out.finish()?;
    let all_read = rows.iter().all(|r| r.get("error").is_none());
    Ok(if all_read { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// How often the ingest takes its newest lines into the ring, as a log view does between frames.
const TAKE_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

fn into_ring(ring: &mut crate::logs::Ring, batch: crate::logs::Batch) {
    ring.skip(batch.skipped);
    batch.lines.into_iter().for_each(|l| ring.push(l));
}

/// Stream a log file through the line path in 4 MiB chunks (into a ring, as a log view keeps
/// them, taking what came every 50 ms) and report lines per second.
pub fn ingest(
    file: &Path,
    spool: &Path,
    search: &[String],
    redactor: crate::logs::Redactor,
) -> std::io::Result<ExitCode> {
    use std::io::Read;
    let classifier = std::sync::Arc::new(Classifier::embedded().map_err(std::io::Error::other)?);
    let keep = crate::logs::DEFAULT_RING;
    let mut path = crate::jobs::lines::LinePath::create(spool, redactor, classifier)?.keeping(keep);
    let mut ring = crate::logs::Ring::new(keep);
    let mut input = std::fs::File::open(file)?;
    let mut buf = vec![0u8; 4 << 20];
    let started = std::time::Instant::now();
    let (mut bytes, mut taken) = (0u64, started);
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        path.push(crate::logs::Stream::Stdout, &buf[..n])?;
        if taken.elapsed() >= TAKE_EVERY {
            into_ring(&mut ring, path.take_newest(crate::logs::SCREENFUL));
            taken = std::time::Instant::now();
        }
    }
    into_ring(&mut ring, path.finish_batch()?);
    let (lines, secs) = (path.total(), started.elapsed().as_secs_f64());
    let mut out = super::out::stdout();
    writeln!(
        out,
        "{lines} lines, {:.0} MB in {secs:.2} s: {:.0} lines/s, {:.0} MB/s; ring holds {}, spool has {}",
        bytes as f64 / 1e6,
        lines as f64 / secs,
        bytes as f64 / 1e6 / secs,
        ring.total() - ring.first(),
        path.reader()?.lines()
    )?;
    for query in search {
        writeln!(out, "{}", search_spool(&path.reader()?, query)?)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Search a whole spool for `query` on the spool search's threads; what it found and how fast.
fn search_spool(reader: &crate::logs::SpoolReader, query: &str) -> std::io::Result<String> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let search = crate::logs::SpoolSearch::new(query).map_err(std::io::Error::other)?;
    let started = std::time::Instant::now();
    let (hits, first) = (AtomicUsize::new(0), std::sync::OnceLock::new());
    let count = |found: Vec<crate::logs::Hit>| {
        first.get_or_init(|| started.elapsed().as_secs_f64());
        hits.fetch_add(found.len(), Ordering::Relaxed);
    };
    search.run(reader, reader.lines(), &AtomicBool::new(false), &count)?;
    let secs = started.elapsed().as_secs_f64();
    let (hits, first) = (hits.into_inner(), first.get().copied().unwrap_or(secs));
    let rate = std::fs::metadata(reader.path())?.len() as f64 / 1e6 / secs;
    Ok(format!(
        "search /{query}/ (case-insensitive) over the whole spool: {hits} matching lines in {secs:.3} s \
         ({rate:.0} MB/s), the first after {first:.3} s"
    ))
}
