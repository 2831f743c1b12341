//! The job service's side of campaigns: a campaign runs in a process of its own (`perftriage
//! campaign`), started here detached from the board's terminal, and the board reads its journal
//! to say how it stands.

use super::JobService;
use crate::app::{CampaignPlan, JobError, Msg};
use crate::campaigns::Event;
use crate::dataset::Variant;
use crate::ids::{CampaignName, RunId, Short};
use crate::jobs::journal::Journal;
use std::collections::HashSet;
use std::path::Path;

/// Why a campaign's process could not be started.
#[derive(Debug, thiserror::Error)]
pub enum CampaignStartError {
    #[error("cannot find perftriage's own binary: {0}")]
    Exe(std::io::Error),
    #[error("cannot write {}: {source}", path.display())]
    Log { path: std::path::PathBuf, source: std::io::Error },
    #[error("cannot start `perftriage campaign …`: {0}")]
    Spawn(std::io::Error),
}

impl JobService {
    /// Answer with `Msg::CampaignNames` (every campaign, newest first) and `Msg::Campaign`: how
    /// `chosen` stands (gone or none: the newest); then each result file its runs wrote since the
    /// last read, as `Msg::CampaignResult` (the board shows them as it shows its own runs').
    pub fn read_campaign(&self, chosen: Option<CampaignName>) {
        let (workspace, tx) = (self.setup.exec.workspace.clone(), self.tx.clone());
        let (classifier, seen) = (self.setup.exec.classifier.clone(), self.campaign_results.clone());
        let perftriage = self.setup.exec.view.perftriage(&workspace);
        let hosts = self.setup.exec.hosts.clone();
        tokio::spawn(async move {
            let read = {
                let workspace = workspace.clone();
                tokio::task::spawn_blocking(move || chosen_snapshot(&workspace, chosen, &perftriage)).await
            };
            let Ok((names, snapshot, events)) = read else { return };
            let _ = tx.send(Msg::CampaignNames(names));
            let snapshot = match snapshot {
                Some(s) => Some(containers_asked(s, &workspace, &hosts).await),
                None => None,
            };
            let _ = tx.send(Msg::Campaign(snapshot));
            tokio::task::spawn_blocking(move || {
                for path in new_results(events, &seen) {
                    let Ok(set) = crate::dataset::results::read_file(Path::new(&path)) else { continue };
                    for record in set.records {
                        let _ = tx.send(Msg::CampaignResult(Box::new(record.digest(&classifier))));
                    }
                }
            });
        });
    }

    /// Answer with `Msg::CampaignPlanned`: each variant's image as a run would be planned, the
    /// durations of the workspace's earlier runs (their result files), the runs at once.
    pub fn plan_campaign(&self, shorts: Vec<Short>) {
        let cells = shorts.iter().flat_map(|s| Variant::ALL.map(|v| (s.clone(), v)));
        let images = cells
            .map(|(short, v)| {
                let image = self.plan(&"campaign".into(), &short, v).map(|p| p.image).map_err(JobError::from);
                (short, v, image)
            })
            .collect();
        let concurrency = crate::config::total_slots(&self.setup.exec.hosts);
        let (workspace, tx) = (self.setup.exec.workspace.clone(), self.tx.clone());
        let perftriage = self.setup.exec.view.perftriage(&workspace);
        tokio::task::spawn_blocking(move || {
            let run_s = run_durations(&workspace);
            let plan = CampaignPlan { shorts, images, run_s, concurrency, perftriage };
            let _ = tx.send(Msg::CampaignPlanned(plan));
        });
    }

    /// `perftriage campaign start` over the commits' three variants, with the board's policy, in
    /// a process group of its own (the board's terminal closing does not stop it); its stderr
    /// goes to `campaigns/<name>/process.log`.
    pub fn start_campaign(&self, shorts: &[Short], name: &CampaignName) {
        let started = self.spawn_campaign(shorts, name).map(|()| name.clone()).map_err(JobError::from);
        let _ = self.tx.send(Msg::CampaignStarted(started));
    }

    /// `perftriage campaign pause|resume|cancel NAME` as a process of its own, as a start is
    /// (a resume drives the campaign from then on); answered as a start is.
    pub fn campaign_verb(&self, name: &CampaignName, verb: crate::campaigns::Verb) {
        let args = ["campaign", verb.word(), name.as_str()].map(String::from);
        let what = format!("campaign {} {name} (its words in campaigns/{name}/process.log)", verb.word());
        let spawned = self.spawn_perftriage(name, &args).map(|()| what).map_err(JobError::from);
        let _ = self.tx.send(Msg::CampaignAsked(spawned));
    }

