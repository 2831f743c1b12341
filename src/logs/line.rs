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
    pub segments: Vec<(CellStyle, String)>,
    pub stream: Stream,
    /// Characters in the original line, when more than `DISPLAY_CAP` were dropped from memory.
    pub full_chars: Option<usize>,
    pub level: Option<Level>,
}

impl Line {
    pub fn text(&self) -> String {
        self.segments.iter().map(|(_, s)| s.as_str()).collect()
    }

    pub fn is_error(&self) -> bool {
        self.level == Some(Level::Error)
    }
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
