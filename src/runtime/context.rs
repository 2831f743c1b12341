//! Everything a session needs, loaded once: config, dataset, result files, classifier, workspace.

use crate::classify::Classifier;
use crate::config::{Config, KeyMap};
use crate::dataset::{self, Entry, ImageTemplates, results};
use crate::triage::{LoadReport, StoreError, TriageBook, TriageStore};
use anyhow::{Context as _, Result};
use std::path::PathBuf;

#[derive(Debug, Default, Clone)]
pub struct Options {
    pub config: Option<PathBuf>,
    pub dataset: Option<PathBuf>,
    pub results: Vec<PathBuf>,
    pub workspace: Option<PathBuf>,
    pub theme: Option<String>,
    pub gpu_replay: Option<PathBuf>,
}

pub struct Context {
    pub config: Config,
    pub keymap: KeyMap,
    pub entries: Vec<Entry>,
    pub warnings: Vec<String>,
    pub images: ImageTemplates,
    pub workspace: PathBuf,
    pub classifier: Classifier,
}

/// The workspace's triage store and book, writable or not.
pub struct Workspace {
    pub store: TriageStore,
    pub book: TriageBook,
    pub report: LoadReport,
}

impl Context {
    pub fn load(options: &Options) -> Result<Context> {
        let (config, _) = Config::load(options.config.as_deref())?;
        let keymap = config.keymap().map_err(|e| anyhow::anyhow!("config [keys]: {e}"))?;
        let classifier = Classifier::embedded().context("built-in classifier rules")?;
        let commits = match options.dataset.as_ref().or(config.dataset.as_ref()) {
            Some(path) => dataset::load_jsonl(path)?,
            None => dataset::load_embedded()?,
        };
        let workspace = options
            .workspace
            .clone()
            .or_else(|| config.workspace.clone())
            .or_else(crate::config::default_workspace)
            .context("no workspace directory: pass --workspace DIR")?;
        let mut dirs = config.results.clone();
        dirs.extend(options.results.iter().cloned());
        // Results of our own runs come back onto the board.
        let own = workspace.join("results");
        if own.is_dir() {
            dirs.push(own);
        }
        let set = results::read_dirs(&dirs);
        let (entries, warnings) = dataset::join(commits, set, &classifier);
        let images = config.images.clone();
        Ok(Context { config, keymap, entries, warnings, images, workspace, classifier })
    }

    /// A commit by short or full hash; when there is none, says so on stderr (the caller exits 2).
    pub fn find(&self, short: &str) -> Option<&Entry> {
        let found = self.entries.iter().find(|e| e.commit.short == short || e.commit.full == short);
        if found.is_none() {
            eprintln!("perftriage: no commit `{short}` in the dataset (use the 8-character short hash)");
        }
        found
    }

    /// Open the workspace for writing, or read-only when `allow_read_only` and another instance holds it.
    pub fn open_workspace(&self, allow_read_only: bool) -> Result<Workspace, StoreError> {
        let store = match TriageStore::open(&self.workspace) {
            Ok(store) => store,
            Err(StoreError::Locked { .. }) if allow_read_only => TriageStore::open_read_only(&self.workspace),
            Err(e) => return Err(e),
        };
        Ok(Self::load_book(store))
    }

    /// Read the workspace without taking its lock (headless readers never get in a board's way).
    pub fn read_workspace(&self) -> Workspace {
        Self::load_book(TriageStore::open_read_only(&self.workspace))
    }

    fn load_book(store: TriageStore) -> Workspace {
        let (book, report) = store.load(&super::now_compact());
        Workspace { store, book, report }
    }
}
