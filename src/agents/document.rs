//! The board's two documents as text for the log pane: the human's and the agent's patches file
//! by file (side by side or stacked, files both changed marked, diff lines coloured with SGR), and
//! an agent run (its summary, then a line per step). A file's head starts with `SECTION_MARK`,
//! which the pane's Tab and S-Tab jump between.

use super::diff::{DiffStats, FileChange};
use super::source::Patch;
use super::summary::RunSummary;
use super::trajectory::{SHOWN_LINE, Step};
use std::fmt::Write;

/// What a section head starts with.
pub const SECTION_MARK: &str = "▶ ";

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const ADDED: &str = "\x1b[32m";
const REMOVED: &str = "\x1b[31m";
const HUNK: &str = "\x1b[36m";
const SHARED: &str = "\x1b[33m";
/// The widest tool column of the steps list (longer names overflow it).
const MAX_TOOL: usize = 28;
/// Spaces a tab takes in a diff line.
const TAB: &str = "    ";

/// One side's patch, or why there is none.
pub type Side<'a> = Result<&'a Patch, String>;

/// How the two patches are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Human on the left, agent on the right, each this many characters wide.
    SideBySide(usize),
    /// Human's lines, then agent's, under each file's head.
    Stacked,
}

/// `patches: human +120 −40 in 3 files · agent +221 −221 in 3 files (2 shared)`.
pub fn patches_line(human: Option<&DiffStats>, agent: Option<&DiffStats>) -> String {
    let side = |s: Option<&DiffStats>| s.map_or_else(|| "none found".to_string(), DiffStats::summary);
    let shared = match human.zip(agent) {
        Some((h, a)) => format!(" ({} shared)", h.shared_paths(a).len()),
        None => String::new(),
    };
    format!("human {} · agent {}{shared}", side(human), side(agent))
}

/// The 3-way diff view's text.
pub fn patches(human: Side, agent: Side, layout: Layout) -> String {
    let mut out = String::new();
    for (name, side) in [("human", &human), ("agent", &agent)] {
        let _ = match side {
            Ok(p) => writeln!(out, "{BOLD}{name}{RESET}  {}  {}", p.stats.summary(), p.source),
            Err(why) => writeln!(out, "{BOLD}{name}{RESET}  no patch: {why}"),
        };
    }
    let (h, a) = (human.ok(), agent.ok());
    let shared = match h.zip(a) {
        Some((h, a)) => h.stats.shared_paths(&a.stats).into_iter().map(str::to_string).collect(),
        None => Vec::new(),
    };
    let _ = writeln!(out, "{SHARED}both changed {} file(s){RESET} {}", shared.len(), shared.join(", "));
    out.push_str("Tab / S-Tab: next / previous file · /: search\n");
    for path in union(h, a) {
        let (hf, af) = (file_of(h, &path), file_of(a, &path));
        file_section(&mut out, &path, [(h.is_some(), hf), (a.is_some(), af)], layout);
    }
    out
}

/// The human's files in its order, then the agent's others.
fn union(human: Option<&Patch>, agent: Option<&Patch>) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for patch in [human, agent].into_iter().flatten() {
        for file in &patch.stats.files {
            if !paths.contains(&file.path) {
                paths.push(file.path.clone());
            }
        }
    }
    paths
}

/// A file of one side and that side's diff text.
type FileOf<'a> = Option<(&'a FileChange, &'a str)>;

fn file_of<'a>(patch: Option<&'a Patch>, path: &str) -> FileOf<'a> {
    let patch = patch?;
    patch.stats.files.iter().find(|f| f.path == path).map(|f| (f, patch.text.as_str()))
}

