//! The job service's fix jobs: probing a variant's image for applicable recipes, and applying one
//! (one at a time), its output taking the line path into the log pane and its outcome reported.

use super::{JobService, ServiceError};
use crate::app::{FixDone, FixEnd, FixRequest, JobError, JobMsg, Msg, Planned};
use crate::dataset::Variant;
use crate::ids::{ImageRef, Short};
use crate::jobs::fix::{FixError, FixJob, FixReport};
use crate::jobs::lines::LinePath;
use crate::logs::Stream;
use tokio::sync::mpsc::UnboundedSender;

/// What a probe is for.
pub struct Probe {
    pub short: Short,
    pub variant: Variant,
    pub image: Option<ImageRef>,
    pub category: String,
    pub evidence: Option<String>,
}

impl JobService {
    /// The fix job for a variant (its fixed image when it has one).
    /// `commit`: the fixed image goes to the fixed-image repository (else a local tag for a re-run).
    fn fix_job(
        &self,
        short: &str,
        variant: Variant,
        image: Option<ImageRef>,
        evidence: Option<String>,
        commit: bool,
    ) -> Result<FixJob, ServiceError> {
        let c = self.commit(short)?;
        let image = match image {
            Some(image) => image,
            None => self.plan(&"fix".into(), short, variant)?.image,
        };
        let repo = commit.then_some(self.setup.fixed_repo.as_str());
        let reserve = self.setup.config.reserve_bytes();
        Ok(FixJob::new(&c, variant, image, evidence, repo, &self.setup.exec.workspace).reserving(reserve))
    }

    pub fn probe_fixes(&self, probe: Probe) {
        let Probe { short, variant, image, category, evidence } = probe;
        let job = self.fix_job(&short, variant, image, evidence, false);
        let tx = self.tx.clone();
        let reply =
            move |offers| drop(tx.send(Msg::Job(JobMsg::Planned(Planned::Fixes { short, variant, offers }))));
        let (job, engine) = match (job, self.engine()) {
            (Ok(job), Some(engine)) => (job, engine),
            (Err(why), _) => return reply(Err(JobError::from(why))),
            (_, None) => return reply(Err(JobError::from(crate::app::NotConnected))),
        };
        let setup = self.setup.clone();
        tokio::spawn(async move {
            let offers = crate::jobs::fix::offers(&engine, &job, &setup.recipes, &[category]).await;
            reply(offers.map_err(JobError::from));
        });
    }

    /// Apply a fix, one at a time; its output takes the line path into the log pane `req.log`.
    pub fn apply_fix(&mut self, req: FixRequest) {
        let tx = self.tx.clone();
        let notice = |why: String| not_applied(&tx, &req, why);
        let Some(recipe) = self.setup.recipes.get(&req.recipe).cloned() else {
            return notice("no such recipe".into());
        };
        let job =
            self.fix_job(&req.short, req.variant, req.image.clone(), req.evidence.clone(), req.commit_image);
        let (job, engine) = match (job, self.engine()) {
            (Ok(job), Some(engine)) => (job, engine),
            (Err(why), _) => return notice(why.to_string()),
            (_, None) => return notice("Docker is not connected".into()),
        };
        let spool = job.log_path(&req.recipe);
        let mut lines = match LinePath::create(
            &spool,
            self.setup.exec.redactor.clone(),
            self.setup.exec.classifier.clone(),
        ) {
            Ok(lines) => lines,
            Err(e) => return notice(format!("cannot create {}: {e}", spool.display())),
        };
        let (lock, setup, tx) = (self.fix_lock.clone(), self.setup.clone(), self.tx.clone());
        // Thrown while it waits for its turn too: `apply` then stops before it starts.
        let cancel = self.switch_for(crate::app::JobKey::Fix(req.short.clone(), req.variant));
        tokio::spawn(async move {
            let _one_at_a_time = lock.lock().await;
            log::info!(
                "fix {} of {} {}: starting in {}",
                req.recipe,
                req.short,
                req.variant.name(),
                job.image
            );
            let repo = setup.config.vllm_repo.as_deref();
            let sink =
                |bytes: &[u8]| super::forward(&tx, &req.log, lines.ingest(Stream::Stdout, bytes), false);
            let report = crate::jobs::fix::apply(&engine, &job, (&recipe, repo), sink, cancel).await;
            super::forward(&tx, &req.log, lines.finish(), true);
            done(&tx, req, report, lines.path().display().to_string());
        });
    }
}

/// A fix that ended without a report: the model stops counting it as applied now.
fn not_applied(tx: &UnboundedSender<Msg>, req: &FixRequest, why: String) {
    log::warn!("fix {} of {} {} not applied: {why}", req.recipe, req.short, req.variant.name());
    let (short, variant, recipe) = (req.short.clone(), req.variant, req.recipe.clone());
    let _ = tx.send(Msg::Job(JobMsg::fix_ended(short, variant, FixEnd::NotApplied { recipe, why })));
}

fn done(tx: &UnboundedSender<Msg>, req: FixRequest, report: Result<FixReport, FixError>, log: String) {
    let report = match report {
        Ok(report) => report,
        Err(why) => return not_applied(tx, &req, why.to_string()),
    };
    log::info!("fix {} of {} {}: {:?}", req.recipe, req.short, req.variant.name(), report.outcome);
    let done = FixDone {
        recipe: req.recipe,
        outcome: report.outcome,
        image: report.image,
        log: Some(log),
        commit_image: req.commit_image,
    };
    let _ = tx.send(Msg::Job(JobMsg::fix_ended(req.short, req.variant, FixEnd::Applied(done))));
}
