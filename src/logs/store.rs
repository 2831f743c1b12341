//! One run's log: a decoder per stream, the spool file and the in-memory ring, fed by raw chunks.

use super::decode::Output;
use super::{Decoder, Line, Ring, SpoolReader, SpoolWriter, Stream};
use std::path::Path;

#[derive(Debug)]
pub struct LogStore {
    stdout: Decoder,
    stderr: Decoder,
    spool: SpoolWriter,
    ring: Ring,
    scratch: Output,
}

impl LogStore {
    /// A store spooling to `path` (created, with its directories) and keeping `ring` lines in memory.
    pub fn create(path: &Path, ring: usize) -> std::io::Result<LogStore> {
        Ok(LogStore {
            stdout: Decoder::new(Stream::Stdout),
            stderr: Decoder::new(Stream::Stderr),
            spool: SpoolWriter::create(path)?,
            ring: Ring::new(ring),
            scratch: Output::default(),
        })
    }

    /// Decode and keep a raw chunk; returns how many complete lines it added.
    pub fn ingest(&mut self, stream: Stream, bytes: &[u8]) -> std::io::Result<usize> {
        let decoder = match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        };
        decoder.feed(bytes, &mut self.scratch);
        self.drain()
    }

    /// End of both streams: unterminated last lines become lines.
    pub fn finish(&mut self) -> std::io::Result<usize> {
        self.stdout.finish(&mut self.scratch);
        self.stderr.finish(&mut self.scratch);
        let n = self.drain()?;
        self.spool.flush()?;
        Ok(n)
    }

    fn drain(&mut self) -> std::io::Result<usize> {
        self.spool.append(&self.scratch.raw)?;
        self.scratch.raw.clear();
        let n = self.scratch.lines.len();
        for line in self.scratch.lines.drain(..) {
            self.ring.push(line);
        }
        Ok(n)
    }

    /// Copies of the lines added since `*seen` (an absolute line number), advancing it.
    pub fn lines_since(&self, seen: &mut usize) -> Vec<Line> {
        let lines = self.ring.iter_from(*seen).map(|(_, l)| l.clone()).collect();
        *seen = self.ring.total();
        lines
    }

    pub fn ring(&self) -> &Ring {
        &self.ring
    }

    /// Make spooled lines readable and hand out a reader for lines older than the ring.
    pub fn reader(&mut self) -> std::io::Result<SpoolReader> {
        self.spool.flush()?;
        Ok(self.spool.reader())
    }
}