/// A file's section; each side says whether that side has a patch at all.
fn file_section(out: &mut String, path: &str, sides: [(bool, FileOf); 2], layout: Layout) {
    let both = if sides.iter().all(|(_, f)| f.is_some()) {
        format!("  {SHARED}◆ both{RESET}")
    } else {
        String::new()
    };
    let _ = writeln!(out, "{SECTION_MARK}{BOLD}{path}{RESET}{both}");
    let [human, agent] = sides;
    let [human, agent] = [("human", human), ("agent", agent)]
        .map(|(name, (has_patch, side))| (counts(name, side.map(|s| s.0), has_patch), body(side)));
    match layout {
        Layout::SideBySide(width) => side_by_side(out, [human, agent], width),
        Layout::Stacked => {
            for (head, lines) in [human, agent] {
                let _ = writeln!(out, "  {BOLD}{head}{RESET}");
                for line in lines {
                    let _ = writeln!(out, "  {}", coloured(&line, None));
                }
            }
        }
    }
}

/// `human +2 −1`, `agent (not changed)`; `human (no patch)` where that side has none to compare
/// (the head of the view says why).
fn counts(name: &str, file: Option<&FileChange>, has_patch: bool) -> String {
    match file {
        Some(f) if f.binary => format!("{name} binary change"),
        Some(f) => format!("{name} +{} −{}", f.added, f.removed),
        None if has_patch => format!("{name} (not changed)"),
        None => format!("{name} (no patch)"),
    }
}

/// A file's hunk lines, tabs widened.
fn body(side: FileOf) -> Vec<String> {
    let Some((file, text)) = side else { return Vec::new() };
    let lines = text.lines().skip(file.body.start).take(file.body.len());
    lines.map(|l| l.replace('\t', TAB)).collect()
}

fn side_by_side(out: &mut String, sides: [(String, Vec<String>); 2], width: usize) {
    let [(left_head, left), (right_head, right)] = sides;
    let _ = writeln!(out, "{BOLD}{}{RESET} │ {BOLD}{right_head}{RESET}", pad(&left_head, width));
    for i in 0..left.len().max(right.len()) {
        let left = left.get(i).map_or_else(|| " ".repeat(width), |l| coloured(l, Some(width)));
        let right = right.get(i).map(|l| coloured(&cut(l, width), None)).unwrap_or_default();
        let _ = writeln!(out, "{left} │ {right}");
    }
}

/// A diff line in its colour, cut and padded to `width` characters where one is given.
fn coloured(line: &str, width: Option<usize>) -> String {
    let colour = match line.as_bytes().first() {
        Some(b'+') => ADDED,
        Some(b'-') => REMOVED,
        Some(b'@') => HUNK,
        _ => "",
    };
    let text = width.map_or_else(|| line.to_string(), |w| pad(line, w));
    if colour.is_empty() { text } else { format!("{colour}{text}{RESET}") }
}

fn pad(text: &str, width: usize) -> String {
    format!("{:<width$}", cut(text, width))
}

fn cut(text: &str, width: usize) -> String {
    text.chars().take(width).collect()
}

/// The agent run pane's text: the summary, then a line per step.
pub fn agent_run(summary: &RunSummary, steps: &[Step]) -> String {
    let mut out = String::new();
    for line in summary.lines() {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "{SECTION_MARK}{BOLD}steps ({}){RESET}", steps.len());
    if let Some(wt) = &summary.worktree {
        let _ = writeln!(out, "paths are relative to the worktree {wt}");
    }
    let tool_width = steps.iter().map(|s| s.tool.chars().count()).max().unwrap_or(0).min(MAX_TOOL);
    for step in steps {
        let at = step.at.as_deref().map_or("-", time_of);
        let shown = |text: &str| cut(&summary.relative(text), SHOWN_LINE);
        let result =
            if step.result.is_empty() { String::new() } else { format!("  → {}", shown(&step.result)) };
        let _ = writeln!(
            out,
            "{:>4}  {at:<8}  {HUNK}{:<tool_width$}{RESET}  {}{result}",
            step.number,
            step.tool,
            shown(&step.input)
        );
    }
    out
}

