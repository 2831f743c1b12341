//! The board's documents and the detail pane's patch line, made off the loop: a commit's two
//! patches (the human's is a `git diff` in the checkout), its newest agent run, and a campaign
//! cell's runs, fixes and result.

use crate::agents::document::{self, Layout};
use crate::agents::{self, AgentRuns, RunSummary};
use crate::app::{Document, LogKey, Msg};
use crate::dataset::{CommitIndex, Variant};
use crate::ids::Short;
use crate::runs::RunConfig;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;

/// Where patches and agent runs are found.
pub struct Sources {
    pub commits: CommitIndex,
    /// Where a campaign cell's journal, launch records, fix logs and results are.
    pub workspace: PathBuf,
    /// The recipes a campaign cell's next step names (the config's, as the job service's).
    pub recipes: crate::fixes::RecipeBook,
    pub trajectory_dirs: Vec<PathBuf>,
    pub config: RunConfig,
}

#[derive(Clone)]
pub struct Documents {
    sources: Arc<Sources>,
    tx: UnboundedSender<Msg>,
}

impl Documents {
    pub fn new(sources: Sources, tx: UnboundedSender<Msg>) -> Documents {
        Documents { sources: Arc::new(sources), tx }
    }

    /// What `make` returns: the document's text (run it on a blocking thread).
    pub fn maker(&self, key: &LogKey, which: Document) -> impl FnOnce() -> String + Send + 'static {
        let (sources, short, variant) = (self.sources.clone(), key.short.clone(), key.variant);
        move || sources.text(&short, variant, which)
    }

    /// The detail pane's `patches:` line of `short`, as a message.
    pub fn patch_line(&self, short: Short) {
        let (sources, tx) = (self.sources.clone(), self.tx.clone());
        tokio::task::spawn_blocking(move || {
            let runs = sources.agent_runs();
            let stats = |v| sources.patch(&short, v, &runs).ok().map(|p| p.stats);
            let line = document::patches_line(stats(Variant::Human).as_ref(), stats(Variant::Agent).as_ref());
            let _ = tx.send(Msg::PatchLine { short, line });
        });
    }
}

impl Sources {
    fn agent_runs(&self) -> AgentRuns {
        let runs = agents::runs::find(&self.trajectory_dirs);
        for warning in &runs.warnings {
            log::warn!("{warning}");
        }
        runs
    }

    fn patch(&self, short: &str, variant: Variant, runs: &AgentRuns) -> Result<agents::Patch, String> {
        let commit = self.commits.get(short).ok_or_else(|| format!("{short} is not in the dataset"))?;
        agents::patch(&commit, variant, runs, &self.config).map_err(|e| e.to_string())
    }

    fn text(&self, short: &Short, variant: Variant, which: Document) -> String {
        match which {
            Document::CampaignCell(name) => {
                super::cell_document::text((&self.workspace, &self.recipes), &name, (short, variant))
            }
            Document::Patches(layout) => self.patches(short, &self.agent_runs(), layout),
            Document::AgentRun => self.agent_run(short),
        }
    }

    fn agent_run(&self, short: &str) -> String {
        match self.agent_runs().newest(short) {
            Some(run) => {
                let (summary, trajectory) = RunSummary::read(run);
                document::agent_run(&summary, trajectory.as_ref().map_or(&[], |t| &t.steps))
            }
            None => format!("no agent run of {short} under --trajectories {:?}\n", self.trajectory_dirs),
        }
    }

    fn patches(&self, short: &str, runs: &AgentRuns, layout: Layout) -> String {
        let human = self.patch(short, Variant::Human, runs);
        let agent = self.patch(short, Variant::Agent, runs);
        document::patches(human.as_ref().map_err(Clone::clone), agent.as_ref().map_err(Clone::clone), layout)
    }
}
