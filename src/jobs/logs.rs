//! Recorded logs on the log pane: spools a variant's recorded output through the line path and
//! streams its lines to the app; reads older lines back, expands long ones, searches and saves.
//! Every file operation runs on a blocking thread and answers with a message.

use super::lines::LinePath;
use crate::app::{Level, LogKey, LogMsg, Msg};
use crate::classify::Classifier;
use crate::dataset::results;
use crate::logs::{Line, Redactor, SpoolReader, Stream};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc::UnboundedSender;

/// Bytes fed at a time; lines per spool read and per hits message of a background search.
const CHUNK: usize = 64 * 1024;
/// How often lines are forwarded while a recorded log streams in.
const SEND_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

type Readers = Arc<Mutex<HashMap<LogKey, SpoolReader>>>;

pub struct Logs {
    workspace: PathBuf,
    classifier: Arc<Classifier>,
    redactor: Redactor,
    readers: Readers,
    /// Cancel flag of each log's running spool search.
    searches: HashMap<LogKey, Arc<AtomicBool>>,
    tx: UnboundedSender<Msg>,
}

impl Logs {
    pub fn new(
        workspace: &Path,
        (classifier, redactor): (Arc<Classifier>, Redactor),
        tx: UnboundedSender<Msg>,
    ) -> Logs {
        let (readers, searches) = (Readers::default(), HashMap::new());
        Logs { workspace: workspace.to_path_buf(), classifier, redactor, readers, searches, tx }
    }

    /// Spool and stream a recorded log: the result file's recorded output, else `text`, to a
    /// view whose ring holds `ring` lines.
    pub fn open(&self, key: LogKey, source: Option<String>, text: String, ring: usize) {
        let variant = key.variant;
        let recorded = move || source.and_then(|s| recorded_output(Path::new(&s), variant)).unwrap_or(text);
        self.open_with(key, ring, recorded);
    }

    /// Spool and stream the text `make` returns (made on a blocking thread: it may read files
    /// or run git) to a view whose ring holds `ring` lines.
    pub fn open_with(&self, key: LogKey, ring: usize, make: impl FnOnce() -> String + Send + 'static) {
        let stamp = crate::session::now_compact();
        let path = self.workspace.join("logs").join(&key.short).join(key.variant.name());
        let path = path.join(format!("{}-{stamp}.log", key.log));
        let (redactor, classifier) = (self.redactor.clone(), self.classifier.clone());
        let (readers, tx) = (self.readers.clone(), self.tx.clone());
        tokio::task::spawn_blocking(move || {
            let bytes = make();
            match LinePath::create(&path, redactor, classifier) {
                Ok(lines) => stream(&mut lines.keeping(ring), bytes.as_bytes(), &key, &tx, &readers),
                Err(e) => notice(&tx, Level::Error, format!("cannot create {}: {e}", path.display())),
            }
        });
    }

    /// Follow a campaign run's pane (`key`'s `LogId::Campaign`) from the spool its driver writes,
    /// through the line path, until the journal of `name` says the run ended.
    pub fn follow_campaign(&self, key: LogKey, name: &crate::ids::CampaignName, ring: usize) {
        let stamp = crate::session::now_compact();
        let dir = self.workspace.join("logs").join(&key.short).join(key.variant.name());
        let path = dir.join(format!("{}-{stamp}.log", key.log));
        let follow =
            super::follow::Follow { dir, key, journal: super::journal::Journal::of(&self.workspace, name) };
        let (redactor, classifier) = (self.redactor.clone(), self.classifier.clone());
        let (readers, tx) = (self.readers.clone(), self.tx.clone());
        tokio::task::spawn_blocking(move || {
            let mut lines = match LinePath::create(&path, redactor, classifier) {
                Ok(lines) => lines.keeping(ring),
                Err(e) => return notice(&tx, Level::Error, format!("cannot create {}: {e}", path.display())),
            };
            let key = follow.key.clone();
            let send = |batch: crate::logs::Batch, finished: bool| {
                let (lines, skipped) = (batch.lines, batch.skipped);
                drop(tx.send(Msg::Log(LogMsg::Lines { key: key.clone(), lines, skipped, finished })))
            };
            if let Err(e) = follow.run(&mut lines, send) {
                notice(&tx, Level::Warn, e.to_string());
            }
            if let (Ok(reader), Ok(mut map)) = (lines.reader(), readers.lock()) {
                map.insert(key, reader);
            }
        });
    }

    fn reader(&self, key: &LogKey) -> Option<SpoolReader> {
        let reader = self.readers.lock().ok().and_then(|r| r.get(key).cloned());
        if reader.is_none() {
            notice(&self.tx, Level::Warn, "that log is no longer open".into());
        }
        reader
    }

    pub fn read(&self, key: LogKey, first: usize, count: usize) {
        let Some(reader) = self.reader(&key) else { return };
        let (classifier, tx) = (self.classifier.clone(), self.tx.clone());
        tokio::task::spawn_blocking(move || match reader.read(first, count, Stream::Stdout) {
            Ok(mut lines) => {
                mark_noise(&mut lines, &classifier);
                let _ = tx.send(Msg::Log(LogMsg::Page { key, first, lines }));
            }
            Err(e) => notice(&tx, Level::Error, format!("cannot read the log back: {e}")),
        });
    }

    /// Read lines back in full, one message each.
    pub fn expand(&self, key: LogKey, lines: Vec<usize>) {
        let Some(reader) = self.reader(&key) else { return };
        let (classifier, tx) = (self.classifier.clone(), self.tx.clone());
        tokio::task::spawn_blocking(move || {
            for n in lines {
                match reader.read_full(n, Stream::Stdout) {
                    Ok(Some(mut line)) => {
                        line.noise = classifier.is_noise(line.text());
                        let _ = tx.send(Msg::Log(LogMsg::Expanded { key: key.clone(), n, line }));
                    }
                    Ok(None) => {}
                    Err(e) => notice(&tx, Level::Error, format!("cannot read line {}: {e}", n + 1)),
                }
            }
        });
    }