/// `2025-11-04T10:03:04.123` → `10:03:04`; anything else as it is.
fn time_of(timestamp: &str) -> &str {
    match timestamp.split_once('T') {
        Some((_, time)) => time.get(..8).unwrap_or(time),
        None => timestamp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Variant;

    fn patch(text: &str) -> Patch {
        let stats = super::super::diff::parse(text).unwrap();
        Patch { variant: Variant::Agent, source: "p.diff".into(), text: text.into(), stats }
    }

    const HUMAN: &str = "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n keep\n-two\n+2\n--- a/c.py\n+++ b/c.py\n@@ -1 +1 @@\n-x\n+y\n";
    const AGENT: &str =
        "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-one\n+1\n--- a/b.py\n+++ b/b.py\n@@ -0,0 +1 @@\n+new\n";

    fn plain(text: &str) -> String {
        regex::Regex::new("\x1b\\[[0-9;]*m").unwrap().replace_all(text, "").into_owned()
    }

    #[test]
    fn side_by_side_puts_each_files_human_lines_left_and_agent_lines_right() {
        let (h, a) = (patch(HUMAN), patch(AGENT));
        let text = plain(&patches(Ok(&h), Ok(&a), Layout::SideBySide(20)));
        let heads: Vec<&str> = text.lines().filter(|l| l.starts_with(SECTION_MARK)).collect();
        assert_eq!(heads, ["▶ a.py  ◆ both", "▶ c.py", "▶ b.py"], "{text}");
        assert!(text.contains("both changed 1 file(s) a.py"), "{text}");
        let row = |l: &str, r: &str| format!("{l:<20} │ {r}\n");
        let a =
            ["human +1 −1", "agent +1 −1", "@@ -1,2 +1,2 @@", "@@ -1 +1 @@", " keep", "-one", "-two", "+1"];
        let a: String = a.chunks(2).map(|p| row(p[0], p[1])).collect::<String>() + &row("+2", "");
        assert!(text.contains(&format!("▶ a.py  ◆ both\n{a}▶ c.py\n")), "{text}");
        let b = [("human (not changed)", "agent +1 −0"), ("", "@@ -0,0 +1 @@"), ("", "+new")];
        let b: String = b.iter().map(|(l, r)| row(l, r)).collect();
        assert!(text.ends_with(&format!("▶ b.py\n{b}")), "{text}");
    }

    #[test]
    fn stacked_puts_the_humans_lines_above_the_agents_and_says_why_a_side_is_missing() {
        let h = patch(HUMAN);
        let text = plain(&patches(Ok(&h), Err("no agent run names it".into()), Layout::Stacked));
        assert!(text.contains("agent  no patch: no agent run names it"), "{text}");
        assert!(
            text.contains(
                "▶ a.py\n  human +1 −1\n  @@ -1,2 +1,2 @@\n   keep\n  -two\n  +2\n  agent (no patch)\n▶ c.py"
            ),
            "{text}"
        );
        assert!(text.contains("both changed 0 file(s)"), "{text}");
    }

    #[test]
    fn lines_are_coloured_by_their_diff_role() {
        let a = patch(AGENT);
        let text = patches(Err("none".into()), Ok(&a), Layout::Stacked);
        assert!(
            text.contains(&format!("{REMOVED}-one{RESET}")) && text.contains(&format!("{ADDED}+1{RESET}"))
        );
        assert!(text.contains(&format!("{HUNK}@@ -1 +1 @@{RESET}")), "{text:?}");
    }

    #[test]
    fn the_detail_line_counts_both_sides_and_what_they_share() {
        let (h, a) = (patch(HUMAN), patch(AGENT));
        assert_eq!(
            patches_line(Some(&h.stats), Some(&a.stats)),
            "human +2 −2 in 2 files · agent +2 −1 in 2 files (1 shared)"
        );
        assert_eq!(patches_line(None, Some(&a.stats)), "human none found · agent +2 −1 in 2 files");
    }
}
