//! The end of a run: its outcome, and the result file in the ISO-Bench run_3way schema with a
//! `perftriage` object beside the upstream fields (tools that read run_3way keep working).

use crate::classify::{Classifier, Verdict};
use crate::dataset::RunStatus;
use crate::logs::Redactor;
use crate::metrics::gates::{self, GateFailure};
use crate::metrics::{Metrics, parse};
use crate::runs::{Failure, FailureKind, RunPlan};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PatchOutcome {
    pub applied: bool,
    pub root: String,
    /// The patch touches C/C++/CUDA sources, which an editable install does not rebuild.
    pub needs_rebuild: bool,
}

#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub plan: RunPlan,
    pub status: RunStatus,
    pub category: Option<FailureKind>,
    pub error: Option<String>,
    pub verdict: Option<Verdict>,
    pub metrics: Metrics,
    pub duration_s: f64,
    pub ready_after_s: Option<f64>,
    pub image_digest: Option<String>,
    pub container: Option<String>,
    /// The create request went to the daemon: a cancel that dropped it may still see the
    /// container appear afterwards.
    pub create_sent: bool,
    /// The server was let go (its go file made): from here a lost connection resumes it as it
    /// runs; before, the steps not yet done are done on reconnecting.
    pub server_released: bool,
    pub patch: Option<PatchOutcome>,
    pub bench_exit: Option<i64>,
    pub logs: Vec<PathBuf>,
    pub raw_tail: String,
    /// Each repeat's value per metric (`metrics` holds their means); empty for a single run.
    pub samples: std::collections::BTreeMap<String, Vec<f64>>,
    /// Where in the benchmark pane's text each repeat began.
    pub repeat_starts: Vec<usize>,
    /// Why an `auto` run stopped adding runs (`clear at 3 runs`, `unresolved after 6 runs`).
    pub auto_stop: Option<String>,
}

impl RunOutcome {
    pub fn new(plan: &RunPlan) -> RunOutcome {
        RunOutcome {
            plan: plan.clone(),
            status: RunStatus::NotRun,
            category: None,
            error: None,
            verdict: None,
            metrics: Metrics::new(),
            duration_s: 0.0,
            ready_after_s: None,
            image_digest: None,
            container: None,
            create_sent: false,
            server_released: false,
            patch: None,
            bench_exit: None,
            logs: Vec::new(),
            raw_tail: String::new(),
            samples: std::collections::BTreeMap::new(),
            repeat_starts: Vec::new(),
            auto_stop: None,
        }
    }

    pub(super) fn failed(mut self, failure: Failure, started: Instant) -> RunOutcome {
        let Failure { kind, message } = failure;
        self.status = if kind == FailureKind::Timeout { RunStatus::Timeout } else { RunStatus::Error };
        // A named signature in the output says more than the generic step that noticed it.
        self.category = match (&self.verdict, kind.is_generic()) {
            (Some(v), true) => Some(FailureKind::from_name(&v.category)),
            _ => Some(kind),
        };
        self.error = Some(message);
        self.duration_s = started.elapsed().as_secs_f64();
        self
    }

    pub(super) fn finish(
        mut self,
        bench: &str,
        server: &str,
        classifier: &Classifier,
        started: Instant,
    ) -> RunOutcome {
        self.raw_tail = tail(&format!("{server}\n{bench}"), 10_000);
        match repeats(bench, &self.repeat_starts) {
            Ok(parsed) if self.bench_exit.unwrap_or(0) == 0 => {
                if let Some((n, failure)) = first_invalid(bench, &self.repeat_starts, &parsed) {
                    return self.invalid(n, &failure, classifier, started);
                }
                self.status = RunStatus::Success;
                self.metrics = means(&parsed);
                if parsed.len() > 1 {
                    self.samples = samples(&parsed);
                }
                self.duration_s = started.elapsed().as_secs_f64();
                self
            }
            Ok(_) | Err(_) => {
                let why = repeats(bench, &self.repeat_starts).err().map_or(
                    "the benchmark exited with an error".to_string(),
                    |(n, w)| {
                        format!(
                            "{}{}",
                            if n > 0 { format!("repeat {}: ", n + 1) } else { String::new() },
                            w.describe()
                        )
                    },
                );
                self.verdict = classifier.classify(&format!("{bench}\n{server}"));
                let kind =
                    FailureKind::from_name(self.verdict.as_ref().map_or("no_metrics", |v| &v.category));
                let message = format!("No {} metrics in output: {why}", self.plan.kind.name());
                self.failed(Failure::new(kind, message), started)
            }
        }
    }
}

