//! Effects become work: saves go to the saver thread, log file work and jobs run off the loop and
//! answer with messages. Nothing here blocks the loop.

use super::saver::Saver;
use crate::app::{Effect, Msg};
use crate::jobs::logs::Logs;
use crate::jobs::run::Start;
use crate::jobs::service::{JobService, Probe};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

pub struct Io {
    pub saver: Saver,
    pub gpu_interval: Arc<AtomicU64>,
    pub jobs: JobService,
    pub logs: Logs,
    pub documents: crate::jobs::documents::Documents,
    pub workspace: std::path::PathBuf,
    pub tx: tokio::sync::mpsc::UnboundedSender<Msg>,
}

impl Io {
    /// Carry out one effect; `false` means quit.
    pub fn run(&mut self, effect: Effect) -> bool {
        match effect {
            Effect::SaveTriage(book) => self.saver.save(book),
            Effect::OpenLog { key, source, text, ring } => self.logs.open(key, source, text, ring),
            Effect::FollowCampaignLog { key, name, ring } => self.logs.follow_campaign(key, &name, ring),
            Effect::OpenDocument { key, document, ring } => {
                let make = self.documents.maker(&key, document);
                self.logs.open_with(key, ring, make);
            }
            Effect::PatchLine(short) => self.documents.patch_line(short),
            Effect::ReadLog { key, first, count } => self.logs.read(key, first, count),
            Effect::SaveLog { key } => self.logs.save(&key),
            Effect::ExpandLines { key, lines } => self.logs.expand(key, lines),
            Effect::SearchLog { key, query, upto } => self.logs.search(key, query, upto),
            Effect::GpuInterval(ms) => self.gpu_interval.store(ms, Ordering::Relaxed),
            Effect::PlanRuns { short, requests } => self.jobs.preview(&short, &requests),
            Effect::StartRun { run_id, request } => self.jobs.start(&run_id, request),
            Effect::WriteResult { run_id, gpu } => self.jobs.write_result(&run_id, gpu),
            Effect::ResumeRun { found, launch } => {
                let image_digest = launch.image_digest.clone();
                let start =
                    Start::Resume { container: found.container, created_unix: found.created, image_digest };
                self.jobs.resume(launch.plan, start, found.host.as_deref())
            }
            Effect::FollowJob { run_id, job_id } => self.jobs.follow_job(&run_id, job_id),
            Effect::Cancel(job) => self.jobs.cancel(&job),
            Effect::RemoveContainers(ids) => self.jobs.remove_containers(ids),
            Effect::ProbeFixes { short, variant, image, category, evidence } => {
                self.jobs.probe_fixes(Probe { short, variant, image, category, evidence })
            }
            Effect::ApplyFix(request) => self.jobs.apply_fix(request),
            Effect::PlanBuild { short, knobs } => self.jobs.plan_build(short, knobs),
            Effect::StartBuild { short, knobs, log } => self.jobs.start_build(short, knobs, log),
            Effect::TryTakeOver => self.take_over(),
            Effect::Quit => return false,
            Effect::ListImages => self.jobs.list_images(),
            Effect::ReadCampaign(chosen) => self.jobs.read_campaign(chosen),
            Effect::PlanCampaign(shorts) => self.jobs.plan_campaign(shorts),
            Effect::StartCampaign { shorts, name } => self.jobs.start_campaign(&shorts, &name),
            Effect::Campaign { name, verb } => self.jobs.campaign_verb(&name, verb),
            Effect::RemoveImage(tag) => self.jobs.remove_image(tag),
            Effect::PushImage(tag) => self.jobs.push_image(tag),
            Effect::MouseCapture(on) => super::terminal::mouse_capture(on),
            Effect::Copy(text) => super::terminal::copy(&text),
            Effect::Notify(text) => super::terminal::notify(&text),
        }
        true
    }
}

impl Io {
    /// A read-only board tries for the workspace lock; once the other instance has let go, this
    /// board saves from now on and takes in what the other one wrote.
    fn take_over(&mut self) {
        let Ok(store) = crate::triage::TriageStore::open(&self.workspace) else { return };
        let (book, report) = store.load(&crate::session::now_compact());
        log::info!("took over the workspace lock of {}", self.workspace.display());
        let old = std::mem::replace(&mut self.saver, Saver::spawn(store, self.tx.clone()));
        old.finish();
        let _ = self.tx.send(Msg::TookOver { book, messages: report.messages });
    }
}
