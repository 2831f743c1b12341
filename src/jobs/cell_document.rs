//! One campaign cell as a document (Enter on a cell in `O`): its standing, each run with the image
//! and host its launch record names, its files and its result, each fix the campaign tried with
//! the end of its log, and its newest result file. Everything read back is shown cleaned.

use crate::campaigns::{Attempt, CampaignState, FixTry, Lookups, MorningRow};
use crate::dataset::Variant;
use crate::fixes::RecipeBook;
use crate::ids::{CampaignName, Short};
use crate::jobs::journal::Journal;
use std::fmt::Write as _;
use std::path::Path;

/// A fix log's lines shown (its end), and a result file's.
const LOG_TAIL: usize = 40;
const RESULT_LINES: usize = 120;
/// Read no more of a fix log or a result file than this.
const MAX_READ: u64 = 8 << 20;

/// The document of `name`'s cell (`short`, `variant`); `recipes` name a left cell's next step.
pub fn text(
    (workspace, recipes): (&Path, &RecipeBook),
    name: &CampaignName,
    (short, variant): (&Short, Variant),
) -> String {
    let state = match Journal::of(workspace, name).state() {
        Ok(state) => state,
        Err(e) => return format!("campaign {name}: {e}\n"),
    };
    let Some(cell) = state.cells.get(&(short.clone(), variant)) else {
        return format!("campaign {name} has no cell {short} {}\n", variant.name());
    };
    let mut out = format!("campaign {name} · {short} {}\n\n", variant.name());
    out.push_str(&standing(workspace, (&state, recipes), (short, variant)));
    let _ = writeln!(out, "\nruns ({}):", cell.attempts.len());
    cell.attempts.iter().for_each(|a| out.push_str(&run(workspace, a)));
    let _ = writeln!(out, "\nfixes ({}):", cell.fixes.len());
    cell.fixes.iter().for_each(|f| out.push_str(&fix(workspace, (short, variant), f)));
    let newest = cell.last_finish().and_then(|f| f.result.clone());
    out.push_str(&result(newest.as_deref()));
    // Each line cleaned on its own: an escape in a fix log or a result stays text.
    out.lines().map(crate::logs::display_text).map(|l| l + "\n").collect()
}

/// The campaign's morning table: each run's image and fixes from its launch record (cleaned: it is
/// read back), each category's recipe from `recipes`.
pub fn morning_rows(workspace: &Path, state: &CampaignState, recipes: &RecipeBook) -> Vec<MorningRow> {
    with_lookups(workspace, recipes, |look| state.morning(look))
}

/// `then` with the lookups a morning row reads: launch records in `workspace`, and `recipes`.
fn with_lookups<T>(workspace: &Path, recipes: &RecipeBook, then: impl FnOnce(&Lookups<'_>) -> T) -> T {
    let launched_in = |run_id: &crate::ids::RunId| {
        let launch = crate::jobs::launches::read(workspace, run_id).ok()?;
        Some((crate::logs::display_text(launch.plan.image.as_str()).into(), launch.plan.fixes))
    };
    then(&Lookups { launched_in: &launched_in, recipe_for: &|c| recipes.first_answering(c) })
}

/// The cell's line of the morning table.
fn standing(
    workspace: &Path,
    (state, recipes): (&CampaignState, &RecipeBook),
    (short, variant): (&Short, Variant),
) -> String {
    // This cell's row only: its launch records, not every cell's.
    let row = with_lookups(workspace, recipes, |look| state.morning_of(&(short.clone(), variant), look));
    row.map(|r| r.lines(Some(workspace)).join("\n") + "\n").unwrap_or_default()
}

/// A run: when, how it ended, where it ran (its launch record) and the files it left.
fn run(workspace: &Path, attempt: &Attempt) -> String {
    let ended = attempt.finish.as_ref().map_or("running".to_string(), |f| {
        let word =
            f.category.as_ref().map_or(format!("{:?}", f.status).to_lowercase(), |k| k.name().to_string());
        format!("ended {} ({word})", f.at)
    });
    let mut out = format!("  {}  launched {}  {ended}\n", attempt.run_id, attempt.launched);
    match crate::jobs::launches::read(workspace, &attempt.run_id) {
        Ok(launch) => {
            let host = launch.host.as_deref().unwrap_or("this machine");
            let fixes = if launch.plan.fixes.is_empty() {
                String::new()
            } else {
                format!(" [fixed: {}]", launch.plan.fixes.join(", "))
            };
            let _ = writeln!(out, "      image  {}{fixes} on {host}", launch.plan.image);
        }
        Err(e) => {
            let _ = writeln!(out, "      no launch record: {e}");
        }
    }
    let dir = workspace.join("runs").join(attempt.run_id.as_str());
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|f| f.file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let _ = writeln!(out, "      files  {} in {}", files.join(", "), dir.display());
    out
}

/// A fix the campaign tried: its outcome, image, and the end of its newest log in `fixes/`.
fn fix(workspace: &Path, (short, variant): (&Short, Variant), fix: &FixTry) -> String {
    let outcome = if fix.verified { "verified" } else { "did not verify" };
    let image = fix.image.as_ref().map(|i| format!(" → {i}")).unwrap_or_default();
    let mut out = format!("  {} {outcome}{image} at {}\n", fix.recipe, fix.at);
    let prefix = format!("{short}-{}-{}-", variant.name(), fix.recipe);
    let logs = std::fs::read_dir(workspace.join("fixes")).into_iter().flatten().flatten();
    let newest = logs
        .map(|f| f.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix)))
        .max();
    let Some(log) = newest else {
        out.push_str("      no log of it under fixes/\n");
        return out;
    };
    let _ = writeln!(out, "      log {} (its last {LOG_TAIL} lines):", log.display());
    out.push_str(&tail(&log, LOG_TAIL));
    out
}

/// The newest result file, its first lines.
fn result(path: Option<&str>) -> String {
    let Some(path) = path else { return "\nno result file (a set-up error, or no run ended)\n".into() };
    let mut out = format!("\nresult {path}:\n");
    match crate::files::read_regular(Path::new(path), MAX_READ) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let pretty = serde_json::from_str::<serde_json::Value>(&text)
                .and_then(|v| serde_json::to_string_pretty(&v))
                .unwrap_or_else(|_| text.into_owned());
            pretty.lines().take(RESULT_LINES).for_each(|l| {
                let _ = writeln!(out, "  {l}");
            });
        }
        Err(e) => {
            let _ = writeln!(out, "  cannot read it: {e}");
        }
    }
    out
}

/// A file's last `n` lines, indented.
fn tail(path: &Path, n: usize) -> String {
    match crate::files::read_regular(path, MAX_READ) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let lines: Vec<&str> = text.lines().collect();
            lines[lines.len().saturating_sub(n)..].iter().map(|l| format!("        {l}\n")).collect()
        }
        Err(e) => format!("        cannot read it: {e}\n"),
    }
}