impl RunOutcome {
    /// A repeat measured nothing (it failed validity gate): the run is an `invalid_measurement`.
    fn invalid(
        mut self,
        n: usize,
        failure: &GateFailure,
        classifier: &Classifier,
        started: Instant,
    ) -> RunOutcome {
        self.verdict = failure.verdict(classifier);
        let repeat = if self.repeat_starts.len() > 1 { format!("repeat {}: ", n + 1) } else { String::new() };
        let kind = FailureKind::from_name("invalid_measurement");
        self.failed(Failure::new(kind, format!("{repeat}{failure}")), started)
    }
}

/// The benchmark's text cut where each repeat began.
fn parts<'a>(bench: &'a str, starts: &[usize]) -> Vec<&'a str> {
    let mut cuts: Vec<usize> = starts.iter().map(|&s| s.min(bench.len())).collect();
    if cuts.is_empty() {
        cuts.push(0);
    }
    let ends = cuts.iter().skip(1).copied().chain([bench.len()]);
    cuts.iter().zip(ends).map(|(&a, b)| bench.get(a..b).unwrap_or("")).collect()
}

/// Each repeat's metrics; the first repeat that gives none fails them all (its index and why).
fn repeats(bench: &str, starts: &[usize]) -> Result<Vec<Metrics>, (usize, parse::NoMetrics)> {
    let parts = parts(bench, starts).into_iter().enumerate();
    parts.map(|(n, part)| parse::parse(part).map(|p| p.metrics).map_err(|e| (n, e))).collect()
}

/// Each counted run's value of `metric` so far (a run that printed none is left out).
pub(super) fn samples_so_far(bench: &str, starts: &[usize], metric: &str) -> Vec<f64> {
    let parsed = parts(bench, starts).into_iter().filter_map(|part| parse::parse(part).ok());
    parsed.filter_map(|p| p.metrics.get(metric).copied()).collect()
}

/// The first repeat that fails a validity gate, and the gate.
fn first_invalid(bench: &str, starts: &[usize], parsed: &[Metrics]) -> Option<(usize, GateFailure)> {
    let limits = gates::configured();
    let each = parts(bench, starts).into_iter().zip(parsed).enumerate();
    each.into_iter().find_map(|(n, (text, metrics))| Some((n, gates::check(&[text], metrics, &limits)?)))
}

/// Per metric, the mean over the repeats that measured it.
fn means(runs: &[Metrics]) -> Metrics {
    samples(runs).into_iter().map(|(name, values)| (name, crate::metrics::mean(&values))).collect()
}

fn samples(runs: &[Metrics]) -> std::collections::BTreeMap<String, Vec<f64>> {
    let mut out: std::collections::BTreeMap<String, Vec<f64>> = std::collections::BTreeMap::new();
    for (name, value) in runs.iter().flatten() {
        out.entry(name.clone()).or_default().push(*value);
    }
    out
}

pub(super) fn tail(text: &str, chars: usize) -> String {
    let count = text.chars().count();
    text.chars().skip(count.saturating_sub(chars)).collect()
}

/// run_3way spellings of our metric names.
fn upstream_name(name: &str) -> String {
    match name {
        "request_throughput" => "request_throughput_req_s".into(),
        "output_throughput" => "output_token_throughput_tok_s".into(),
        "total_throughput" => "total_token_throughput_tok_s".into(),
        "input_throughput" => "input_throughput_tok_s".into(),
        "throughput" => "throughput_tok_s".into(),
        "elapsed_time" => "elapsed_time_s".into(),
        other => format!("{other}_ms"),
    }
}

