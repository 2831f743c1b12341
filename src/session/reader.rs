//! A load of the result files of its own: the board's, behind its first frame, and every
//! headless command's, which may take its entries whole from the joined cache.

use crate::classify::Classifier;
use crate::dataset::joined::{self, DatasetKey, Inputs, Joined, Opened};
use crate::dataset::{self, DatasetTail, Entry, Progress};
use std::path::PathBuf;

/// The dataset's commits, the folders of result files and the rules: a load of its own.
pub struct ResultsReader {
    pub(super) commits: Vec<dataset::Commit>,
    /// The dataset's rows after those of `commits`, parsed first.
    pub(super) tail: Option<DatasetTail>,
    pub(super) dirs: Vec<PathBuf>,
    /// The workspace's digest cache.
    pub(super) cache: dataset::digests::CacheFile,
    /// The joined cache and the dataset it is for, where the load may use one.
    pub(super) joined: Option<(PathBuf, DatasetKey)>,
    /// Whether verdicts keep the lines around their evidence (the board's detail pane).
    pub(super) contexts: bool,
    pub(super) classifier: Classifier,
}

impl ResultsReader {
    /// Every commit joined with the result files; the warnings of the dataset's rows read here
    /// come first.
    pub fn read(mut self, progress: &mut dyn FnMut(Progress)) -> (Vec<Entry>, Vec<String>) {
        match self.joined.take() {
            Some((path, dataset)) => self.read_joined(&path, dataset, progress),
            None => self.fresh(None, progress).0,
        }
    }

    /// The entries from the joined cache where it is for these very inputs; else read afresh,
    /// and cached where every file came from the digest cache: files that stood still for one
    /// load (while they change, as in a campaign, no load pays for writing it).
    fn read_joined(
        self,
        path: &std::path::Path,
        dataset: DatasetKey,
        progress: &mut dyn FnMut(Progress),
    ) -> (Vec<Entry>, Vec<String>) {
        let started = std::time::Instant::now();
        let found = dataset::results::find(&self.dirs);
        crate::startup::mark("result files found");
        let inputs = Inputs::of(dataset, &found);
        let opened = inputs.as_ref().map(|inputs| joined::open(path, inputs));
        let problem = match opened.map(|opened| opened.and_then(|hit| hit.map(Opened::read).transpose())) {
            Some(Ok(Some(hit))) => {
                crate::startup::mark("joined cache read");
                return from_cache(hit, inputs.map_or(0, |i| i.files()), started, progress);
            }
            Some(Err(e)) => Some(e.to_string()),
            _ => None,
        };
        let settle = self.cache.settle;
        let ((entries, warnings), heard) = self.fresh(Some(found), progress);
        crate::startup::mark("results read and joined");
        let joined = Joined { entries, warnings };
        let still = heard.cached == heard.total;
        if let Some(inputs) = inputs.filter(|i| still && joined::cacheable(i, &joined, settle)) {
            joined::write(path, &inputs, &joined);
        }
        (joined.entries, problem.into_iter().chain(joined.warnings).collect())
    }

    /// Parse the dataset's tail and join it with the result files (`found`, where they were
    /// found already); what the reading last heard.
    fn fresh(
        self,
        found: Option<dataset::results::Found>,
        progress: &mut dyn FnMut(Progress),
    ) -> ((Vec<Entry>, Vec<String>), Progress) {
        let (mut commits, tail, mut warnings) = (self.commits, self.tail, Vec::new());
        let dataset_warnings = &mut warnings;
        // Parsed beside the reading of the result files.
        let dataset = move || {
            if let Some(rest) = tail.map(DatasetTail::parse) {
                commits.extend(rest.commits);
                *dataset_warnings = rest.warnings;
            }
            commits
        };
        let (dirs, cache, contexts) = (&self.dirs, Some(self.cache), self.contexts);
        let sources = dataset::Sources { dirs, cache, contexts, found };
        let mut last = Progress::default();
        let mut heard = |p: Progress| {
            last = p;
            progress(p);
        };
        let (entries, more) = dataset::load_results(dataset, sources, &self.classifier, &mut heard);
        warnings.extend(more);
        ((entries, warnings), last)
    }
}

/// A load taken whole from the joined cache: every one of its `files` unchanged.
fn from_cache(
    hit: Joined,
    files: usize,
    started: std::time::Instant,
    progress: &mut dyn FnMut(Progress),
) -> (Vec<Entry>, Vec<String>) {
    let seconds = started.elapsed().as_secs_f64();
    progress(Progress { read: files, total: files, cached: files, seconds, joined: true });
    (hit.entries, hit.warnings)
}
