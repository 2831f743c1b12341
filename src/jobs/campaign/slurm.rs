//! A campaign's runs on Slurm, through the executor (`jobs::executor::slurm`): each run a batch
//! job (the payload is `perftriage run` on the node), its id journalled as soon as `sbatch`
//! answers, followed to its end and its result file read back from the shared directory. After a
//! restart a submitted job is followed again, never submitted twice; a job that ends without a
//! result (a node failure) is retried. A campaign that stops leaves its jobs running; a run
//! cancelled on request is `scancel`led.

use super::restart::finished_as_recorded;
use super::steps::Crew;
use super::{EngineError, say};
use crate::campaigns::Event;
use crate::dataset::{Entry, Variant};
use crate::ids::{RunId, Short};
use crate::jobs::executor::slurm::{JobEnd, JobRun, OnCancel, SubmitError};
use crate::jobs::slurm::Submitted;
use crate::runs::FailureKind;
use crate::runs::RunPlan;

impl Crew<'_> {
    /// Submit `plan` as a job, journal its id, and follow it.
    pub(super) async fn submitted(&self, entry: &Entry, plan: &RunPlan) -> Result<(), EngineError> {
        let run_id = &plan.run_id;
        let job = match self.exec.submit(plan, entry.commit.gpu_count()).await {
            Ok(job) => job,
            Err(SubmitError::Script(why)) => {
                return self.unrun(run_id, FailureKind::PlanError, &why.to_string());
            }
            Err(why) => return self.unrun(run_id, FailureKind::SlurmLost, &why.to_string()),
        };
        let (job_id, dir, at) = (job.job_id, job.dir.display().to_string(), crate::session::now_rfc3339());
        self.journal.append(&Event::Submitted { run_id: run_id.clone(), job_id, dir: dir.clone(), at })?;
        self.followed((&plan.short, plan.variant), run_id, &(job_id, dir)).await
    }

    /// Follow the job to its end (the campaign stopping leaves it running, in flight in the
    /// journal; a run cancelled on request is `scancel`led) and journal how it ended, from its
    /// result file.
    pub(super) async fn followed(
        &self,
        (short, variant): (&Short, Variant),
        run_id: &RunId,
        (job_id, dir): &(u64, String),
    ) -> Result<(), EngineError> {
        let job = Submitted { job_id: *job_id, dir: dir.into() };
        say(&format!("{short} {}: following Slurm job {job_id}", variant.name()));
        let stop = self.in_hand().own_stop(run_id, &self.cancel);
        let run = JobRun { run_id, short, variant, job: &job };
        let followed = self.exec.follow(run, (stop, OnCancel::Leave), &super::steps::narrated()).await;
        let asked = self.in_hand().let_go(run_id);
        self.job_ended(run_id, *job_id, followed.end, asked).await
    }

    /// Journal how a followed job ended (`asked`: its run was cancelled on request).
    async fn job_ended(
        &self,
        run_id: &RunId,
        job_id: u64,
        end: JobEnd,
        asked: bool,
    ) -> Result<(), EngineError> {
        match end {
            JobEnd::Left if asked => {
                if let Err(why) = crate::jobs::slurm::cancel(job_id).await {
                    say(&format!("job {job_id}: scancel: {why}"));
                }
                self.unrun(
                    run_id,
                    FailureKind::CancelledOnRequest,
                    "cancelled on request (scancel); its cell is left",
                )
            }
            JobEnd::Left => Ok(()),
            JobEnd::Read { copy, record } => {
                Ok(self.journal.append(&finished_as_recorded(&record, &copy, run_id))?)
            }
            JobEnd::NoResult { why } => self.unrun(run_id, FailureKind::SlurmLost, &why),
            JobEnd::Lost(why) => self.unrun(run_id, FailureKind::SlurmLost, &why.to_string()),
            JobEnd::Cancelled => self.unrun(run_id, FailureKind::CancelledOnRequest, "cancelled"),
        }
    }
}