    /// Search spooled lines `0..upto` on a thread, streaming hits; a newer search cancels it.
    pub fn search(&mut self, key: LogKey, query: String, upto: usize) {
        let Some(reader) = self.reader(&key) else { return };
        let search = match crate::logs::SpoolSearch::new(&query) {
            Ok(search) => search,
            Err(e) => return notice(&self.tx, Level::Warn, format!("search: {e}")),
        };
        let cancel = Arc::new(AtomicBool::new(false));
        if let Some(old) = self.searches.insert(key.clone(), cancel.clone()) {
            old.store(true, Ordering::Relaxed);
        }
        let search = BackgroundSearch { reader, search, key, query, upto, tx: self.tx.clone() };
        std::thread::spawn(move || search.run(&cancel));
    }

    /// Copy the whole raw (redacted) log to `<workspace>/exports/`: an open recorded log, or the
    /// spool a run's pane writes to (`logs/<short>/<variant>/<run>-<pane>.log`).
    pub fn save(&self, key: &LogKey) {
        let spool = self
            .workspace
            .join("logs")
            .join(&key.short)
            .join(key.variant.name())
            .join(format!("{}.log", key.log));
        let reader = self.readers.lock().ok().and_then(|r| r.get(key).cloned());
        if reader.is_none() && !spool.is_file() {
            return notice(&self.tx, Level::Warn, format!("no log to save at {}", spool.display()));
        }
        let exports = self.workspace.join("exports");
        let dest = unused_name(&exports, &format!("{}-{}-{}", key.short, key.variant.name(), key.log));
        let tx = self.tx.clone();
        tokio::task::spawn_blocking(move || {
            let copy = |dest: &Path| match &reader {
                Some(reader) => reader.save_to(dest),
                None => crate::files::copy(&spool, dest),
            };
            let saved = crate::files::private_dir(&exports).and_then(|_| copy(&dest));
            let (level, text) = match saved {
                Ok(bytes) => (Level::Info, format!("saved {bytes} bytes to {}", dest.display())),
                Err(e) => (Level::Error, format!("cannot save the log to {}: {e}", dest.display())),
            };
            notice(&tx, level, text);
        });
    }
}

/// `<dir>/<stem>.log`, or `<stem>-2.log`, `-3`, … when that exists: a save never replaces an
/// earlier one.
fn unused_name(dir: &Path, stem: &str) -> PathBuf {
    let candidate = |n: u32| match n {
        1 => dir.join(format!("{stem}.log")),
        n => dir.join(format!("{stem}-{n}.log")),
    };
    (1..).map(candidate).find(|p| !p.exists()).unwrap_or_else(|| dir.join(format!("{stem}.log")))
}

/// Feed recorded bytes through the line path in chunks, forwarding the newest screenful every
/// 50 ms and, at the end, the newest lines the view's ring holds; nothing older is decoded.
fn stream(lines: &mut LinePath, bytes: &[u8], key: &LogKey, tx: &UnboundedSender<Msg>, readers: &Readers) {
    let send = |batch: crate::logs::Batch, finished: bool| {
        let (lines, skipped) = (batch.lines, batch.skipped);
        drop(tx.send(Msg::Log(LogMsg::Lines { key: key.clone(), lines, skipped, finished })))
    };
    let mut sent = std::time::Instant::now();
    for chunk in bytes.chunks(CHUNK) {
        if let Err(e) = lines.push(Stream::Stdout, chunk) {
            return notice(tx, Level::Error, format!("log spool {}: {e}", lines.path().display()));
        }
        if sent.elapsed() >= SEND_EVERY {
            send(lines.take_newest(crate::logs::SCREENFUL), false);
            sent = std::time::Instant::now();
        }
    }
    let last = lines.finish_batch().unwrap_or_else(|e| {
        notice(tx, Level::Error, format!("log spool {}: {e}", lines.path().display()));
        crate::logs::Batch::default()
    });
    if let (Ok(reader), Ok(mut map)) = (lines.reader(), readers.lock()) {
        map.insert(key.clone(), reader);
    }
    send(last, true);
}

/// A background search of the spool below the ring, its hits streamed as they are found.
struct BackgroundSearch {
    reader: SpoolReader,
    search: crate::logs::SpoolSearch,
    key: LogKey,
    query: String,
    upto: usize,
    tx: UnboundedSender<Msg>,
}

impl BackgroundSearch {
    fn run(self, cancel: &AtomicBool) {
        let send = |hits, done| {
            let (key, query) = (self.key.clone(), self.query.clone());
            let _ = self.tx.send(Msg::Log(LogMsg::SearchHits { key, query, hits, done }));
        };
        let found = self.search.run(&self.reader, self.upto, cancel, &|hits| send(hits, false));
        if let Err(e) = found {
            notice(&self.tx, Level::Error, format!("search {}: {e}", self.reader.path().display()));
        }
        send(Vec::new(), true);
    }
}

fn notice(tx: &UnboundedSender<Msg>, level: Level, text: String) {
    let _ = tx.send(Msg::Notice(level, text));
}

fn mark_noise(lines: &mut [Line], classifier: &Classifier) {
    for line in lines {
        line.noise = classifier.is_noise(line.text());
    }
}

/// A variant's recorded output from its result file: the error and every raw field.
fn recorded_output(path: &Path, variant: crate::dataset::Variant) -> Option<String> {
    let set = results::read_file(path).ok()?;
    set.records.into_iter().find(|r| r.variant == variant).map(|r| r.text())
}
