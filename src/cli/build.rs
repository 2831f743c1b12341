//! Headless `perftriage build SHORT [--max-jobs N] [--nvcc-threads N] [--timeout S] [--plan]`:
//! the baseline image built from source at the parent, its log on stdout, a status line on
//! stderr every few seconds and at each phase, the outcome recorded. Exit 0 built, 3 the build
//! failed (its kind, evidence and, after an OOM, a MAX_JOBS to re-run with), 1 tool error.

use crate::builds::{BuildWatch, KnobSet, Phase};
use crate::docker::Engine;
use crate::jobs::build::{BuildEvent, BuildJob, BuildReport, build};
use crate::jobs::build_job::{BuildSettings, change, log_path, machine_of, outcome_lines, record};
use crate::session::Context;
use anyhow::Result;
use std::io::Write;
use std::process::ExitCode;

/// Seconds between status lines on stderr (a phase change prints at once).
const STATUS_EVERY_S: f64 = 5.0;

pub fn build_cli(ctx: &Context, short: &str, changes: &KnobSet, plan_only: bool) -> Result<ExitCode> {
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let settings = BuildSettings::from_config(&ctx.config, &ctx.images, &ctx.workspace);
    super::runtime()?.block_on(async {
        let engine = Engine::connect().await;
        let machine = machine_of(engine.as_ref().ok()).await;
        let job = match settings.job(&entry.commit, changes, machine) {
            Ok(job) => job,
            Err(why) => {
                super::out::err(&format!("perftriage: cannot build {short}: {why}"));
                return Ok(ExitCode::from(2));
            }
        };
        let plan = settings.describe(&job, changes, machine);
        if plan_only {
            super::out::lines(&plan)?;
            return Ok(ExitCode::SUCCESS);
        }
        plan.iter().for_each(|l| super::out::err(&format!("perftriage: {l}")));
        let (cancel_tx, cancel) = tokio::sync::watch::channel(false);
        let stopped_by = crate::jobs::signals::cancel_on_stop(&cancel_tx);
        let report = run(&engine?, &job, ctx.redactor.clone(), cancel).await?;
        if let Some((name, number)) = stopped_by.lock().ok().and_then(|s| *s) {
            super::out::err(&format!(
                "perftriage: build stopped by {name}; its container is removed, nothing recorded"
            ));
            return Ok(ExitCode::from(128 + number));
        }
        conclude(ctx, &job, &report)
    })
}

async fn run(
    engine: &Engine,
    job: &BuildJob,
    redactor: crate::logs::Redactor,
    cancel: tokio::sync::watch::Receiver<bool>,
) -> Result<BuildReport> {
    let spool = log_path(job);
    let classifier = std::sync::Arc::new(crate::classify::Classifier::embedded()?);
    let mut lines = crate::jobs::lines::LinePath::create(&spool, redactor, classifier)?;
    let mut status = StatusPrinter::default();
    let mut out = super::out::stdout();
    let report = build(engine, job, cancel, |event| match event {
        BuildEvent::Output(text) => {
            for line in lines.ingest(crate::logs::Stream::Stdout, text.as_bytes()).unwrap_or_default() {
                let _ = writeln!(out, "{}", line.text());
            }
        }
        BuildEvent::Status(watch, now) => status.maybe_print(watch, now, job.stall_s as f64),
    })
    .await?;
    for line in lines.finish().unwrap_or_default() {
        let _ = writeln!(out, "{}", line.text());
    }
    super::out::err(&format!("perftriage: build log {}", spool.display()));
    Ok(report)
}

#[derive(Default)]
struct StatusPrinter {
    last_at: f64,
    last_phase: Option<Phase>,
}

impl StatusPrinter {
    fn maybe_print(&mut self, watch: &BuildWatch, now: f64, stall_s: f64) {
        if watch.phase == self.last_phase && now - self.last_at < STATUS_EVERY_S {
            return;
        }
        (self.last_at, self.last_phase) = (now, watch.phase);
        super::out::err(&format!("perftriage: {}", watch.status(now, stall_s)));
    }
}

fn conclude(ctx: &Context, job: &BuildJob, report: &BuildReport) -> Result<ExitCode> {
    let rec = record(job, report);
    if let Err(e) = crate::builds::history::append(&ctx.workspace, &rec) {
        super::out::err(&format!("perftriage: cannot record the build in the history: {e}"));
    }
    let mut workspace = ctx.open_workspace(false)?;
    let change = change(job, report, &rec, None);
    workspace.book.apply(&job.plan.short, change, crate::session::now_rfc3339())?;
    workspace.store.save(&workspace.book)?;
    for line in outcome_lines(job, report) {
        super::out::err(&format!("perftriage: {line}"));
    }
    Ok(if report.outcome.is_ok() { ExitCode::SUCCESS } else { ExitCode::from(3) })
}
