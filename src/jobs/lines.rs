//! The one path every line takes — runs, re-attached runs, fixes and recorded logs alike:
//! bytes → decoder → redactor (on lines) → spool → classifier → the caller, who forwards them.
//! It keeps no copy of the lines: the app's log view is the one place they live in memory.

use crate::classify::{Classifier, LiveClassifier, Verdict};
use crate::logs::{Decoder, Line, Output, Redactor, SpoolReader, SpoolWriter, Stream};
use std::path::Path;
use std::sync::Arc;

pub struct LinePath {
    stdout: Decoder,
    stderr: Decoder,
    out: Output,
    redactor: Redactor,
    spool: SpoolWriter,
    classifier: Arc<Classifier>,
    live: LiveClassifier,
    total: usize,
}

impl LinePath {
    /// A path spooling to `spool` (created, with its directories).
    pub fn create(
        spool: &Path,
        redactor: Redactor,
        classifier: Arc<Classifier>,
    ) -> std::io::Result<LinePath> {
        Ok(LinePath {
            stdout: Decoder::new(Stream::Stdout),
            stderr: Decoder::new(Stream::Stderr),
            out: Output::default(),
            redactor,
            spool: SpoolWriter::create(spool)?,
            live: LiveClassifier::new(classifier.clone()),
            classifier,
            total: 0,
        })
    }

    /// Take a raw chunk; returns the lines it completed, redacted, spooled and classified.
    pub fn ingest(&mut self, stream: Stream, bytes: &[u8]) -> std::io::Result<Vec<Line>> {
        let decoder = match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        };
        decoder.feed(bytes, &mut self.out);
        self.drain()
    }

    /// End of both streams: unterminated last lines become lines, and the spool is flushed.
    pub fn finish(&mut self) -> std::io::Result<Vec<Line>> {
        self.stdout.finish(&mut self.out);
        self.stderr.finish(&mut self.out);
        let lines = self.drain()?;
        self.spool.flush()?;
        Ok(lines)
    }

    fn drain(&mut self) -> std::io::Result<Vec<Line>> {
        self.redactor.output(&mut self.out);
        self.spool.append(&self.out.raw)?;
        self.out.raw.clear();
        let mut lines = std::mem::take(&mut self.out.lines);
        // Classified as one block: the rules' literals are searched once, not line by line.
        let block = lines.iter().map(Line::text).collect::<Vec<_>>().join("\n");
        for noise in self.classifier.noise_lines(&block) {
            lines[noise].noise = true;
        }
        self.live.feed_block(&block);
        self.total += lines.len();
        Ok(lines)
    }

    /// The live verdict over every line so far.
    pub fn verdict(&self) -> Option<Verdict> {
        self.live.verdict()
    }

    /// Lines taken in so far.
    pub fn total(&self) -> usize {
        self.total
    }

    pub fn path(&self) -> &Path {
        self.spool.path()
    }

    /// Make spooled lines readable and hand out a reader (lines older than the view's ring).
    pub fn reader(&mut self) -> std::io::Result<SpoolReader> {
        self.spool.flush()?;
        Ok(self.spool.reader())
    }
}
