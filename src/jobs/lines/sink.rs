//! The ordered half of the line path, on a thread of its own: blocks are written to the spool
//! and classified there while the caller reads and scans the next one, so a file opened in bulk
//! keeps both cores busy. Blocks arrive in order over a short queue; a sync waits until
//! everything sent before it is spooled, flushed and classified.

use super::scan::{Scanned, Scanner};
use crate::classify::{Classifier, LiveClassifier, Verdict};
use crate::logs::{Redactor, SpoolWriter, Stream};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

/// Blocks queued ahead of the writer: enough to cover a slow write, few enough to bound memory.
const QUEUE: usize = 2;

enum Job {
    /// Whole raw lines; those up to `cut` were scanned by the caller (`first`), the rest are
    /// scanned here.
    Block {
        stream: Stream,
        raw: Arc<[u8]>,
        cut: usize,
        first: Option<Scanned>,
    },
    /// Raw bytes for the spool and the decoded (redacted) text of their lines.
    Decoded {
        raw: Vec<u8>,
        text: String,
    },
    Sync(SyncSender<Option<Verdict>>),
}

/// The first spool error, said at every later sync: after it nothing more is written, since the
/// spool's index must match its bytes.
type Failure = Arc<OnceLock<String>>;

pub(super) struct Sink {
    jobs: Option<SyncSender<Job>>,
    worker: Option<JoinHandle<()>>,
    failed: Failure,
}

struct Worker {
    spool: SpoolWriter,
    redactor: Redactor,
    classifier: Arc<Classifier>,
    live: LiveClassifier,
    failed: Failure,
}

impl Sink {
    pub(super) fn start(
        spool: SpoolWriter,
        redactor: Redactor,
        classifier: Arc<Classifier>,
    ) -> std::io::Result<Sink> {
        let (jobs, queue) = sync_channel(QUEUE);
        let failed = Failure::default();
        let live = LiveClassifier::new(classifier.clone());
        let worker = Worker { spool, redactor, classifier, live, failed: failed.clone() };
        let worker = std::thread::Builder::new().name("spool".into()).spawn(move || worker.serve(queue))?;
        Ok(Sink { jobs: Some(jobs), worker: Some(worker), failed })
    }

    /// Spool and classify `raw`: its bytes up to `cut` as `first` says, the rest once scanned.
    pub(super) fn block(
        &self,
        stream: Stream,
        raw: Arc<[u8]>,
        (cut, first): (usize, Option<Scanned>),
    ) -> std::io::Result<()> {
        self.send(Job::Block { stream, raw, cut, first })
    }

    pub(super) fn decoded(&self, raw: Vec<u8>, text: String) -> std::io::Result<()> {
        self.send(Job::Decoded { raw, text })
    }

    /// Wait for every block sent so far (the spool is flushed): the live verdict, and the first
    /// spool error if there was one.
    pub(super) fn sync(&self) -> (Option<Verdict>, std::io::Result<()>) {
        let (reply, answer) = sync_channel(1);
        if let Err(e) = self.send(Job::Sync(reply)) {
            return (None, Err(e));
        }
        match answer.recv() {
            Ok(verdict) => (verdict, self.failure()),
            Err(_) => (None, Err(stopped())),
        }
    }

    /// Lines keep flowing to the caller after a spool error (the view still shows them); the
    /// error is said at the next sync.
    fn send(&self, job: Job) -> std::io::Result<()> {
        self.jobs.as_ref().ok_or_else(stopped)?.send(job).map_err(|_| stopped())
    }

    fn failure(&self) -> std::io::Result<()> {
        self.failed.get().map_or(Ok(()), |e| Err(std::io::Error::other(e.clone())))
    }
}

impl Drop for Sink {
    /// Closing the queue lets the worker finish what it holds; the spool is complete after this.
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(worker) = self.worker.take() {
            drop(worker.join());
        }
    }
}

fn stopped() -> std::io::Error {
    std::io::Error::other("the spool writer stopped")
}

impl Worker {
    fn serve(mut self, queue: Receiver<Job>) {
        for job in queue {
            match job {
                Job::Block { stream, raw, cut, first } => self.block(stream, &raw, cut, first),
                Job::Decoded { raw, text } => self.take(&raw, &text),
                Job::Sync(reply) => drop(reply.send(self.synced())),
            }
        }
        self.write(|spool| spool.flush());
    }

    fn block(&mut self, stream: Stream, raw: &[u8], cut: usize, first: Option<Scanned>) {
        let scanner = Scanner { stream, redactor: &self.redactor, classifier: &self.classifier };
        let second = scanner.scan(&raw[cut..]);
        if let Some(first) = first {
            self.spool(&raw[..cut], first);
        }
        self.spool(&raw[cut..], second);
    }

    fn spool(&mut self, raw: &[u8], scanned: Scanned) {
        self.write(|spool| spool.append(scanned.redacted.as_deref().unwrap_or(raw)));
        self.live.absorb(scanned.tally);
    }

    /// Spool and classify decoded lines.
    fn take(&mut self, raw: &[u8], text: &str) {
        self.write(|spool| spool.append(raw));
        self.live.feed_block(text);
    }

    fn synced(&mut self) -> Option<Verdict> {
        self.write(SpoolWriter::flush);
        self.live.verdict()
    }

    fn write(&mut self, step: impl FnOnce(&mut SpoolWriter) -> std::io::Result<()>) {
        if self.failed.get().is_none()
            && let Err(e) = step(&mut self.spool)
        {
            drop(self.failed.set(format!("spool {}: {e}", self.spool.path().display())));
        }
    }
}
