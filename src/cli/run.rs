//! Headless `perftriage run SHORT --variant V`: the executor the board uses, its log lines on
//! stdout.
//! Exit 0 success, 3 the run failed (category printed), 1 a tool error.

use crate::dataset::{RunStatus, Variant};
use crate::jobs::executor::{Ask, Events, Executor, JobEvent, Recorded, Target, record};
use crate::jobs::planned::{new_run_id, planned};
use crate::jobs::run::{RunEvent, RunOutcome, Start};
use crate::runs::{Pane, Repeat, RunPhase, RunPlan};
use crate::session::Context;
use anyhow::Result;
use std::io::Write;
use std::process::ExitCode;
use tokio::sync::watch;

/// How a headless run goes: JSON lines or plain, on which host, how many benchmark repeats.
pub struct How<'a> {
    pub json: bool,
    pub host: Option<&'a str>,
    pub repeat: Option<Repeat>,
}

pub fn run(ctx: &Context, short: &str, variant: Variant, how: &How) -> Result<ExitCode> {
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let book = ctx.read_workspace().book;
    let short = &entry.commit.short;
    let fixed =
        book.fixed_image(short, variant.name()).map(|image| (image, book.fixes(short, variant.name())));
    let plan = planned(ctx, (entry, variant), &new_run_id(), how.repeat, fixed)?;
    super::runtime()?.block_on(run_plan(ctx, plan, how.json, how.host))
}

/// Hand a plan to the executor for `host` (or the host placement picks; see `jobs::fleet`),
/// printing its logs.
pub async fn run_plan(ctx: &Context, plan: RunPlan, json: bool, host: Option<&str>) -> Result<ExitCode> {
    let exec = Executor::of(ctx);
    let (events, mut rx) = Events::channel();
    let (cancel_tx, cancel) = watch::channel(false);
    let stopped_by = crate::jobs::signals::cancel_on_stop(&cancel_tx);
    let printer = tokio::spawn(async move {
        let mut printer = Printer { json, waiting: None };
        while let Some(JobEvent { event, .. }) = rx.recv().await {
            if printer.print(&event).is_err() {
                break; // stdout is gone (a closed pipe): the run goes on, unprinted
            }
        }
    });
    super::out::err(&format!("perftriage: {} {} in {}", plan.short, plan.variant.name(), plan.image));
    let target = host.map_or(Target::Anywhere, |h| Target::Host(h.to_string()));
    let executed = exec.execute(Ask { plan, target, start: Start::Fresh, cancel }, &events).await;
    drop(events);
    let _ = printer.await;
    if let Some(signal) = stopped_by.lock().ok().and_then(|s| *s) {
        super::out::err(&format!(
            "perftriage: stopped by {}; the container is removed, no result written",
            signal.0
        ));
        return Ok(ExitCode::from(128 + signal.1));
    }
    conclude(&exec, &executed?)
}

/// Record the run by the executor's rule and say how it went: exit 0 ok, 3 failed; a run that
/// wrote no result (a set-up error: it says nothing of the commit) exits 1.
fn conclude(exec: &Executor, outcome: &RunOutcome) -> Result<ExitCode> {
    let path = match record(outcome, (&exec.workspace, &exec.redactor), None)? {
        Recorded::Written(path) => path,
        Recorded::NotWritten(kind) => {
            let why = outcome.error.as_deref().unwrap_or("");
            super::out::err(&format!(
                "perftriage: set-up error ({kind}): {why}; nothing was run, no result written"
            ));
            return Ok(ExitCode::from(1));
        }
    };
    let summary = match outcome.status {
        RunStatus::Success => format!("done: {} metrics", outcome.metrics.len()),
        _ => format!(
            "failed: {} — {}",
            outcome.category.as_ref().map_or("?", |c| c.name()),
            outcome.error.as_deref().unwrap_or("")
        ),
    };
    let (short, variant) = (&outcome.plan.short, outcome.plan.variant.name());
    super::out::err(&format!("perftriage: {short} {variant}: {summary}; result {}", path.display()));
    Ok(if outcome.status == RunStatus::Success { ExitCode::SUCCESS } else { ExitCode::from(3) })
}

/// Prints a run's events: JSON lines, or `[server] …` text (phases go to stderr then); a wait
/// for a host once for each reason.
struct Printer {
    json: bool,
    waiting: Option<String>,
}

impl Printer {
    fn print(&mut self, event: &RunEvent) -> std::io::Result<()> {
        match event {
            RunEvent::Phase(RunPhase::Placing { why }) if !self.json => {
                if self.waiting.as_ref() != Some(why) {
                    super::out::err(&format!("perftriage: waiting for a host: {why}"));
                    self.waiting = Some(why.clone());
                }
                Ok(())
            }
            RunEvent::Phase(RunPhase::Placed { host }) if !self.json => {
                super::out::err(&format!("perftriage: Docker connected on host {host}"));
                Ok(())
            }
            event => print_event(event, self.json),
        }
    }
}

/// A run's event on stdout: JSON lines, or `[server] …` text (phases go to stderr then).
pub(super) fn print_event(event: &RunEvent, json: bool) -> std::io::Result<()> {
    let mut out = super::out::stdout();
    match event {
        RunEvent::Phase(p) if json => {
            writeln!(out, "{}", super::out::json(&serde_json::json!({ "event": "phase", "phase": p }))?)?
        }
        RunEvent::Phase(p) => super::out::err(&format!("perftriage: {}", p.word())),
        RunEvent::Lines { pane, lines } => {
            let tag = if *pane == Pane::Server { "server" } else { "bench" };
            for line in lines {
                if json {
                    let event = serde_json::json!({ "event": "line", "pane": tag, "text": line.text() });
                    writeln!(out, "{}", super::out::json(&event)?)?;
                } else {
                    writeln!(out, "[{tag}] {}", line.text())?;
                }
            }
        }
    }
    Ok(())
}
