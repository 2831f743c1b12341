//! The run service's fix jobs: probing a variant's image for applicable recipes, and applying one
//! (one at a time), its output streamed to a log pane and its outcome reported.

use super::{FixRequest, RunService};
use crate::app::{FixOffer, Level, Msg};
use crate::runtime::fix::FixJob;

impl RunService {
    /// The fix job for a variant (its fixed image when it has one).
    fn fix_job(&self, req: &FixRequest) -> Result<FixJob, String> {
        let c = self.commits.get(&req.short).ok_or_else(|| format!("{} is not in the dataset", req.short))?;
        let image = match &req.image {
            Some(image) => image.clone(),
            None => self.plan("fix", &req.short, req.variant)?.image,
        };
        let repo = req.commit_image.then_some(self.fixed_repo.as_str());
        Ok(FixJob::new(c, req.variant, image, req.evidence.clone(), repo, &self.workspace))
    }

    pub fn probe_fixes(&self, req: FixRequest, category: String) {
        let (tx, book) = (self.tx.clone(), self.recipes.clone());
        let reply = |offers| Msg::FixOffers { short: req.short.clone(), variant: req.variant, offers };
        let (job, engine) = match (self.fix_job(&req), self.engine()) {
            (Ok(job), Some(engine)) => (job, engine),
            (Err(why), _) => return drop(tx.send(reply(Err(why)))),
            (_, None) => return drop(tx.send(reply(Err("Docker is not connected".into())))),
        };
        tokio::spawn(async move {
            let offers = crate::runtime::fix::offers(&engine, &job, &book, &[category]).await.map(|list| {
                list.into_iter()
                    .map(|o| FixOffer {
                        id: o.id,
                        title: o.title,
                        suggested: o.suggested,
                        why_not: o.why_not,
                        steps: o.steps,
                    })
                    .collect()
            });
            let _ = tx.send(Msg::FixOffers { short: job.short.clone(), variant: job.variant, offers });
        });
    }

    /// Apply a fix, one at a time; output streams to the log pane `log`.
    pub fn apply_fix(&self, req: FixRequest, recipe_id: String, log: crate::app::LogKey) {
        let tx = self.tx.clone();
        let notice =
            |why: String| drop(tx.send(Msg::Notice(Level::Error, format!("fix {recipe_id}: {why}"))));
        let Some(recipe) = self.recipes.get(&recipe_id).cloned() else {
            return notice("no such recipe".into());
        };
        let (job, engine) = match (self.fix_job(&req), self.engine()) {
            (Ok(job), Some(engine)) => (job, engine),
            (Err(why), _) => return notice(why),
            (_, None) => return notice("Docker is not connected".into()),
        };
        let (lock, repo) = (self.fix_lock.clone(), self.config.vllm_repo.clone());
        let commit_image = req.commit_image;
        tokio::spawn(async move {
            let _one_at_a_time = lock.lock().await;
            let mut decoder = crate::logs::Decoder::new(crate::logs::Stream::Stdout);
            let mut out = crate::logs::Output::default();
            let stream = |text: &str, out: &mut crate::logs::Output, decoder: &mut crate::logs::Decoder| {
                decoder.feed(text.as_bytes(), out);
                let lines = std::mem::take(&mut out.lines);
                out.raw.clear();
                let _ = tx.send(Msg::LogLines { key: log.clone(), lines, finished: false });
            };
            let report = crate::runtime::fix::apply(&engine, &job, &recipe, repo.as_deref(), |t| {
                stream(t, &mut out, &mut decoder)
            })
            .await;
            decoder.finish(&mut out);
            let _ = tx.send(Msg::LogLines {
                key: log.clone(),
                lines: std::mem::take(&mut out.lines),
                finished: true,
            });
            match report {
                Ok(report) => {
                    let log = job.save_output(&recipe_id, &report.output);
                    let _ = tx.send(Msg::FixDone {
                        short: job.short.clone(),
                        variant: job.variant,
                        recipe: recipe_id,
                        outcome: report.outcome,
                        image: report.image,
                        log,
                        commit_image,
                    });
                }
                Err(why) => {
                    let _ = tx.send(Msg::Notice(Level::Error, format!("fix {recipe_id} not applied: {why}")));
                }
            }
        });
    }
}