/// Write `<workspace>/results/<short>_<variant>_result.json` (atomically), the cell's newest, and the run's own
/// copy `runs/<run id>/` (`own_result_path`), never replaced; returns the first's path.
pub fn write_result(
    outcome: &RunOutcome,
    workspace: &Path,
    redactor: &Redactor,
    now: &str,
    gpu: Option<&Value>,
) -> std::io::Result<PathBuf> {
    let plan = &outcome.plan;
    let metrics: serde_json::Map<String, Value> =
        outcome.metrics.iter().map(|(k, v)| (upstream_name(k), json!(v))).collect();
    let status = match outcome.status {
        RunStatus::Success => "success",
        RunStatus::Timeout => "timeout",
        _ => "error",
    };
    let body = json!({
        "human_commit": plan.short,
        "human_commit_full": plan.full,
        "parent_commit": plan.parent,
        "model": plan.model,
        "status": status,
        "error": outcome.error.as_deref().map(|e| redactor.text(e)),
        "duration_s": outcome.duration_s,
        "metrics": metrics,
        "raw_output": redactor.text(&outcome.raw_tail),
        "timestamp": now.replace('T', " ").trim_end_matches('Z'),
        "perftriage": ours(outcome, redactor, now, gpu),
    });
    let dir = workspace.join("results");
    let path = dir.join(format!("{}_{}_result.json", plan.short, plan.variant.name()));
    let tmp = dir.join(format!(".{}_{}_result.json.tmp", plan.short, plan.variant.name()));
    // A full disk says which file it could not write.
    crate::files::private_dir(&dir).map_err(at(&dir))?;
    let bytes = serde_json::to_vec_pretty(&body).map_err(std::io::Error::other)?;
    // The run's own copy first: the cell's file is replaced by its next attempt, this never is.
    let own = own_result_path(workspace, (&plan.short, plan.variant), &plan.run_id);
    crate::files::write(&own, &bytes).map_err(at(&own))?;
    crate::files::write(&tmp, &bytes).map_err(at(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(at(&path))?;
    Ok(path)
}

/// The `perftriage` object beside the upstream fields.
fn ours(outcome: &RunOutcome, redactor: &Redactor, now: &str, gpu: Option<&Value>) -> Value {
    let plan = &outcome.plan;
    let logs: Vec<String> = outcome.logs.iter().map(|p| p.display().to_string()).collect();
    json!({
        "schema_version": 1,
        "run_id": plan.run_id,
        "variant": plan.variant.name(),
        "image": plan.image,
        "image_digest": outcome.image_digest,
        "final_command": redactor.text(&plan.final_command),
        "fixes": plan.fixes,
        "patch": outcome.patch,
        "logs": { "server": logs.first(), "benchmark": logs.get(1) },
        "tool_version": env!("CARGO_PKG_VERSION"),
        "gpu": gpu,
        "timings": { "ready_after_s": outcome.ready_after_s, "duration_s": outcome.duration_s, "finished_at": now },
        "classification": classification(outcome, redactor),
        "workload": plan.workload,
        "repeats": repeats_record(outcome),
    })
}

/// `perftriage.repeats`: how many runs counted, their values, and for `auto` why it stopped.
fn repeats_record(outcome: &RunOutcome) -> Value {
    let plan = &outcome.plan;
    let n = outcome.repeat_starts.len().max(1);
    let auto = plan.auto.as_ref().map(|a| {
        json!({ "max": a.max, "metric": a.metric, "against": a.partner.name(), "stopped": outcome.auto_stop })
    });
    json!({ "n": n, "samples": outcome.samples, "warmup": plan.auto.as_ref().map(|_| plan.warmup), "auto": auto })
}

fn classification(outcome: &RunOutcome, redactor: &Redactor) -> Value {
    let Some(v) = &outcome.verdict else { return json!({ "category": outcome.category }) };
    json!({
        "category": outcome.category, "disposition": v.disposition.name(), "evidence": redactor.text(&v.evidence),
        "line": v.line, "tags": v.tags, "fixes": v.fixes,
    })
}

/// Where a run's own result is kept, beside its launch record, named as the cell's file is (the
/// result reader takes a file's commit and variant from its name):
/// `runs/<run id>/<short>_<variant>_result.json`.
pub fn own_result_path(
    workspace: &Path,
    (short, variant): (&str, crate::dataset::Variant),
    run_id: &crate::ids::RunId,
) -> PathBuf {
    workspace.join("runs").join(run_id).join(format!("{short}_{}_result.json", variant.name()))
}

/// An I/O error that names the file it happened to.
fn at(path: &Path) -> impl FnOnce(std::io::Error) -> std::io::Error + '_ {
    move |e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}
