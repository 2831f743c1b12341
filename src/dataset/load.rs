//! Reading the dataset JSONL: the embedded copy or a file, with line-numbered errors.

use super::Commit;
use crate::ids::Short;
use std::collections::HashSet;
use std::path::Path;

/// The 96 ISO-Bench vLLM commits, compiled in (built by fixtures/dataset/build_dataset.py).
pub const EMBEDDED: &str = include_str!("../../fixtures/dataset/isobench_vllm.jsonl");
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("cannot read dataset {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path}: the dataset changed while it was read (its first lines are not what they were)")]
    Changed { path: String },
    #[error("{path}: no usable commit in the dataset{}", first.as_ref().map(|w| format!(" (first problem: {w})")).unwrap_or_default())]
    Empty { path: String, first: Option<String> },
}

/// The commits of a dataset, and a warning (file, line, field) for each row that was skipped.
#[derive(Debug, Default)]
pub struct Dataset {
    pub commits: Vec<Commit>,
    pub warnings: Vec<String>,
}

pub fn load_embedded() -> Result<Dataset, DatasetError> {
    DatasetText::embedded().head(usize::MAX).map(|(head, _)| head)
}

pub fn load_jsonl(path: &Path) -> Result<Dataset, DatasetError> {
    DatasetText::read(path)?.head(usize::MAX).map(|(head, _)| head)
}

/// A dataset's text, read and not yet parsed: its first rows can be parsed before the rest.
pub struct DatasetText {
    text: std::borrow::Cow<'static, str>,
    origin: String,
    /// What the joined cache knows the text by: stat'ed before it was read.
    key: Option<super::joined::DatasetKey>,
    /// The file `text` is the first whole lines of, where it holds more: read when they are
    /// wanted (a board's first frame wants a screenful; a headless command whose entries come
    /// from the joined cache, none).
    rest: Option<std::path::PathBuf>,
}

/// How much of a dataset file is read at first: rows for far more than a screen.
const HEAD_BYTES: usize = 1 << 20;

/// The rows after a dataset's head, parsed later (on another thread: the board draws the head).
pub struct DatasetTail {
    source: DatasetText,
    /// Where the tail starts: its byte offset, and the lines before it (the next line's number
    /// counting from 1 is one more).
    at: (usize, usize),
    /// The head's commits: a row repeating one is a duplicate here too.
    seen: HashSet<Short>,
}

impl DatasetText {
    pub fn embedded() -> DatasetText {
        let key = Some(super::joined::DatasetKey::Embedded);
        DatasetText { text: EMBEDDED.into(), origin: "<embedded dataset>".into(), key, rest: None }
    }

    /// A dataset file's first whole lines (all of it, if it is short); the rest is read when wanted.
    pub fn read(path: &Path) -> Result<DatasetText, DatasetError> {
        use std::io::Read;
        let key = super::joined::DatasetKey::of(path);
        let failed = |source| DatasetError::Read { path: path.display().to_string(), source };
        let mut start = Vec::with_capacity(HEAD_BYTES);
        let file = std::fs::File::open(path).map_err(failed)?;
        file.take(HEAD_BYTES as u64).read_to_end(&mut start).map_err(failed)?;
        let whole = start.len() < HEAD_BYTES;
        let cut = if whole { Some(start.len()) } else { memchr::memrchr(b'\n', &start).map(|n| n + 1) };
        let mut text = DatasetText { text: "".into(), origin: path.display().to_string(), key, rest: None };
        match cut {
            Some(cut) => {
                start.truncate(cut);
                let invalid =
                    |e: std::string::FromUtf8Error| std::io::Error::new(std::io::ErrorKind::InvalidData, e);
                text.text = String::from_utf8(start).map_err(|e| failed(invalid(e)))?.into();
                text.rest = (!whole).then(|| path.to_path_buf());
            }
            // No line ends in the first megabyte: all of it is read as the head is parsed.
            None => text.rest = Some(path.to_path_buf()),
        }
        Ok(text)
    }

    /// Read the rest of the file, if there is one: it must still start with the lines read.
    fn complete(&mut self) -> Result<(), DatasetError> {
        let Some(path) = self.rest.take() else { return Ok(()) };
        let origin = || self.origin.clone();
        let whole =
            std::fs::read_to_string(&path).map_err(|source| DatasetError::Read { path: origin(), source })?;
        if !whole.starts_with(&*self.text) {
            return Err(DatasetError::Changed { path: origin() });
        }
        self.text = whole.into();
        Ok(())
    }

