//! Secrets never leave the process unredacted. HF tokens from the environment, and anything shaped
//! like one (`hf_` and 30+ letters or digits), are replaced on decoded lines — so a token split
//! across chunks or frames is still whole when it is looked for — and in the raw bytes behind them.

use super::{Line, Output};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Redactor {
    secrets: Vec<String>,
}

pub const REDACTED: &str = "[REDACTED]";
const TOKEN_PREFIX: &[u8] = b"hf_";
/// Characters after `hf_` that make a token (HF user tokens have 34).
const TOKEN_MIN: usize = 30;

impl Redactor {
    /// Secrets shorter than 8 characters are ignored: redacting them would mangle ordinary text.
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Redactor {
        let mut secrets: Vec<String> = secrets.into_iter().filter(|s| s.len() >= 8).collect();
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Redactor { secrets }
    }

    /// `HF_TOKEN` and `HUGGING_FACE_HUB_TOKEN` from this process's environment.
    pub fn from_env() -> Redactor {
        Redactor::new(["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"].iter().filter_map(|k| std::env::var(k).ok()))
    }

    /// This process's redactor (`from_env`, read once): for readers with no session at hand,
    /// such as every reader of result files.
    pub fn process() -> &'static Redactor {
        static PROCESS: std::sync::OnceLock<Redactor> = std::sync::OnceLock::new();
        PROCESS.get_or_init(Redactor::from_env)
    }

    /// A name for the secrets redacted (a hash, never the secrets): what a cache of redacted text
    /// is only valid for.
    pub fn fingerprint(&self) -> String {
        let parts: Vec<&[u8]> = self.secrets.iter().map(|s| s.as_bytes()).collect();
        crate::files::stable_id(&parts)
    }

    /// Redact every string of a JSON value in place, as decoded (a token spelled with `\u`
    /// escapes in the file is whole here).
    pub fn json(&self, value: &mut serde_json::Value) {
        use serde_json::Value;
        match value {
            Value::String(text) if self.holds_secret(text.as_bytes()) => *text = self.text(text),
            Value::Array(items) => items.iter_mut().for_each(|v| self.json(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.json(v)),
            _ => {}
        }
    }

    pub fn text(&self, text: &str) -> String {
        String::from_utf8_lossy(&self.bytes(text.as_bytes())).into_owned()
    }

    pub fn bytes(&self, bytes: &[u8]) -> Vec<u8> {
        let mut out = redact_tokens(bytes);
        for secret in &self.secrets {
            if memchr::memmem::find(&out, secret.as_bytes()).is_some() {
                out = replace_all(&out, secret.as_bytes());
            }
        }
        out
    }

    /// Redact a decoded line in place; `true` when it held a secret (its styles are dropped then).
    pub fn line(&self, line: &mut Line) -> bool {
        if !self.holds_secret(line.text.as_bytes()) {
            return false;
        }
        line.text = self.text(&line.text);
        line.styles.clear();
        true
    }

    /// Whether `bytes` hold a configured secret or something shaped like a token.
    pub fn holds_secret(&self, bytes: &[u8]) -> bool {
        next_token(bytes, 0).is_some()
            || self.secrets.iter().any(|s| memchr::memmem::find(bytes, s.as_bytes()).is_some())
    }

    /// Redact a decoder's output: each line, and the raw bytes behind it for the spool. A line
    /// whose decoded text held a secret (perhaps split by escape sequences in the raw bytes) is
    /// spooled as its redacted text.
    pub fn output(&self, out: &mut Output) {
        let lines_hold = out.lines.iter().any(|l| self.holds_secret(l.text.as_bytes()));
        if !lines_hold && !self.holds_secret(&out.raw) {
            out.line_ends.clear();
            return;
        }
        let mut raw = Vec::with_capacity(out.raw.len());
        let mut start = 0;
        for (line, &end) in out.lines.iter_mut().zip(&out.line_ends) {
            if self.line(line) {
                raw.extend_from_slice(line.text.as_bytes());
                raw.push(b'\n');
            } else {
                raw.extend(self.bytes(&out.raw[start..end]));
            }
            start = end;
        }
        raw.extend(self.bytes(&out.raw[start..]));
        out.raw = raw;
        out.line_ends.clear();
    }
}

fn replace_all(bytes: &[u8], needle: &[u8]) -> Vec<u8> {
    let mut result = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = memchr::memmem::find(rest, needle) {
        result.extend_from_slice(&rest[..at]);
        result.extend_from_slice(REDACTED.as_bytes());
        rest = &rest[at + needle.len()..];
    }
    result.extend_from_slice(rest);
    result
}

/// The next token-shaped run at or after `from`: (start, end).
fn next_token(bytes: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut at = from;
    while let Some(i) = memchr::memmem::find(&bytes[at..], TOKEN_PREFIX) {
        let start = at + i;
        let body =
            bytes[start + TOKEN_PREFIX.len()..].iter().take_while(|b| b.is_ascii_alphanumeric()).count();
        let end = start + TOKEN_PREFIX.len() + body;
        if body >= TOKEN_MIN {
            return Some((start, end));
        }
        at = end.max(start + 1);
    }
    None
}

fn redact_tokens(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some((start, end)) = next_token(bytes, at) {
        out.extend_from_slice(&bytes[at..start]);
        out.extend_from_slice(REDACTED.as_bytes());
        at = end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::{Decoder, Stream};

    #[test]
    fn tokens_are_replaced_everywhere() {
        let r = Redactor::new(["hf_abcdefghijklmnop".to_string(), "short".to_string()]);
        assert_eq!(r.text("token=hf_abcdefghijklmnop; short"), "token=[REDACTED]; short");
        assert_eq!(
            r.bytes(b"a hf_abcdefghijklmnop b hf_abcdefghijklmnop"),
            b"a [REDACTED] b [REDACTED]".to_vec()
        );
    }

    #[test]
    fn token_shaped_words_are_replaced_without_being_configured() {
        let r = Redactor::default();
        let token = format!("hf_{}", "a1".repeat(17));
        assert_eq!(r.text(&format!("x {token} y hf_short")), "x [REDACTED] y hf_short");
    }

    #[test]
    fn a_secret_split_by_chunks_and_escapes_is_caught_on_the_line_and_in_the_raw_bytes() {
        let r = Redactor::new(["hf_SECRETabc123".to_string()]);
        let mut decoder = Decoder::new(Stream::Stdout);
        let mut out = Output::default();
        decoder.feed(b"tok hf_SEC", &mut out);
        decoder.feed(b"\x1b[31mRETabc123 end\n", &mut out);
        r.output(&mut out);
        assert_eq!(out.lines[0].text, "tok [REDACTED] end");
        assert!(!String::from_utf8_lossy(&out.raw).contains("RETabc"), "{:?}", out.raw);
    }
}
