//! A decoded line: styled segments of printable text, its stream, level and display cap.

use super::CellStyle;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Stream {
    #[default]
    Stdout,
    Stderr,
}

/// Log level, from either vLLM format (`INFO 07-24 13:15:43 file.py:1] …` or
/// `(APIServer pid=9) INFO 07-24 13:15:43 [file.py:1] …`), or from a bare traceback/error line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Debug,
    Info,
    Warning,
    Error,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Line {
    /// Printable text only: no control characters, ever.
    pub text: String,
    /// Style runs as (byte offset where the run starts, style); empty when the whole line is plain.
    pub styles: Vec<(usize, CellStyle)>,
    pub stream: Stream,
    /// Characters in the original line, when more than `DISPLAY_CAP` were dropped from memory.
    pub full_chars: Option<usize>,
    pub level: Option<Level>,
    /// Chatter that says nothing about the run (docker pull, NCCL teardown, pip notices, access logs).
    pub noise: bool,
}

impl Line {
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text cut into its style runs.
    pub fn segments(&self) -> Vec<(CellStyle, &str)> {
        if self.styles.is_empty() {
            return vec![(CellStyle::default(), self.text.as_str())];
        }
        let mut out = Vec::with_capacity(self.styles.len() + 1);
        let first = self.styles[0].0;
        if first > 0 {
            out.push((CellStyle::default(), &self.text[..first]));
        }
        for (i, (start, style)) in self.styles.iter().enumerate() {
            let end = self.styles.get(i + 1).map_or(self.text.len(), |(s, _)| *s);
            if end > *start {
                out.push((*style, &self.text[*start..end]));
            }
        }
        out
    }

    pub fn is_error(&self) -> bool {
        self.level == Some(Level::Error)
    }
}

/// The texts of `lines`, each ending in a newline: the block the classifier reads.
pub fn joined(lines: &[Line]) -> String {
    lines.iter().flat_map(|l| [l.text(), "\n"]).collect()
}

/// Level from the first words of a line's text.
pub fn detect_level(text: &str) -> Option<Level> {
    let mut rest = text.trim_start();
    if rest.starts_with('(')
        && let Some(close) = rest.find(") ")
    {
        rest = &rest[close + 2..];
    }
    let (word, after) = rest.split_once(' ')?;
    let level = match word {
        "DEBUG" => Level::Debug,
        "INFO" => Level::Info,
        "WARNING" | "WARN" => Level::Warning,
        "ERROR" | "CRITICAL" => Level::Error,
        _ => return error_line(rest),
    };
    after.starts_with(|c: char| c.is_ascii_digit()).then_some(level).or_else(|| error_line(rest))
}

fn error_line(text: &str) -> Option<Level> {
    let first = text.split(' ').next().unwrap_or("");
    let is_error = text.starts_with("Traceback (most recent call last)")
        || (first.ends_with("Error:") || first.ends_with("Exception:"))
        || text.starts_with("[rank0]: ") && text.contains("Error: ");
    is_error.then_some(Level::Error)
}
