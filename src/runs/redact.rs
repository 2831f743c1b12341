//! Secrets never leave the process unredacted: HF tokens are replaced in log text, spooled
//! bytes and result files.

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Redactor {
    secrets: Vec<String>,
}

pub const REDACTED: &str = "[REDACTED]";

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

    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_string();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        out
    }

    pub fn bytes(&self, bytes: &[u8]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        for secret in &self.secrets {
            let needle = secret.as_bytes();
            let mut result = Vec::with_capacity(out.len());
            let mut rest = &out[..];
            while let Some(at) = memchr::memmem::find(rest, needle) {
                result.extend_from_slice(&rest[..at]);
                result.extend_from_slice(REDACTED.as_bytes());
                rest = &rest[at + needle.len()..];
            }
            result.extend_from_slice(rest);
            out = result;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_replaced_everywhere() {
        let r = Redactor::new(["hf_abcdefghijklmnop".to_string(), "short".to_string()]);
        assert_eq!(r.text("token=hf_abcdefghijklmnop; short"), "token=[REDACTED]; short");
        assert_eq!(
            r.bytes(b"a hf_abcdefghijklmnop b hf_abcdefghijklmnop"),
            b"a [REDACTED] b [REDACTED]".to_vec()
        );
    }
}
