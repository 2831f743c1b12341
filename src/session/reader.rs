//! A load of the result files of its own: the board's, behind its first frame, and every
//! headless command's, which may take its entries whole from the joined cache.

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
    pub(super) classifier: crate::classify::SharedClassifier,
}

/// What a load came to: every commit joined with the result files, with its warnings (the
/// dataset's rows read here first), and the joined cache's inputs where the entries came from
/// it whole; or, where `take` took the inputs instead, nothing read.
pub enum Read {
    Joined { entries: Vec<Entry>, warnings: Vec<String>, cached: Option<Inputs> },
    Taken,
}

impl ResultsReader {
    /// Every commit joined with the result files.
    pub fn read(self, progress: &mut dyn FnMut(Progress)) -> (Vec<Entry>, Vec<String>) {
        match self.read_or_take(progress, &mut |_| false) {
            Read::Joined { entries, warnings, .. } => (entries, warnings),
            Read::Taken => unreachable!("nothing takes the inputs"),
        }
    }

    /// `read`, unless the joined cache is for these very inputs and `take` takes them instead of
    /// its entries (a command with a cache of its own output for them): then no entry is read.
    pub fn read_or_take(
        mut self,
        progress: &mut dyn FnMut(Progress),
        take: &mut dyn FnMut(&Inputs) -> bool,
    ) -> Read {
        match self.joined.take() {
            Some((path, dataset)) => self.read_joined(&path, dataset, progress, take),
            None => {
                let (entries, warnings) = self.fresh(None, progress).0;
                Read::Joined { entries, warnings, cached: None }
            }
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
        take: &mut dyn FnMut(&Inputs) -> bool,
    ) -> Read {
        let started = std::time::Instant::now();
        let found = dataset::results::find(&self.dirs);
        crate::startup::mark("result files found");
        let inputs = Inputs::of(dataset, &found);
        let opened = inputs.as_ref().map(|inputs| joined::open(path, inputs));
        let problem = match opened {
            Some(Ok(Some(_))) if inputs.as_ref().is_some_and(&mut *take) => {
                crate::startup::mark("inputs taken");
                return taken(inputs.map_or(0, |i| i.files()), started, progress);
            }
            Some(opened) => match opened.and_then(|hit| hit.map(Opened::read).transpose()) {
                Ok(Some(hit)) => {
                    crate::startup::mark("joined cache read");
                    return from_cache(hit, inputs, started, progress);
                }
                Ok(None) => None,
                Err(e) => Some(e.to_string()),
            },
            None => None,
        };
        let settle = self.cache.settle;
        let ((entries, warnings), heard) = self.fresh(Some(found), progress);
        crate::startup::mark("results read and joined");
        let joined = Joined { entries, warnings };
        let still = heard.cached == heard.total;
        if let Some(inputs) = inputs.filter(|i| still && joined::cacheable(i, &joined, settle)) {
            joined::write(path, &inputs, &joined);
        }
        let warnings = problem.into_iter().chain(joined.warnings).collect();
        Read::Joined { entries: joined.entries, warnings, cached: None }
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

/// A load taken whole from the joined cache for `inputs`: every one of its files unchanged.
fn from_cache(
    hit: Joined,
    inputs: Option<Inputs>,
    started: std::time::Instant,
    progress: &mut dyn FnMut(Progress),
) -> Read {
    unchanged(inputs.as_ref().map_or(0, Inputs::files), started, progress);
    Read::Joined { entries: hit.entries, warnings: hit.warnings, cached: inputs }
}

/// A load whose inputs were taken instead of read: every one of its `files` unchanged.
fn taken(files: usize, started: std::time::Instant, progress: &mut dyn FnMut(Progress)) -> Read {
    unchanged(files, started, progress);
    Read::Taken
}

/// Heard of a load whose `files` are all as the joined cache has them.
fn unchanged(files: usize, started: std::time::Instant, progress: &mut dyn FnMut(Progress)) {
    let seconds = started.elapsed().as_secs_f64();
    progress(Progress { read: files, total: files, cached: files, seconds, joined: true });
}
