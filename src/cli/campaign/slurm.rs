//! A campaign's runs on Slurm: each run a batch job (the payload is `perftriage run` on the
//! node), its id journalled as soon as `sbatch` answers, followed to its end and its result
//! file read back from the shared directory. After a restart a submitted job is followed again,
//! never submitted twice; a job that ends without a result (a node failure) is retried.

use super::restart::finished_as_recorded;
use super::steps::{Crew, SLURM_LOST, say, stopped};
use crate::campaigns::Event;
use crate::dataset::{Entry, Variant};
use crate::ids::{RunId, Short};
use crate::jobs::slurm::{Submitted, follow, submit};
use crate::runs::RunPlan;
use anyhow::Result;

impl Crew<'_> {
    /// Submit `plan` as a job, journal its id, and follow it.
    pub(super) async fn submitted(&self, entry: &Entry, plan: &RunPlan) -> Result<()> {
        let (ctx, run_id) = (self.ctx, &plan.run_id);
        let slurm = &ctx.config.slurm;
        let script = match crate::runs::job_script(slurm, plan, entry.commit.gpu_count(), &ctx.view) {
            Ok(script) => script,
            Err(why) => return self.unrun(run_id, "plan_error", &why.to_string()),
        };
        let shared = slurm.shared_dir.clone().unwrap_or_default();
        let job = match submit(&shared.join(run_id), &script).await {
            Ok(job) => job,
            Err(why) => return self.unrun(run_id, SLURM_LOST, &why.to_string()),
        };
        let (job_id, dir, at) = (job.job_id, job.dir.display().to_string(), crate::session::now_rfc3339());
        self.journal.append(&Event::Submitted { run_id: run_id.clone(), job_id, dir: dir.clone(), at })?;
        self.followed((&plan.short, plan.variant), run_id, &(job_id, dir)).await
    }

    /// Follow the job to its end (the campaign stopping leaves it running, in flight in the
    /// journal) and journal how it ended, from its result file.
    pub(super) async fn followed(
        &self,
        (short, variant): (&Short, Variant),
        run_id: &RunId,
        (job_id, dir): &(u64, String),
    ) -> Result<()> {
        let job = Submitted { job_id: *job_id, dir: dir.into() };
        say(&format!("{short} {}: following Slurm job {job_id}", variant.name()));
        let on_state =
            |state: &crate::runs::SlurmJobState| say(&format!("job {job_id} {}", state.describe()));
        let ended = tokio::select! {
            ended = follow(&job, on_state, |_: &[u8]| {}) => ended,
            () = stopped(&self.cancel) => return Ok(()),
        };
        if let Err(why) = ended {
            return self.unrun(run_id, SLURM_LOST, &why.to_string());
        }
        let (found, copied) = job.copy_result(short, variant, &self.ctx.workspace);
        let read = copied.ok().and_then(|path| Some((std::fs::read(&path).ok()?, path)));
        let Some((record, path)) = read.and_then(|(b, p)| Some((serde_json::from_slice(&b).ok()?, p))) else {
            let why = format!("job {job_id} ended without a result file ({})", found.display());
            return self.unrun(run_id, SLURM_LOST, &why);
        };
        Ok(self.journal.append(&finished_as_recorded(&record, &path, run_id))?)
    }
}
