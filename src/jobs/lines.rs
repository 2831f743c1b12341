//! The one path every line takes — runs, re-attached runs, fixes and recorded logs alike:
//! bytes → decoder → redactor (on lines) → spool → classifier → the caller, who forwards them.
//! It keeps no copy of the lines beyond a backlog of what the caller has not taken: the app's
//! log view is the one place they live in memory.
//!
//! Whole lines in the middle of a chunk take a faster road: their decoded text is their raw bytes
//! bar the few lines the decoder changes (`logs::decoded_block`), so they are spooled and classified
//! as one block, and decoded into `Line`s only if they are among the newest the caller keeps.
//! Spooling and classifying happen on the path's own thread (`sink`), behind the caller.

mod scan;
mod sink;

use crate::classify::{Classifier, Verdict, newlines};
use crate::logs::{Backlog, Batch, Decoder, Line, Output, Redactor, SpoolReader, SpoolWriter, Stream};
use scan::Scanner;
use sink::Sink;
use std::path::Path;
use std::sync::Arc;

pub struct LinePath {
    stdout: Decoder,
    stderr: Decoder,
    out: Output,
    redactor: Redactor,
    sink: Sink,
    reader: SpoolReader,
    classifier: Arc<Classifier>,
    backlog: Backlog,
    total: usize,
}

impl LinePath {
    /// A path spooling to `spool` (created, with its directories) whose caller takes every line.
    pub fn create(
        spool: &Path,
        redactor: Redactor,
        classifier: Arc<Classifier>,
    ) -> std::io::Result<LinePath> {
        let spool = SpoolWriter::create(spool)?;
        Ok(LinePath {
            stdout: Decoder::new(Stream::Stdout),
            stderr: Decoder::new(Stream::Stderr),
            out: Output::default(),
            reader: spool.reader(),
            sink: Sink::start(spool, redactor.clone(), classifier.clone())?,
            redactor,
            classifier,
            backlog: Backlog::new(usize::MAX),
            total: 0,
        })
    }

    /// Hand the caller only the newest `keep` lines of what it has not taken (its ring's size).
    pub fn keeping(self, keep: usize) -> LinePath {
        LinePath { backlog: Backlog::new(keep), ..self }
    }

    /// Take a raw chunk; returns the lines it completed, redacted, spooled and classified.
    pub fn ingest(&mut self, stream: Stream, bytes: &[u8]) -> std::io::Result<Vec<Line>> {
        self.push(stream, bytes)?;
        Ok(self.take().lines)
    }

    /// End of both streams: unterminated last lines become lines, and the spool is flushed.
    pub fn finish(&mut self) -> std::io::Result<Vec<Line>> {
        Ok(self.finish_batch()?.lines)
    }

    /// Spool and classify a raw chunk; its lines wait for `take`. How many lines it completed.
    pub fn push(&mut self, stream: Stream, bytes: &[u8]) -> std::io::Result<usize> {
        let before = self.total;
        let (head, whole, tail) = split_at_newlines(bytes);
        self.decode(stream, head)?;
        self.push_whole_lines(stream, whole)?;
        self.decode(stream, tail)?;
        Ok(self.total - before)
    }

    /// The lines pushed since the last take (the newest `keep`), noise marked.
    pub fn take(&mut self) -> Batch {
        self.take_newest(usize::MAX)
    }

    /// `take`, decoding only the newest `n` lines: what a view shows while a log pours in.
    pub fn take_newest(&mut self, n: usize) -> Batch {
        let mut batch = self.backlog.take_newest(n);
        // Raw lines are redacted when decoded, as the spool's copy of them was.
        for line in &mut batch.lines {
            self.redactor.line(line);
        }
        let block = crate::logs::joined(&batch.lines);
        for noise in self.classifier.noise_lines(&block) {
            batch.lines[noise].noise = true;
        }
        batch
    }

    /// `finish`, for a caller that keeps only the newest lines.
    pub fn finish_batch(&mut self) -> std::io::Result<Batch> {
        self.stdout.finish(&mut self.out);
        self.stderr.finish(&mut self.out);
        self.drain()?;
        self.sink.sync().1?;
        Ok(self.take())
    }

    fn decode(&mut self, stream: Stream, bytes: &[u8]) -> std::io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        let decoder = match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        };
        decoder.feed(bytes, &mut self.out);
        self.drain()
    }

    fn drain(&mut self) -> std::io::Result<()> {
        self.redactor.output(&mut self.out);
        let (raw, lines) = (std::mem::take(&mut self.out.raw), std::mem::take(&mut self.out.lines));
        if raw.is_empty() && lines.is_empty() {
            return Ok(());
        }
        // Classified as one block: the rules' literals are searched once, not line by line.
        let block = crate::logs::joined(&lines);
        self.sink.decoded(raw, block)?;
        self.total += lines.len();
        self.backlog.push_decoded(lines);
        Ok(())
    }

    /// Whole lines with the decoder at a line start: scanned, spooled and classified behind
    /// the caller (`sink`), but for a large block's first part, which the caller scans itself
    /// meanwhile; decoded only if the caller takes them.
    fn push_whole_lines(&mut self, stream: Stream, raw: &[u8]) -> std::io::Result<()> {
        let (raw, lines) = (Arc::<[u8]>::from(raw), newlines(raw));
        let cut = caller_share(&raw);
        let scanner = Scanner { stream, redactor: &self.redactor, classifier: &self.classifier };
        let first = (cut > 0).then(|| scanner.scan(&raw[..cut]));
        self.sink.block(stream, raw.clone(), (cut, first))?;
        self.total += lines;
        self.backlog.push_raw(stream, raw, lines);
        Ok(())
    }

    /// The live verdict over every line so far (waits for the spool to catch up).
    pub fn verdict(&self) -> Option<Verdict> {
        self.sink.sync().0
    }

    /// Lines taken in so far.
    pub fn total(&self) -> usize {
        self.total
    }

    pub fn path(&self) -> &Path {
        self.reader.path()
    }

    /// Make spooled lines readable and hand out a reader (lines older than the view's ring).
    pub fn reader(&mut self) -> std::io::Result<SpoolReader> {
        self.sink.sync().1?;
        Ok(self.reader.clone())
    }
}

/// `bytes` as: up to its first newline, the whole lines after that, what follows its last newline.
fn split_at_newlines(bytes: &[u8]) -> (&[u8], &[u8], &[u8]) {
    let (Some(first), Some(last)) = (memchr::memchr(b'\n', bytes), memchr::memrchr(b'\n', bytes)) else {
        return (bytes, &[], &[]);
    };
    (&bytes[..=first], &bytes[first + 1..=last], &bytes[last + 1..])
}

/// Blocks this large are scanned on two threads: the caller's and the spool's.
const SHARED_BYTES: usize = 1 << 20;

/// Where the caller's part of a block ends (0: the spool's thread scans all of it). The caller
/// takes the smaller part, since it also reads the input: in a profile of the 948 MB benchmark
/// log, reading cost the caller a little more than writing cost the spool's thread.
fn caller_share(raw: &[u8]) -> usize {
    if raw.len() < SHARED_BYTES {
        return 0;
    }
    let at = raw.len() * 2 / 5;
    memchr::memchr(b'\n', &raw[at..]).map_or(0, |i| at + i + 1)
}
