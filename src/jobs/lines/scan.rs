//! A block of whole lines made ready for the spool and the live verdict: what its lines matched,
//! and the redacted bytes to spool instead of its raw ones when it holds a secret. Pure, so a
//! large block is scanned partly on the caller's thread and partly on the spool's.

use crate::classify::{Classifier, Tally};
use crate::logs::{Decoder, Output, Redactor, Stream, decoded_block, joined};

pub(super) struct Scanned {
    /// `None`: the raw bytes are spooled as they are.
    pub redacted: Option<Vec<u8>>,
    pub tally: Tally,
}

pub(super) struct Scanner<'a> {
    pub stream: Stream,
    pub redactor: &'a Redactor,
    pub classifier: &'a Classifier,
}

impl Scanner<'_> {
    /// The fast road when the block is UTF-8 and holds no secret: its decoded text is its raw
    /// bytes bar the lines the decoder changes; else the decoder and redactor, as a stream
    /// decoder at a line start would take it.
    pub(super) fn scan(&self, raw: &[u8]) -> Scanned {
        if let Ok(text) = simdutf8::basic::from_utf8(raw) {
            let decoded = decoded_block(text, self.stream);
            // Unchanged lines' text is their raw bytes: the changed ones are scanned again.
            let secret = |t: &String| self.redactor.holds_secret(t.as_bytes());
            if !self.redactor.holds_secret(raw) && !decoded.as_ref().is_some_and(secret) {
                let tally = self.classifier.tally(decoded.as_deref().unwrap_or(text));
                return Scanned { redacted: None, tally };
            }
        }
        let (mut decoder, mut out) = (Decoder::new(self.stream), Output::default());
        decoder.feed(raw, &mut out);
        self.redactor.output(&mut out);
        let text = joined(&out.lines);
        Scanned { redacted: Some(out.raw), tally: self.classifier.tally(&text) }
    }
}
