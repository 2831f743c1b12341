//! Everything a session needs, loaded once: config, dataset, result files, classifier, workspace.

use crate::app::KeyMap;
use crate::classify::SharedClassifier;
use crate::config::Config;
use crate::dataset::{self, DatasetTail, DatasetText, Entry, ImageTemplates};
use crate::triage::{LoadReport, StoreError, TriageBook, TriageStore};
use anyhow::{Context as _, Result};
use std::path::PathBuf;

pub mod board_prefs;
mod clock;
mod reader;

pub use clock::{now_compact, now_rfc3339, unix_now};
pub use reader::{Read, ResultsReader};

#[derive(Debug, Default, Clone)]
pub struct Options {
    pub config: Option<PathBuf>,
    pub dataset: Option<PathBuf>,
    pub results: Vec<PathBuf>,
    /// Folders of agent runs (`--trajectories`).
    pub trajectories: Vec<PathBuf>,
    pub workspace: Option<PathBuf>,
    pub theme: Option<String>,
    pub gpu_replay: Option<PathBuf>,
    /// Every warning, not one line per kind.
    pub verbose: bool,
}

pub struct Context {
    pub config: Config,
    /// The flags that shaped this view (the config file read among them), for a Slurm payload
    /// to run with.
    pub view: crate::runs::ViewFlags,
    pub keymap: KeyMap,
    pub entries: Vec<Entry>,
    /// How the result files were read: how many, how many unchanged since the digest cache saw
    /// them, how long.
    pub reading: dataset::Progress,
    /// The joined cache's inputs where the entries came from it whole: what a command's own
    /// cache of its output for these entries is keyed by.
    pub joined_inputs: Option<dataset::joined::Inputs>,
    pub warnings: Vec<String>,
    /// Where result files are read: the config's, the command line's and our own runs'.
    pub result_dirs: Vec<PathBuf>,
    /// Where agent-run folders are found: the config's and the command line's.
    pub trajectory_dirs: Vec<PathBuf>,
    pub images: ImageTemplates,
    pub workspace: PathBuf,
    /// Compiling from the start: the first to use it waits for it.
    pub classifier: SharedClassifier,
    /// The one redactor of this process (HF tokens from the environment): every spool, pane,
    /// result file and printed line goes through it.
    pub redactor: crate::logs::Redactor,
    pub verbose: bool,
}

/// Commits the board draws before it reads the rest of the dataset: more than a screen holds
/// (256 put ~3 ms more on a 10,000-commit dataset's first frame).
pub const BOARD_HEAD: usize = 128;

/// The workspace's triage store and book, writable or not.
pub struct Workspace {
    pub store: TriageStore,
    pub book: TriageBook,
    pub report: LoadReport,
}

/// The dataset's first `rows` usable commits (the embedded one's without `path`), and its rest.
fn dataset_head(
    path: Option<&PathBuf>,
    rows: usize,
) -> Result<(dataset::Dataset, DatasetTail), dataset::DatasetError> {
    match path {
        Some(path) => DatasetText::read(path)?.head(rows),
        None => DatasetText::embedded().head(rows),
    }
}

/// The workspace's digest cache. `PERFTRIAGE_DIGEST_SETTLE_MS` sets how long ago a file must
/// have changed to be cached (tests set 0).
fn digest_cache(workspace: &std::path::Path) -> dataset::digests::CacheFile {
    let ms = std::env::var("PERFTRIAGE_DIGEST_SETTLE_MS").ok().and_then(|v| v.parse().ok());
    let settle = ms.map_or(dataset::digests::SETTLE, std::time::Duration::from_millis);
    dataset::digests::CacheFile { path: dataset::digests::CacheFile::path_in(workspace), settle }
}

/// Where result files are read: the config's, the command line's, and our own runs'.
fn result_dirs(config: &Config, options: &Options, workspace: &std::path::Path) -> Vec<PathBuf> {
    let mut dirs = config.results.clone();
    dirs.extend(options.results.iter().cloned());
    let own = workspace.join("results");
    if own.is_dir() {
        dirs.push(own);
    }
    dirs
}

/// The config's key map; a bad `[keys]` entry is an error naming the file and line.
pub fn keymap(config: &Config, path: Option<&std::path::Path>) -> Result<KeyMap> {
    KeyMap::from_config(&config.keys).map_err(|e| {
        let path = path.map_or_else(|| "config".into(), std::path::Path::to_path_buf);
        let message = format!("{}[keys] {e}", config.key_line(e.entry()));
        anyhow::Error::new(crate::config::ConfigError::Invalid { path, message })
    })
}

impl Context {
    /// Everything, result files read and joined (the dataset's commits joined once, with them).
    pub fn load(options: &Options) -> Result<Context> {
        Ok(Context::load_or_take(options, &mut |_, _| false)?.0)
    }

    /// `load`, unless the joined cache is for these very inputs and `take` takes them instead
    /// (a command's own cache of its output for them): then no entry is read, and the context
    /// has none (`true`).
    pub fn load_or_take(
        options: &Options,
        take: &mut dyn FnMut(&Context, &dataset::joined::Inputs) -> bool,
    ) -> Result<(Context, bool)> {
        // The first commit now (a dataset without one is an error here), the rest beside the reading.
        let (ctx, commits, tail) = Context::unjoined(options, 1, SharedClassifier::embedded)?;
        let joined = tail.dataset_key().cloned().map(|key| (dataset::joined::path_in(&ctx.workspace), key));
        let reader = ResultsReader { joined, ..ctx.reader(commits, Some(tail), false) };
        let mut reading = dataset::Progress::default();
        let read = reader.read_or_take(&mut |heard| reading = heard, &mut |inputs| take(&ctx, inputs));
        Ok(match read {
            Read::Joined { entries, warnings, cached } => {
                let ctx = ctx.joined((entries, warnings));
                (Context { reading, joined_inputs: cached, ..ctx }, false)
            }
            Read::Taken => (Context { reading, ..ctx }, true),
        })
    }

