//! A campaign's cell the morning after (built by `campaigns::morning` from the journal), and its
//! forms: a line of text, a markdown row, a CSV line.

use crate::dataset::Variant;
use crate::ids::{ImageRef, RunId, Short};
use serde::Serialize;

/// One (commit, variant) of a campaign, the morning after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MorningRow {
    pub short: Short,
    pub variant: Variant,
    /// `ok`, `left`, `running`, `to fix`, `to retry`, `queued`, `to run again`.
    pub state: &'static str,
    /// What the state needs said: why it is left, the recipe to apply, the run in flight.
    pub why: Option<String>,
    /// The image its last run ran in (its launch record), or the fixed image the campaign made.
    pub image: Option<ImageRef>,
    /// The fixes in that image.
    pub fixes: Vec<String>,
    pub runs: Vec<RunId>,
    /// Its runs' time, launch to end, summed.
    pub run_s: i64,
    /// The last run's result file.
    pub result: Option<String>,
    pub category: Option<String>,
    /// For a cell left: what a person does next.
    pub next: Option<String>,
}

impl MorningRow {
    /// `image fix1, fix2` (the image alone without fixes), or `—`: a table's image cell.
    pub fn image_cell(&self) -> String {
        let image = self.image.as_ref().map(|i| format!("{i} {}", self.fixes.join(", ")));
        image.map_or("—".to_string(), |i| i.trim().to_string())
    }

    /// The cell as the morning table prints it: a head line (commit, variant, state, runs, time,
    /// image and fixes), then its why, result file (`within` the workspace, shortened) and next
    /// step, each indented under the image.
    pub fn lines(&self, within: Option<&std::path::Path>) -> Vec<String> {
        let image = match (&self.image, self.fixes.is_empty()) {
            (Some(image), true) => image.to_string(),
            (Some(image), false) => format!("{image} [fixed: {}]", self.fixes.join(", ")),
            (None, _) => "—".into(),
        };
        let runs = match self.runs.len() {
            1 => "1 run ".to_string(),
            n => format!("{n} runs"),
        };
        let (short, variant, state) = (&self.short, self.variant.name(), self.state);
        let mut lines = vec![format!(
            "{short:<9} {variant:<8} {state:<12} {runs:>7} {:>7}  {image}",
            duration(self.run_s)
        )];
        let indent = " ".repeat(48);
        let result = self.result.as_deref().map(|r| shortened(r, within));
        let said = [("why", self.why.clone()), ("result", result), ("next", self.next.clone())];
        lines.extend(said.into_iter().filter_map(|(k, v)| Some(format!("{indent}{k:<6} {}", v?))));
        lines
    }
}

/// A path inside `within`, relative to it.
fn shortened(path: &str, within: Option<&std::path::Path>) -> String {
    let inside = within.and_then(|w| std::path::Path::new(path).strip_prefix(w).ok());
    inside.map_or_else(|| path.to_string(), |p| p.display().to_string())
}

/// `0h03`.
pub fn hours(seconds: i64) -> String {
    format!("{}h{:02}", seconds / 3600, seconds % 3600 / 60)
}

/// `42s`, `3m05s`, `2h10`.
pub fn duration(seconds: i64) -> String {
    match seconds {
        ..60 => format!("{seconds}s"),
        60..3600 => format!("{}m{:02}s", seconds / 60, seconds % 60),
        _ => hours(seconds),
    }
}

/// The rows as CSV, one line per (commit, variant), a header first; fields quoted where they need it.
pub fn csv(rows: &[MorningRow]) -> String {
    let mut out = String::from("short,variant,state,image,fixes,runs,run_s,result,category,why,next\n");
    for row in rows {
        let fields = [
            row.short.to_string(),
            row.variant.name().to_string(),
            row.state.to_string(),
            row.image.as_ref().map(ToString::to_string).unwrap_or_default(),
            row.fixes.join(" "),
            row.runs.len().to_string(),
            row.run_s.to_string(),
            row.result.clone().unwrap_or_default(),
            row.category.clone().unwrap_or_default(),
            row.why.clone().unwrap_or_default(),
            row.next.clone().unwrap_or_default(),
        ];
        let quoted: Vec<String> = fields.iter().map(|f| super::format::csv_quote(f)).collect();
        out.push_str(&quoted.join(","));
        out.push('\n');
    }
    out
}