    /// The first `rows` usable commits (with the warnings of the rows read for them), and the
    /// rest to parse later; an error where the whole text gives no usable commit.
    pub fn head(self, rows: usize) -> Result<(Dataset, DatasetTail), DatasetError> {
        let mut tail = DatasetTail { source: self, at: (0, 0), seen: HashSet::new() };
        let mut head = tail.parse_rows(rows);
        if head.commits.len() < rows && tail.source.rest.is_some() {
            tail.source.complete()?;
            let more = tail.parse_rows(rows - head.commits.len());
            head.commits.extend(more.commits);
            head.warnings.extend(more.warnings);
        }
        if head.commits.is_empty() {
            let (path, first) = (tail.source.origin, head.warnings.first().cloned());
            return Err(DatasetError::Empty { path, first });
        }
        Ok((head, tail))
    }
}

impl DatasetTail {
    /// What the joined cache knows the dataset by (`None`: it cannot).
    pub fn dataset_key(&self) -> Option<&super::joined::DatasetKey> {
        self.source.key.as_ref()
    }

    /// The rows after the head: their commits and warnings. Rows are read on every core, then
    /// checked for repeats in their order.
    pub fn parse(mut self) -> Dataset {
        use rayon::prelude::*;
        let (offset, before) = self.at;
        if let Err(why) = self.source.complete() {
            let warnings = vec![format!("{why}; the rows after line {before} were not read")];
            return Dataset { commits: Vec::new(), warnings };
        }
        let (text, origin) = (&self.source.text, &self.source.origin);
        let lines: Vec<&str> = text[offset..].split_terminator('\n').collect();
        let rows: Vec<Option<Result<Commit, RowError>>> =
            lines.par_iter().map(|line| row(line.trim_end_matches('\r'))).collect();
        let mut set = Dataset::default();
        for (number, row) in (before + 1..).zip(rows) {
            take_row(&mut set, row, &mut self.seen, (origin, number));
        }
        set
    }

    /// Up to `rows` usable commits from where the last parse stopped. Rows that cannot be read
    /// or whose ids could reach a command line or a path are skipped.
    fn parse_rows(&mut self, rows: usize) -> Dataset {
        let mut set = Dataset::default();
        let (text, origin) = (&self.source.text, &self.source.origin);
        let (mut offset, mut number) = self.at;
        while set.commits.len() < rows && offset < text.len() {
            let len =
                memchr::memchr(b'\n', &text.as_bytes()[offset..]).map_or(text.len() - offset, |n| n + 1);
            let line = text[offset..offset + len].trim_end_matches(['\n', '\r']);
            (offset, number) = (offset + len, number + 1);
            take_row(&mut set, row(line), &mut self.seen, (origin, number));
        }
        self.at = (offset, number);
        set
    }
}

/// A line's commit, if it reads and its ids are safe; `None` for a blank line.
fn row(line: &str) -> Option<Result<Commit, RowError>> {
    if line.trim().is_empty() {
        return None;
    }
    let checked = serde_json::from_str::<Commit>(line).map_err(RowError::from);
    Some(checked.and_then(|commit| check_row(&commit).map(|()| commit)))
}

/// A row's commit into `set` unless it repeats one of `seen`; why not, as a warning naming the
/// line.
fn take_row(
    set: &mut Dataset,
    row: Option<Result<Commit, RowError>>,
    seen: &mut HashSet<Short>,
    (origin, number): (&str, usize),
) {
    match row.map(|row| row.and_then(|commit| unseen(commit, seen))) {
        Some(Ok(commit)) => set.commits.push(commit),
        Some(Err(why)) => set.warnings.push(format!("{origin}:{number}: {why}; row skipped")),
        None => {}
    }
}

/// The commit, if it does not repeat one of `seen`.
fn unseen(commit: Commit, seen: &mut HashSet<Short>) -> Result<Commit, RowError> {
    if seen.insert(commit.short.clone()) { Ok(commit) } else { Err(RowError::Duplicate(commit.short)) }
}

/// Why a dataset row is skipped.
#[derive(Debug, thiserror::Error)]
enum RowError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("duplicate commit {0}")]
    Duplicate(Short),
    #[error("schema_version {0} is not supported (expected {SCHEMA_VERSION})")]
    Schema(u32),
    #[error("field `short`: `{}` is not 8 lower-case hex digits", .0.escape_debug())]
    Short(Short),
    #[error("field `full`: `{}` is not the 40-hex commit starting with `{short}`", full.escape_debug())]
    Full { full: String, short: Short },
    #[error("field `parent`: `{}` is not a 40-hex commit", .0.escape_debug())]
    Parent(String),
    #[error("field `item_id`: `{}` is not a plain file name", .0.escape_debug())]
    ItemId(String),
}

