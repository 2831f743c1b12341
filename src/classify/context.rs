//! The lines around a verdict's evidence, kept as one text: a string per line was 41 allocations
//! a verdict (22 MB over 10,000 failures at `status`). Written and read as a list of lines.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Lines of context kept on each side of the evidence line.
pub const CONTEXT_LINES: usize = 20;
/// Characters kept of each context line.
const LINE_CHARS: usize = 240;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Context {
    /// The lines, each ended by a newline.
    text: String,
}

impl Context {
    /// The lines around 1-based line `line` of `text` (`CONTEXT_LINES` each side, each cut to
    /// `LINE_CHARS` characters).
    pub fn around(text: &str, line: usize) -> Context {
        let first = line.saturating_sub(CONTEXT_LINES + 1);
        let lines = text.lines().skip(first).take(line - first + CONTEXT_LINES);
        Context::of(lines.map(|l| l.char_indices().nth(LINE_CHARS).map_or(l, |(at, _)| &l[..at])))
    }

    /// Lines as given, a newline inside one made a blank.
    pub fn of<'a>(lines: impl Iterator<Item = &'a str>) -> Context {
        let mut text = String::new();
        for line in lines {
            text.extend(line.chars().map(|c| if c == '\n' { ' ' } else { c }));
            text.push('\n');
        }
        Context { text }
    }

    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.text.split_terminator('\n')
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

impl Serialize for Context {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.lines())
    }
}

impl<'de> Deserialize<'de> for Context {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Context, D::Error> {
        let lines = Vec::<String>::deserialize(deserializer)?;
        Ok(Context::of(lines.iter().map(String::as_str)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_around_are_kept_cut_and_read_back_as_they_were() {
        let text: String = (1..=60).map(|n| format!("line {n}\n")).collect();
        let context = Context::around(&text, 30);
        let lines: Vec<&str> = context.lines().collect();
        assert_eq!(lines.len(), 2 * CONTEXT_LINES + 1);
        assert_eq!((lines[0], lines[20], lines[40]), ("line 10", "line 30", "line 50"));
        let near_the_start = Context::around("a\n\nb\n", 2);
        assert_eq!(near_the_start.lines().collect::<Vec<_>>(), ["a", "", "b"], "blank lines kept");
        let long = format!("{}\n", "é".repeat(300));
        assert_eq!(Context::around(&long, 1).lines().next().unwrap().chars().count(), LINE_CHARS);
        let json = serde_json::to_string(&near_the_start).unwrap();
        assert_eq!(json, r#"["a","","b"]"#);
        assert_eq!(serde_json::from_str::<Context>(&json).unwrap(), near_the_start);
        let odd: Context = serde_json::from_str(r#"["two\nlines", ""]"#).unwrap();
        assert_eq!(odd.lines().collect::<Vec<_>>(), ["two lines", ""], "a line stays a line");
        assert!(Context::default().is_empty() && Context::default().lines().next().is_none());
    }
}
