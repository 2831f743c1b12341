//! Headless `perftriage run SHORT --variant V`: the board's engine, its log lines on stdout.
//! Exit 0 success, 3 the run failed (category printed), 1 a tool error.

use super::Context;
use super::run::{RunEnv, RunEvent, execute, write_result};
use crate::dataset::{RunStatus, Variant};
use crate::docker::Engine;
use crate::runs::{Pane, Redactor, RunPlan, plan};
use anyhow::Result;
use std::process::ExitCode;
use tokio::sync::{mpsc, watch};

pub fn run(ctx: &Context, short: &str, variant: Variant, json: bool) -> Result<ExitCode> {
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let book = ctx.read_workspace().book;
    let mut plan = plan(&entry.commit, variant, &ctx.config.runs, &ctx.images, &ctx.workspace, &run_id())?;
    if let Some(image) = book.fixed_image(&entry.commit.short, variant.name()) {
        plan = plan.with_fixed_image(image, book.fixes(&entry.commit.short, variant.name()));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(run_plan(ctx, plan, json))
}

/// Unique across processes: two runs of one commit in the same second must not share a container name.
pub fn run_id() -> String {
    format!("{}-{}", super::now_compact().to_lowercase(), std::process::id())
}

/// Carry out a plan, printing its logs; the exit code says how it went.
pub async fn run_plan(ctx: &Context, plan: RunPlan, json: bool) -> Result<ExitCode> {
    let (short, variant) = (plan.short.clone(), plan.variant);
    let engine = Engine::connect().await?;
    eprintln!(
        "perftriage: Docker connected ({}); {} {} in {}",
        engine.description,
        short,
        variant.name(),
        plan.image
    );
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let (_cancel_tx, cancel) = watch::channel(false);
    let redactor = Redactor::from_env();
    let env = RunEnv {
        engine: engine.clone(),
        workspace: ctx.workspace.clone(),
        vllm_repo: ctx.config.runs.vllm_repo.clone(),
        redactor: redactor.clone(),
        classifier: std::sync::Arc::new(ctx.classifier.clone()),
        events: events_tx,
        cancel,
    };
    let printer = tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            print_event(&event, json);
        }
    });
    let outcome = execute(&plan, env).await;
    let _ = printer.await;
    let path = write_result(&outcome, &ctx.workspace, &redactor, &super::now_rfc3339(), None)?;
    let summary = match outcome.status {
        RunStatus::Success => format!("done: {} metrics", outcome.metrics.len()),
        _ => format!(
            "failed: {} — {}",
            outcome.category.as_deref().unwrap_or("?"),
            outcome.error.as_deref().unwrap_or("")
        ),
    };
    eprintln!("perftriage: {short} {}: {summary}; result {}", variant.name(), path.display());
    Ok(if outcome.status == RunStatus::Success { ExitCode::SUCCESS } else { ExitCode::from(3) })
}

fn print_event(event: &RunEvent, json: bool) {
    match event {
        RunEvent::Phase(p) if json => println!("{}", serde_json::json!({ "event": "phase", "phase": p })),
        RunEvent::Phase(p) => eprintln!("perftriage: {}", p.word()),
        RunEvent::Lines { pane, lines } => {
            let tag = if *pane == Pane::Server { "server" } else { "bench" };
            for line in lines {
                if json {
                    println!("{}", serde_json::json!({ "event": "line", "pane": tag, "text": line.text() }));
                } else {
                    println!("[{tag}] {}", line.text());
                }
            }
        }
    }
}