/// Hex commit ids (8 and 40 characters) and a plain file-name `item_id`: nothing that git could
/// take for an option or a path could climb out of a folder with.
fn check_row(c: &Commit) -> Result<(), RowError> {
    if c.schema_version != SCHEMA_VERSION {
        return Err(RowError::Schema(c.schema_version));
    }
    let hex = |s: &str, len: usize| {
        s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    if !hex(&c.short, 8) {
        return Err(RowError::Short(c.short.clone()));
    }
    if !hex(&c.full, 40) || !c.full.starts_with(c.short.as_str()) {
        return Err(RowError::Full { full: c.full.clone(), short: c.short.clone() });
    }
    if let Some(parent) = c.parent.as_deref().filter(|p| !hex(p, 40)) {
        return Err(RowError::Parent(parent.to_string()));
    }
    match c.item_id.as_deref() {
        Some(item) if !crate::dataset::is_plain_name(item) => Err(RowError::ItemId(item.to_string())),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dataset file of `rows`.
    fn text(rows: &[&str]) -> DatasetText {
        DatasetText { text: rows.join("\n").into(), origin: "d.jsonl".into(), key: None, rest: None }
    }

    #[test]
    fn a_head_and_its_tail_read_every_row_once_with_the_lines_named_where_they_are() {
        let good: Vec<&str> = EMBEDDED.lines().take(4).collect();
        let rows = [good[0], "{\"short\": 1}", good[1], "", good[2], good[0], good[3]];
        let whole = text(&rows).head(usize::MAX).unwrap().0;
        let (head, tail) = text(&rows).head(2).unwrap();
        let rest = tail.parse();
        let shorts = |d: &Dataset| d.commits.iter().map(|c| c.short.to_string()).collect::<Vec<_>>();
        assert_eq!([shorts(&head), shorts(&rest)].concat(), shorts(&whole));
        assert_eq!(shorts(&head).len(), 2, "the head stops at its rows");
        assert_eq!([head.warnings.clone(), rest.warnings.clone()].concat(), whole.warnings);
        assert!(head.warnings[0].starts_with("d.jsonl:2: "), "{:?}", head.warnings);
        let repeat = &rest.warnings[0];
        assert!(repeat.starts_with("d.jsonl:6: duplicate commit"), "a repeat of a head row: {repeat}");
    }

    #[test]
    fn a_text_with_no_usable_row_is_an_error_however_many_rows_the_head_asks_for() {
        for rows in [1, 5] {
            let Err(error) = text(&["", "{\"short\": 1}", "not json"]).head(rows) else { panic!("no error") };
            assert!(error.to_string().contains("(first problem: d.jsonl:2: "), "{error}");
        }
    }

    /// A dataset file of `n` distinct commits (about 1.5 KB a row, the embedded first row's
    /// fields), line `bad` not JSON.
    fn big_file(dir: &Path, n: usize, bad: usize) -> std::path::PathBuf {
        let first = EMBEDDED.lines().next().unwrap_or_default();
        let mut row: serde_json::Value = serde_json::from_str(first).unwrap_or_default();
        let lines: Vec<String> = (1..=n)
            .map(|line| {
                let full = format!("{line:08x}{}", "0".repeat(32));
                (row["short"], row["full"]) = (full[..8].into(), full.as_str().into());
                if line == bad { "{not json".into() } else { row.to_string() }
            })
            .collect();
        let path = dir.join("big.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap_or_default();
        path
    }

    #[test]
    fn a_file_over_the_head_size_is_read_in_two_parts_as_it_reads_whole() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = big_file(dir.path(), 1000, 900);
        let text = DatasetText::read(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(text.rest.is_some() && text.text.len() <= HEAD_BYTES, "only the head read at first");
        let (head, tail) = text.head(1).unwrap_or_else(|e| panic!("{e}"));
        let rest = tail.parse();
        assert_eq!(head.commits.len() + rest.commits.len(), 999);
        assert!(
            rest.warnings.len() == 1 && rest.warnings[0].contains("big.jsonl:900: "),
            "{:?}",
            rest.warnings
        );
    }

    #[test]
    fn a_file_changed_between_its_head_and_its_rest_is_said_and_not_mixed() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = big_file(dir.path(), 1000, 0);
        let (_, tail) = DatasetText::read(&path).and_then(|t| t.head(1)).unwrap_or_else(|e| panic!("{e}"));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        std::fs::write(&path, text.replacen("00000001", "0000000f", 1)).unwrap_or_default();
        let rest = tail.parse();
        assert!(rest.commits.is_empty());
        assert!(rest.warnings[0].contains("changed while it was read"), "{:?}", rest.warnings);
    }

    #[test]
    fn bytes_that_are_not_utf_8_after_the_head_are_a_warning() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = big_file(dir.path(), 1000, 0);
        let mut bytes = std::fs::read(&path).unwrap_or_default();
        bytes.extend_from_slice(b"\xff\xfe\n");
        std::fs::write(&path, bytes).unwrap_or_default();
        let (head, tail) = DatasetText::read(&path).and_then(|t| t.head(1)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(head.commits.len(), 1);
        let rest = tail.parse();
        let said = &rest.warnings[0];
        assert!(said.contains("valid UTF-8") && said.contains("after line 1 were not read"), "{said}");
    }
}
