//! Unified diffs read for what they change: each file with its added and removed lines (counted
//! by the hunk headers' ranges, so a removed line that reads `--- x` is not taken for a header),
//! binary files named as such, and C/C++/CUDA sources flagged.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileChange {
    pub path: String,
    pub added: usize,
    pub removed: usize,
    /// A binary change (`Binary files … differ`, `GIT binary patch`): no lines to count.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub binary: bool,
    /// The diff's lines (0-based, end excluded) from its first hunk or binary line to its last.
    #[serde(skip)]
    pub body: std::ops::Range<usize>,
}

/// What a diff changes, file by file, in the order it names them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DiffStats {
    pub files: Vec<FileChange>,
    pub added: usize,
    pub removed: usize,
    /// Whether it changes C/C++/CUDA sources (an editable install does not rebuild them).
    pub touches_compiled: bool,
}

impl DiffStats {
    /// Paths both diffs change.
    pub fn shared_paths<'a>(&'a self, other: &'a DiffStats) -> Vec<&'a str> {
        let theirs: std::collections::HashSet<&str> = other.files.iter().map(|f| f.path.as_str()).collect();
        self.files.iter().map(|f| f.path.as_str()).filter(|p| theirs.contains(p)).collect()
    }

    /// `+120 −40 in 3 files`.
    pub fn summary(&self) -> String {
        let files = if self.files.len() == 1 { "file" } else { "files" };
        format!("+{} −{} in {} {files}", self.added, self.removed, self.files.len())
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DiffError {
    #[error("not a unified diff: no file header with a hunk or binary change")]
    NotADiff,
    #[error("line {line}: it names `{path}`, a path outside the source tree")]
    PathOutside { line: usize, path: String },
    #[error("line {line}: it names {path:?}, a path with a control character")]
    PathControl { line: usize, path: String },
    #[error("line {line}: a hunk header that cannot be read: {text}")]
    BadHunk { line: usize, text: String },
}

/// The extensions of sources a Python-only reinstall does not rebuild.
const COMPILED: &[&str] = &["c", "cc", "cpp", "cxx", "h", "hh", "hpp", "cu", "cuh", "inl"];

/// Read a diff. An empty text is an empty change, not an error.
pub fn parse(text: &str) -> Result<DiffStats, DiffError> {
    let mut reader = Reader::default();
    for (index, line) in text.lines().enumerate() {
        reader.line(index + 1, line)?;
    }
    reader.finish(text.trim().is_empty())
}

#[derive(Default)]
struct Reader {
    stats: DiffStats,
    /// Old and new lines the current hunk still has to show.
    left: (usize, usize),
    /// The `--- ` path of a file whose `+++ ` has not come yet.
    old_path: Option<String>,
}

impl Reader {
    fn line(&mut self, n: usize, line: &str) -> Result<(), DiffError> {
        if self.left != (0, 0) {
            self.hunk_line(line);
            self.extend_body(n);
            return Ok(());
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            let (old, new) = git_header_paths(rest);
            check_path(n, &old)?;
            return self.start_file(n, &new);
        }
        if let Some(path) = line.strip_prefix("--- ") {
            let path = header_path(path);
            if path != "/dev/null" {
                check_path(n, &path)?;
            }
            self.old_path = Some(path);
        } else if let Some(path) = line.strip_prefix("+++ ") {
            let path = match header_path(path) {
                null if null == "/dev/null" => self.old_path.take().unwrap_or_default(),
                path => path,
            };
            self.name_file(n, &path)?;
        } else if let Some(path) = RENAME_OR_COPY.iter().find_map(|h| line.strip_prefix(h)) {
            check_path(n, &unquoted(path))?;
        } else if line.starts_with("@@") {
            self.left = hunk_ranges(line).ok_or_else(|| DiffError::BadHunk { line: n, text: line.into() })?;
            self.extend_body(n);
        } else if line.starts_with("Binary files ") || line == "GIT binary patch" {
            self.mark_binary(n)?;
            self.extend_body(n);
        }
        Ok(())
    }

    /// Line `n` (1-based) belongs to the current file's body.
    fn extend_body(&mut self, n: usize) {
        if let Some(file) = self.stats.files.last_mut() {
            if file.body.is_empty() {
                file.body.start = n - 1;
            }
            file.body.end = n;
        }
    }

    fn hunk_line(&mut self, line: &str) {
        let Some(file) = self.stats.files.last_mut() else { return };
        let (old, new) = &mut self.left;
        match line.as_bytes().first() {
            Some(b'+') => (file.added, *new) = (file.added + 1, new.saturating_sub(1)),
            Some(b'-') => (file.removed, *old) = (file.removed + 1, old.saturating_sub(1)),
            // `\ No newline at end of file` belongs to the line before it.
            Some(b'\\') => {}
            _ => (*old, *new) = (old.saturating_sub(1), new.saturating_sub(1)),
        }
    }

    /// A new file from its `diff --git` header.
    fn start_file(&mut self, n: usize, path: &str) -> Result<(), DiffError> {
        check_path(n, path)?;
        self.stats.files.push(FileChange {
            path: path.to_string(),
            added: 0,
            removed: 0,
            binary: false,
            body: 0..0,
        });
        Ok(())
    }

    /// The `+++ ` header: names the file its `diff --git` began, or begins one (a plain diff).
    fn name_file(&mut self, n: usize, path: &str) -> Result<(), DiffError> {
        check_path(n, path)?;
        match self.stats.files.last_mut() {
            Some(file) if file.path == path && file.added + file.removed == 0 => Ok(()),
            _ => self.start_file(n, path),
        }
    }

    /// The file being read changes in binary (one named `?` where no header came before).
    fn mark_binary(&mut self, n: usize) -> Result<(), DiffError> {
        if self.stats.files.is_empty() {
            self.start_file(n, "?")?;
        }
        if let Some(file) = self.stats.files.last_mut() {
            file.binary = true;
        }
        Ok(())
    }

    fn finish(mut self, empty: bool) -> Result<DiffStats, DiffError> {
        if self.stats.files.is_empty() && !empty {
            return Err(DiffError::NotADiff);
        }
        let stats = &mut self.stats;
        (stats.added, stats.removed) =
            stats.files.iter().fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
        stats.touches_compiled = stats.files.iter().any(|f| is_compiled(&f.path));
        Ok(self.stats)
    }
}

/// Git's extended headers that name a path (without `a/` or `b/`).
const RENAME_OR_COPY: [&str; 4] = ["rename from ", "rename to ", "copy from ", "copy to "];

/// `a/vllm/x.py` → `vllm/x.py`, unquoted where git C-quoted it; a tab and what follows (a
/// timestamp) dropped.
fn header_path(text: &str) -> String {
    let path = unquoted(text.split('\t').next().unwrap_or(text).trim_end());
    match path.strip_prefix("a/").or_else(|| path.strip_prefix("b/")) {
        Some(inner) => inner.to_string(),
        None => path,
    }
}

/// Both sides of `diff --git a/OLD b/NEW` (each possibly C-quoted), without `a/` and `b/`.
fn git_header_paths(rest: &str) -> (String, String) {
    if let Some(quoted) = rest.strip_prefix('"') {
        let end = closing_quote(quoted).map_or(rest.len(), |i| i + 2);
        return (header_path(&rest[..end]), header_path(rest[end..].trim_start()));
    }
    match rest.rsplit_once(" b/") {
        Some((old, new)) => (header_path(old), new.to_string()),
        None => (header_path(rest), header_path(rest)),
    }
}

/// Where the quote that closes a C-quoted string is (its text after the opening quote).
fn closing_quote(text: &str) -> Option<usize> {
    let mut escaped = false;
    text.bytes().position(|b| {
        let closes = b == b'"' && !escaped;
        escaped = b == b'\\' && !escaped;
        closes
    })
}

/// A path as git writes it in a header: as it is, or C-quoted (`"a/\303\251.py"`) and decoded
/// here as git does (octal bytes, `\n`, `\t`, `\"`, `\\` …).
fn unquoted(text: &str) -> String {
    let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else {
        return text.to_string();
    };
    let (mut out, mut bytes) = (Vec::new(), inner.bytes().peekable());
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(d @ b'0'..=b'7') => {
                let mut value = u32::from(d - b'0');
                while let Some(&o @ b'0'..=b'7') = bytes.peek().filter(|_| value < 0o40) {
                    value = value * 8 + u32::from(o - b'0');
                    bytes.next();
                }
                out.push(u8::try_from(value).unwrap_or(b'?'));
            }
            Some(c) => out.push(match c {
                b'a' => 7,
                b'b' => 8,
                b't' => b'\t',
                b'n' => b'\n',
                b'v' => 11,
                b'f' => 12,
                b'r' => b'\r',
                other => other,
            }),
            None => {}
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A path that climbs out of the tree, starts at its root or holds a control character is refused.
fn check_path(line: usize, path: &str) -> Result<(), DiffError> {
    if path.chars().any(char::is_control) {
        return Err(DiffError::PathControl { line, path: path.to_string() });
    }
    let outside = path.starts_with('/') || path.split('/').any(|part| part == "..");
    if outside { Err(DiffError::PathOutside { line, path: path.to_string() }) } else { Ok(()) }
}

/// `@@ -12,7 +12,9 @@` → (7, 9); a range without a count is one line.
fn hunk_ranges(line: &str) -> Option<(usize, usize)> {
    let mut words = line.split_whitespace().skip(1);
    let count = |word: Option<&str>, sign: char| -> Option<usize> {
        let range = word?.strip_prefix(sign)?;
        match range.split_once(',') {
            Some((_, n)) => n.parse().ok(),
            None => range.parse::<usize>().ok().map(|_| 1),
        }
    };
    Some((count(words.next(), '-')?, count(words.next(), '+')?))
}

pub fn is_compiled(path: &str) -> bool {
    path.rsplit_once('.').is_some_and(|(_, ext)| COMPILED.contains(&ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_by_the_hunk_ranges_not_by_their_first_character() {
        let diff = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n keep\n--- a removed line\n+++ an added line\n keep\ndiff --git a/csrc/k.cu b/csrc/k.cu\n--- a/csrc/k.cu\n+++ b/csrc/k.cu\n@@ -5 +5,2 @@\n-old\n+new\n+newer\n";
        let stats = parse(diff).unwrap();
        let counts: Vec<_> = stats.files.iter().map(|f| (f.path.as_str(), f.added, f.removed)).collect();
        assert_eq!(counts, [("x.py", 1, 1), ("csrc/k.cu", 2, 1)]);
        let bodies: Vec<_> = stats.files.iter().map(|f| f.body.clone()).collect();
        assert_eq!(bodies, [3..8, 11..15], "from each file's first hunk header to its last line");
        assert_eq!((stats.added, stats.removed, stats.touches_compiled), (3, 2, true));
    }

    #[test]
    fn every_path_a_diff_names_is_checked_quoted_renamed_or_old() {
        let refused = |diff: &str| match parse(diff) {
            Err(DiffError::PathOutside { line, path } | DiffError::PathControl { line, path }) => {
                (line, path)
            }
            other => panic!("{diff:?} was not refused: {other:?}"),
        };
        // git's C-quoted names: `\056` is `.`; it is one file, not two.
        let quoted = "diff --git \"a/\\056\\056/\\056\\056/etc/passwd\" \"b/\\056\\056/\\056\\056/etc/passwd\"\n--- \"a/\\056\\056/\\056\\056/etc/passwd\"\n+++ \"b/\\056\\056/\\056\\056/etc/passwd\"\n@@ -1 +1 @@\n-x\n+y\n";
        assert_eq!(refused(quoted), (1, "../../etc/passwd".into()));
        let rename = "diff --git a/x.py b/y.py\nsimilarity index 100%\nrename from x.py\nrename to ../../etc/cron.d/evil\n";
        assert_eq!(refused(rename), (4, "../../etc/cron.d/evil".into()));
        let old_side = "--- a/../x\n+++ b/x\n@@ -1 +1 @@\n-x\n+y\n";
        assert_eq!(refused(old_side), (1, "../x".into()));
        let control = "diff --git \"a/x\\ny\" \"b/x\\ny\"\n";
        assert_eq!(refused(control), (1, "x\ny".into()));
        // A quoted name that stays inside is read as git writes it: one file.
        let fine = "diff --git \"a/vllm/caf\\303\\251.py\" \"b/vllm/caf\\303\\251.py\"\n--- \"a/vllm/caf\\303\\251.py\"\n+++ \"b/vllm/caf\\303\\251.py\"\n@@ -1 +1 @@\n-x\n+y\n";
        let stats = parse(fine).unwrap();
        assert_eq!(stats.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["vllm/café.py"]);
    }

    #[test]
    fn bad_diffs_say_what_is_wrong_and_where() {
        assert_eq!(parse("hello\nworld\n"), Err(DiffError::NotADiff));
        assert_eq!(parse(""), Ok(DiffStats::default()));
        let climbing = "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-x\n+y\n";
        assert!(matches!(parse(climbing), Err(DiffError::PathOutside { line: 1, .. })), "its old side first");
        let binary =
            "diff --git a/m.bin b/m.bin\nindex 1..2 100644\nBinary files a/m.bin and b/m.bin differ\n";
        assert!(parse(binary).unwrap().files[0].binary);
        assert!(matches!(
            parse("--- a/x\n+++ b/x\n@@ nonsense @@\n"),
            Err(DiffError::BadHunk { line: 3, .. })
        ));
    }
}