    /// Ask `name`'s driver to stop `run_id`; said as a verb's start is.
    pub(super) fn cancel_campaign_run(&self, name: &CampaignName, run_id: RunId) {
        let what = format!("campaign {name}'s driver to stop run {run_id}");
        let request = crate::jobs::driver::Request::CancelRun(run_id);
        let asked = crate::jobs::driver::ask(&self.setup.exec.workspace, name, &request);
        let asked = asked.map(|()| what).map_err(JobError::from);
        let _ = self.tx.send(Msg::CampaignAsked(asked));
    }

    fn spawn_campaign(&self, shorts: &[Short], name: &CampaignName) -> Result<(), CampaignStartError> {
        let commits: Vec<&str> = shorts.iter().map(Short::as_str).collect();
        let (retries, commits) = (crate::campaigns::BOARD_RETRIES.to_string(), commits.join(","));
        let args = ["campaign", "start", "--name", name.as_str(), "--variants", "b,h,a", "--auto-fix"];
        let args = args.into_iter().chain(["--retries", &retries, "--commits", &commits]);
        self.spawn_perftriage(name, &args.map(String::from).collect::<Vec<_>>())
    }

    /// `perftriage` with the board's flags and `args`, in a process group of its own (the
    /// board's terminal closing does not stop it); its stderr is appended to
    /// `campaigns/<name>/process.log`.
    fn spawn_perftriage(&self, name: &CampaignName, args: &[String]) -> Result<(), CampaignStartError> {
        use std::os::unix::process::CommandExt;
        let path = crate::jobs::driver::folder(&self.setup.exec.workspace, name).join("process.log");
        let log = crate::files::append(&path).map_err(|source| CampaignStartError::Log { path, source })?;
        std::process::Command::new(std::env::current_exe().map_err(CampaignStartError::Exe)?)
            .args(self.setup.exec.view.argv())
            .arg("--workspace")
            .arg(&self.setup.exec.workspace)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(log)
            .process_group(0)
            .spawn()
            .map(drop)
            .map_err(CampaignStartError::Spawn)
    }
}

/// A campaign whose driver is gone: its cells stopped mid-run say what their containers do.
async fn containers_asked(
    snapshot: crate::campaigns::Snapshot,
    workspace: &Path,
    hosts: &[crate::config::HostConfig],
) -> crate::campaigns::Snapshot {
    let runs = snapshot.stopped_mid_run();
    if runs.is_empty() {
        return snapshot;
    }
    snapshot.with_containers(&crate::jobs::left_running::container_words(workspace, hosts, &runs).await)
}

/// Every campaign (newest first), and `chosen` (gone or none: the newest) as the board shows it
/// with its journal's events.
fn chosen_snapshot(
    workspace: &Path,
    chosen: Option<CampaignName>,
    perftriage: &str,
) -> (Vec<CampaignName>, Option<crate::campaigns::Snapshot>, Vec<Event>) {
    let names = crate::jobs::journal::all(workspace);
    let name = chosen.filter(|c| names.contains(c)).or_else(|| names.first().cloned());
    let Some(name) = name else { return (names, None, Vec::new()) };
    let events = Journal::of(workspace, &name).read().map(|p| p.events).unwrap_or_default();
    let snapshot = crate::jobs::journal::snapshot(workspace, &name, &events, perftriage);
    (names, snapshot, events)
}

/// The result files of the journal's finished runs not handed on before (marked handed now).
fn new_results(events: Vec<Event>, seen: &std::sync::Mutex<HashSet<RunId>>) -> Vec<String> {
    let mut seen = seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let finished = events.into_iter().filter_map(|e| match e {
        Event::Finished { run_id, result: Some(path), .. } => Some((run_id, path)),
        _ => None,
    });
    finished.filter(|(run_id, _)| seen.insert(run_id.clone())).map(|(_, path)| path).collect()
}

/// Each result file's run time (`perftriage.timings.duration_s`) in the workspace's results.
fn run_durations(workspace: &Path) -> Vec<f64> {
    let Ok(dir) = std::fs::read_dir(workspace.join("results")) else { return Vec::new() };
    dir.flatten()
        .filter_map(|f| std::fs::read(f.path()).ok())
        .filter_map(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .filter_map(|r| r["perftriage"]["timings"]["duration_s"].as_f64())
        .collect()
}
