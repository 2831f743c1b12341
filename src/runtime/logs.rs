//! Owner of the open logs' stores: spools recorded output into the workspace, streams the decoded
//! lines to the app, reads older lines back and saves whole logs on request.

use crate::app::{Level, LogKey, Msg};
use crate::classify::Classifier;
use crate::dataset::results;
use crate::logs::{Line, LogStore, Stream};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::mpsc::UnboundedSender;

/// Lines per spool read and per hits message of a background search.
const SEARCH_BATCH: usize = 8192;

const CHUNK: usize = 64 * 1024;

pub struct Logs {
    workspace: PathBuf,
    ring: usize,
    stores: HashMap<LogKey, (LogStore, PathBuf)>,
    /// Cancel flag of each log's running spool search.
    searches: HashMap<LogKey, Arc<AtomicBool>>,
}

impl Logs {
    pub fn new(workspace: &Path, ring: usize) -> Logs {
        Logs { workspace: workspace.to_path_buf(), ring, stores: HashMap::new(), searches: HashMap::new() }
    }

    /// Spool and decode a recorded log; every resulting message is passed to `send`.
    pub fn open(
        &mut self,
        key: LogKey,
        source: Option<&str>,
        text: &str,
        classifier: &Classifier,
    ) -> Vec<Msg> {
        let bytes = source
            .and_then(|s| recorded_output(Path::new(s), key.variant))
            .unwrap_or_else(|| text.to_string());
        let stamp = super::now_compact();
        let path = self
            .workspace
            .join("logs")
            .join(&key.short)
            .join(key.variant.name())
            .join(format!("{}-{stamp}.log", key.run));
        let mut store = match LogStore::create(&path, self.ring) {
            Ok(s) => s,
            Err(e) => {
                return vec![Msg::Notice(Level::Error, format!("cannot create {}: {e}", path.display()))];
            }
        };
        let mut msgs = Vec::new();
        let mut seen = 0;
        let chunks = bytes.as_bytes().chunks(CHUNK).count();
        for (i, chunk) in bytes.as_bytes().chunks(CHUNK).enumerate() {
            let last = i + 1 == chunks;
            let result =
                store.ingest(Stream::Stdout, chunk).and_then(|_| if last { store.finish() } else { Ok(0) });
            if let Err(e) = result {
                msgs.push(Msg::Notice(Level::Error, format!("log spool {}: {e}", path.display())));
                break;
            }
            let lines = new_lines(&store, &mut seen, classifier);
            msgs.push(Msg::LogLines { key: key.clone(), lines, finished: last });
        }
        if chunks == 0 {
            msgs.push(Msg::LogLines { key: key.clone(), lines: Vec::new(), finished: true });
        }
        self.stores.insert(key, (store, path));
        msgs
    }

    pub fn read(&mut self, key: &LogKey, first: usize, count: usize, classifier: &Classifier) -> Msg {
        let Some((store, _)) = self.stores.get_mut(key) else {
            return Msg::Notice(Level::Warn, "that log is no longer open".into());
        };
        match store.reader().and_then(|r| r.read(first, count, Stream::Stdout)) {
            Ok(mut lines) => {
                mark_noise(&mut lines, classifier);
                Msg::LogPage { key: key.clone(), first, lines }
            }
            Err(e) => Msg::Notice(Level::Error, format!("cannot read the log back: {e}")),
        }
    }

    /// Read lines back in full, one message each.
    pub fn expand(&mut self, key: &LogKey, lines: &[usize], classifier: &Classifier) -> Vec<Msg> {
        let Some((store, _)) = self.stores.get_mut(key) else { return Vec::new() };
        let reader = match store.reader() {
            Ok(r) => r,
            Err(e) => return vec![Msg::Notice(Level::Error, format!("cannot read the log back: {e}"))],
        };
        lines
            .iter()
            .filter_map(|&n| match reader.read_full(n, Stream::Stdout) {
                Ok(Some(mut line)) => {
                    line.noise = classifier.is_noise(line.text());
                    Some(Msg::LogLineExpanded { key: key.clone(), n, line })
                }
                Ok(None) => None,
                Err(e) => Some(Msg::Notice(Level::Error, format!("cannot read line {}: {e}", n + 1))),
            })
            .collect()
    }

    /// Search spooled lines `0..upto` on a thread, streaming hits; a newer search cancels it.
    pub fn search(&mut self, key: LogKey, query: String, upto: usize, tx: UnboundedSender<Msg>) -> Vec<Msg> {
        let Some((store, _)) = self.stores.get_mut(&key) else { return Vec::new() };
        let reader = match store.reader() {
            Ok(r) => r,
            Err(e) => return vec![Msg::Notice(Level::Error, format!("cannot search the log: {e}"))],
        };
        let regex = match regex::RegexBuilder::new(&query).case_insensitive(true).build() {
            Ok(r) => r,
            Err(e) => return vec![Msg::Notice(Level::Warn, format!("search: {e}"))],
        };
        let cancel = Arc::new(AtomicBool::new(false));
        if let Some(old) = self.searches.insert(key.clone(), cancel.clone()) {
            old.store(true, Ordering::Relaxed);
        }
        std::thread::spawn(move || {
            let mut first = 0;
            while first < upto && !cancel.load(Ordering::Relaxed) {
                let lines = match reader.read(first, SEARCH_BATCH.min(upto - first), Stream::Stdout) {
                    Ok(lines) if !lines.is_empty() => lines,
                    _ => break,
                };
                let hits = lines
                    .iter()
                    .enumerate()
                    .filter_map(|(i, l)| {
                        let ranges: Vec<(usize, usize)> =
                            regex.find_iter(l.text()).map(|m| (m.start(), m.end())).collect();
                        (!ranges.is_empty()).then_some((first + i, ranges))
                    })
                    .collect();
                first += lines.len();
                let done = first >= upto;
                let msg = Msg::LogSearchHits { key: key.clone(), query: query.clone(), hits, done };
                if tx.send(msg).is_err() {
                    return;
                }
            }
        });
        Vec::new()
    }

    pub fn save(&mut self, key: &LogKey) -> Msg {
        let Some((store, path)) = self.stores.get_mut(key) else {
            return Msg::Notice(Level::Warn, "that log is no longer open".into());
        };
        let dest = self.workspace.join("exports").join(format!(
            "{}-{}-{}.log",
            key.short,
            key.variant.name(),
            key.run
        ));
        let saved = std::fs::create_dir_all(self.workspace.join("exports"))
            .and_then(|_| store.reader())
            .and_then(|r| r.save_to(&dest));
        match saved {
            Ok(bytes) => Msg::Notice(
                Level::Info,
                format!("saved {bytes} bytes to {} (spool {})", dest.display(), path.display()),
            ),
            Err(e) => Msg::Notice(Level::Error, format!("cannot save the log to {}: {e}", dest.display())),
        }
    }
}

/// Lines the store took in since the last call (the ring never holds fewer than a chunk's worth).
fn new_lines(store: &LogStore, seen: &mut usize, classifier: &Classifier) -> Vec<Line> {
    let mut lines = store.lines_since(seen);
    mark_noise(&mut lines, classifier);
    lines
}

fn mark_noise(lines: &mut [Line], classifier: &Classifier) {
    for line in lines {
        line.noise = classifier.is_noise(line.text());
    }
}

/// A variant's recorded output from its result file: the error and every raw field.
fn recorded_output(path: &Path, variant: crate::dataset::Variant) -> Option<String> {
    let set = results::read_file(path).ok()?;
    set.records.into_iter().find(|r| r.variant == variant).map(|r| r.text)
}