    /// The dataset's first `BOARD_HEAD` commits as it records them, and what reads the rest and
    /// the result files: the board draws the head at once and reads the rest while it runs.
    /// `compiling` starts the rules' compile (the board's at the lowest priority).
    pub fn board_head(
        options: &Options,
        compiling: impl FnOnce() -> SharedClassifier,
    ) -> Result<(Context, ResultsReader)> {
        let (ctx, commits, tail) = Context::unjoined(options, BOARD_HEAD, compiling)?;
        let reader = ctx.reader(commits.clone(), Some(tail), true);
        let head = dataset::unclassified(commits);
        crate::startup::mark("head");
        Ok((ctx.joined((head, Vec::new())), reader))
    }

    fn reader(
        &self,
        commits: Vec<dataset::Commit>,
        tail: Option<DatasetTail>,
        contexts: bool,
    ) -> ResultsReader {
        ResultsReader {
            commits,
            tail,
            dirs: self.result_dirs.clone(),
            cache: digest_cache(&self.workspace),
            joined: None,
            contexts,
            classifier: self.classifier.clone(),
        }
    }

    /// With its entries, the join's warnings after the dataset's and before the key map's.
    fn joined(mut self, (entries, warnings): (Vec<Entry>, Vec<String>)) -> Context {
        self.entries = entries;
        let keymap_warnings = self.keymap.warnings.len();
        let at = self.warnings.len() - keymap_warnings;
        self.warnings.splice(at..at, warnings);
        self
    }

    /// The context without entries, the dataset's first `head` commits to join and its rest.
    fn unjoined(
        options: &Options,
        head: usize,
        compiling: impl FnOnce() -> SharedClassifier,
    ) -> Result<(Context, Vec<dataset::Commit>, DatasetTail)> {
        let (config, path) = Config::load(options.config.as_deref())?;
        crate::metrics::gates::configure(config.gates);
        let keymap = keymap(&config, path.as_deref())?;
        crate::startup::mark("config");
        let dataset = options.dataset.as_ref().or(config.dataset.as_ref());
        // The rules compile while the dataset is read (a headless command), or once the board's
        // first frame is drawn (`compiling` says when).
        let classifier = compiling();
        let (loaded, tail) = dataset_head(dataset, head)?;
        crate::startup::mark("dataset head read");
        let workspace = options
            .workspace
            .clone()
            .or_else(|| config.workspace.clone())
            .or_else(crate::config::default_workspace)
            .context("no workspace directory: pass --workspace DIR")?;
        let mut warnings = loaded.warnings;
        warnings.extend(keymap.warnings.iter().cloned());
        let ctx = Context {
            result_dirs: result_dirs(&config, options, &workspace),
            trajectory_dirs: [config.trajectories.clone(), options.trajectories.clone()].concat(),
            images: config.images.clone(),
            view: crate::runs::ViewFlags::new(path.as_deref(), options.dataset.as_deref(), &options.results),
            config,
            keymap,
            entries: Vec::new(),
            reading: dataset::Progress::default(),
            joined_inputs: None,
            warnings,
            workspace,
            classifier,
            redactor: crate::logs::Redactor::process().clone(),
            verbose: options.verbose,
        };
        Ok((ctx, loaded.commits, tail))
    }

    /// The agent runs below the `--trajectories` folders.
    pub fn agent_runs(&self) -> crate::agents::AgentRuns {
        crate::agents::runs::find(&self.trajectory_dirs)
    }

    /// The embedded recipe book, or the config's `recipes` file on top of it.
    pub fn recipes(&self) -> Result<crate::fixes::RecipeBook, crate::fixes::RecipeError> {
        Ok(match &self.config.recipes {
            Some(path) => crate::fixes::RecipeBook::with_file(path)?,
            None => crate::fixes::RecipeBook::embedded()?,
        })
    }

    /// A commit by short or full hash; when there is none, says so on stderr (the caller exits 2).
    pub fn find(&self, short: &str) -> Option<&Entry> {
        let found = self.entries.iter().find(|e| e.commit.short == short || e.commit.full == short);
        if found.is_none() {
            let short = crate::logs::display_text(short);
            eprintln!("perftriage: no commit `{short}` in the dataset (use the 8-character short hash)");
        }
        found
    }

    /// Open the workspace for writing, or read-only when `allow_read_only` and another instance holds it.
    pub fn open_workspace(&self, allow_read_only: bool) -> Result<Workspace, StoreError> {
        let store = match TriageStore::open_waiting(&self.workspace, self.lock_patience(allow_read_only)) {
            Ok(store) => store,
            Err(StoreError::Locked { .. }) if allow_read_only => TriageStore::open_read_only(&self.workspace),
            Err(e) => return Err(e),
        };
        Ok(Self::load_book(store))
    }

    /// A board opens read-only at once when another holds the workspace; a headless writer waits
    /// a few seconds for its turn.
    fn lock_patience(&self, allow_read_only: bool) -> std::time::Duration {
        std::time::Duration::from_secs(if allow_read_only { 0 } else { 5 })
    }

    /// Read the workspace without taking its lock (headless readers never get in a board's way).
    pub fn read_workspace(&self) -> Workspace {
        Self::load_book(TriageStore::open_read_only(&self.workspace))
    }

    fn load_book(store: TriageStore) -> Workspace {
        let (book, report) = store.load(&now_compact());
        Workspace { store, book, report }
    }
}
