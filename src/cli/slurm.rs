//! Headless Slurm: `perftriage slurm script|submit|cancel`. A run becomes a batch job whose payload
//! is `perftriage run` on the allocated node; `submit --wait` follows it (state changes on stderr,
//! the payload's log on stdout) and copies its result file from the shared directory into this
//! workspace's results, where the board and `status` read it. Exit 0 success, 3 the run failed.

use crate::dataset::Variant;
use crate::jobs::slurm::{Submitted, follow};
use crate::runs::RunPlan;
use crate::session::Context;
use anyhow::Result;
use std::io::Write;
use std::process::ExitCode;

fn script_of(ctx: &Context, short: &str, variant: Variant) -> Result<Option<(RunPlan, String)>> {
    let Some(entry) = ctx.find(short) else { return Ok(None) };
    let plan = match super::run::planned(ctx, (entry, variant), &super::run::run_id(), None, None) {
        Ok(plan) => plan,
        // No agent patch, no command, no parent: nothing to submit, as `patch` and `run` say (exit 2).
        Err(why) if why.downcast_ref::<crate::runs::PlanError>().is_some() => {
            super::out::err(&format!("perftriage: {why}"));
            return Ok(None);
        }
        Err(why) => return Err(why),
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
    let Some((plan, script)) = script_of(ctx, short, variant)? else { return Ok(ExitCode::from(2)) };
    let shared = ctx.config.slurm.shared_dir.clone().unwrap_or_default();
    super::runtime()?.block_on(async {
        let job = crate::jobs::slurm::submit(&shared.join(&plan.run_id), &script)
            .await
            .map_err(anyhow::Error::msg)?;
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
        watch(ctx, &plan, &job).await
    })
}

/// Follow the job to its end, then read its result back.
async fn watch(ctx: &Context, plan: &RunPlan, job: &Submitted) -> Result<ExitCode> {
    let mut out = super::out::stdout();
    let id = job.job_id;
    let last = follow(
        job,
        |state| super::out::err(&format!("perftriage: job {id} {}", state.describe())),
        |bytes| drop(out.write_all(bytes)),
    )
    .await
    .map_err(anyhow::Error::msg)?;
    let (found, copied) = job.copy_result(&plan.short, plan.variant, &ctx.workspace);
    let Some(text) = copied.ok().and_then(|copy| std::fs::read_to_string(copy).ok()) else {
        let state = last.map_or("gone from the queue".into(), |s| s.describe());
        super::out::err(&format!("perftriage: job {id} ended ({state}) without a result file"));
        return Ok(ExitCode::from(3));
    };
    let status = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|r| r["status"].as_str().map(String::from));
    let status = status.unwrap_or_else(|| "unreadable".into());
    super::out::err(&format!("perftriage: job {id}: result {status} (copied from {})", found.display()));
    Ok(if status == "success" { ExitCode::SUCCESS } else { ExitCode::from(3) })
}

pub fn cancel(job: u64) -> Result<ExitCode> {
    super::runtime()?.block_on(crate::jobs::slurm::cancel(job)).map_err(anyhow::Error::msg)?;
    super::out::err(&format!("perftriage: job {job} cancelled; its payload removes its container"));
    Ok(ExitCode::SUCCESS)
}
