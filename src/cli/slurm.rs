//! Headless Slurm: `perftriage slurm script|submit|cancel`. A run becomes a batch job whose payload
//! is `perftriage run` on the allocated node; `submit --wait` follows it (state changes on stderr,
//! the payload's log on stdout) and copies its result file from the shared directory into this
//! workspace's results, where the board and `status` read it — all through the executor the board
//! and campaigns use. Exit 0 success, 3 the run failed.

use crate::dataset::Variant;
use crate::jobs::executor::slurm::{JobEnd, JobRun, OnCancel};
use crate::jobs::executor::{Events, Executor, JobEvent};
use crate::jobs::planned::{new_run_id, planned};
use crate::jobs::run::RunEvent;
use crate::jobs::slurm::Submitted;
use crate::runs::{RunPhase, RunPlan};
use crate::session::Context;
use anyhow::Result;
use std::process::ExitCode;

fn script_of(ctx: &Context, short: &str, variant: Variant) -> Result<Option<(RunPlan, String)>> {
    let Some(entry) = ctx.find(short) else { return Ok(None) };
    let plan = match planned(ctx, (entry, variant), &new_run_id(), None, None) {
        Ok(plan) => plan,
        // No agent patch, no command, no parent: nothing to submit, as `patch` and `run` say (exit 2).
        Err(why) => {
            super::out::err(&format!("perftriage: {why}"));
            return Ok(None);
        }
    };
    match crate::runs::job_script(&ctx.config.slurm, &plan, entry.commit.gpu_count(), &ctx.view) {
        Ok(script) => Ok(Some((plan, script))),
        Err(why) => {
            super::out::err(&format!("perftriage: {why}"));
            Ok(None)
        }
    }
}

pub fn script(ctx: &Context, short: &str, variant: Variant) -> Result<ExitCode> {
    let Some((_, script)) = script_of(ctx, short, variant)? else { return Ok(ExitCode::from(2)) };
    // The script exactly as generated (it quotes what it must); a closed pipe ends quietly.
    std::io::Write::write_all(&mut std::io::stdout().lock(), script.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

pub fn submit(ctx: &Context, short: &str, variant: Variant, wait: bool) -> Result<ExitCode> {
    let Some((plan, _)) = script_of(ctx, short, variant)? else { return Ok(ExitCode::from(2)) };
    let gpus = ctx.find(short).map_or(0, |e| e.commit.gpu_count());
    let exec = Executor::of(ctx);
    super::runtime()?.block_on(async {
        let job = exec.submit(&plan, gpus).await?;
        super::out::err(&format!(
            "perftriage: submitted job {} (run {}, {})",
            job.job_id,
            plan.run_id,
            job.dir.display()
        ));
        super::out::lines([job.job_id.to_string()])?;
        if !wait {
            return Ok(ExitCode::SUCCESS);
        }
        watch(&exec, &plan, &job).await
    })
}

/// Follow the job to its end (its states on stderr, the payload's lines on stdout), then read
/// its result back.
async fn watch(exec: &Executor, plan: &RunPlan, job: &Submitted) -> Result<ExitCode> {
    let (events, mut rx) = Events::channel();
    let printer = tokio::spawn(async move {
        while let Some(JobEvent { event, .. }) = rx.recv().await {
            if let RunEvent::Phase(RunPhase::Slurm { job_id, state, .. }) = &event {
                super::out::err(&format!("perftriage: job {job_id} {state}"));
            } else if super::run::print_event(&event, false).is_err() {
                break;
            }
        }
    });
    // Never thrown: a signal ends the wait, not the job (`perftriage slurm cancel` does).
    let (_keep, never) = tokio::sync::watch::channel(false);
    let followed = exec.follow(JobRun::of(plan, job), (never, OnCancel::Leave), &events).await;
    drop(events);
    let _ = printer.await;
    let id = job.job_id;
    let (record, copy) = match followed.end {
        JobEnd::Read { copy, record } => (record, copy),
        JobEnd::NoResult { why } => return ended(&why),
        JobEnd::Lost(why) => return ended(&format!("job {id}: {why}")),
        JobEnd::Cancelled | JobEnd::Left => return ended(&format!("job {id} was cancelled")),
    };
    let status = record["status"].as_str().unwrap_or("unreadable");
    super::out::err(&format!("perftriage: job {id}: result {status} (copied to {})", copy.display()));
    Ok(if status == "success" { ExitCode::SUCCESS } else { ExitCode::from(3) })
}

fn ended(why: &str) -> Result<ExitCode> {
    super::out::err(&format!("perftriage: {why}"));
    Ok(ExitCode::from(3))
}

pub fn cancel(job: u64) -> Result<ExitCode> {
    super::runtime()?.block_on(crate::jobs::slurm::cancel(job)).map_err(anyhow::Error::msg)?;
    super::out::err(&format!("perftriage: job {job} cancelled; its payload removes its container"));
    Ok(ExitCode::SUCCESS)
}
