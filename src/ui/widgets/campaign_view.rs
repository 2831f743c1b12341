//! The `O` overlay: the workspace's campaign by commit and variant (each cell's standing in a
//! word), then every run it launched with its time — as its journal said at the last read.

use super::popup;
use crate::app::{Action, AppState, KeyMode, compact_duration};
use crate::campaigns::{CellLine, RunLine, Snapshot};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// A variant's column: wide enough for `✗ patch_fail: the same …`.
const COLUMN: usize = 40;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let Some(snapshot) = &state.session.campaign else { return };
    let lines = lines(snapshot, state.session.campaign_cell, theme);
    let height = area.height.saturating_sub(2);
    let last_top = super::cells(lines.len()).saturating_sub(height.saturating_sub(2));
    let scroll = state.session.help_scroll.min(last_top);
    let key = |action| super::hints::key(&state.session.keymap, KeyMode::Campaign, action);
    let (down, up, close) = (key(Action::MenuDown), key(Action::MenuUp), key(Action::Close));
    let verbs = [Action::CampaignPause, Action::CampaignResume, Action::CampaignCancel].map(key);
    let [pause, resume, cancel] = &verbs;
    let (older, newer) = (key(Action::CampaignNext), key(Action::CampaignPrevious));
    let open = key(Action::OpenLog);
    let title = format!(
        " {} — {down}/{up} cell, {open} opens it, {pause} pause, {resume} resume, {cancel} cancel, {older}/{newer} older/newer \
         campaign, {close} closes ",
        snapshot.headline
    );
    let body = Paragraph::new(lines).scroll((scroll, 0));
    popup(frame, area, (150, height), Span::styled(title, theme.header), theme.border, body);
}

fn lines(snapshot: &Snapshot, selected: usize, theme: &Theme) -> Vec<Line<'static>> {
    let per_row = snapshot.variants_asked().max(1);
    let variants = snapshot.cells.iter().take(per_row).map(|c| c.variant.name());
    let head: String = variants.map(|v| format!("{v:<COLUMN$}")).collect();
    let mut lines = vec![Line::styled(format!("{:<9} {head}", "commit"), theme.header)];
    for (i, row) in snapshot.cells.chunks(per_row).enumerate() {
        let chosen = (selected / per_row == i).then_some(selected % per_row);
        lines.push(commit_line(row, chosen, theme));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(format!("runs ({}), in launch order", snapshot.runs.len()), theme.header));
    lines.extend(snapshot.runs.iter().map(|run| Line::styled(run_line(run), theme.text)));
    lines
}

/// A commit's line; `chosen`: its cell selected (Enter opens it).
fn commit_line(row: &[CellLine], chosen: Option<usize>, theme: &Theme) -> Line<'static> {
    let mut spans = vec![Span::styled(format!("{:<9} ", row[0].short), theme.text)];
    for (i, cell) in row.iter().enumerate() {
        let style = match cell.standing.chars().next() {
            Some('✓') => theme.ok,
            Some('✗') => theme.fail,
            Some('↻') => theme.warn,
            _ => theme.dim,
        };
        let style = if chosen == Some(i) { theme.selected } else { style };
        let text: String = cell.standing.chars().take(COLUMN - 1).collect();
        spans.push(Span::styled(format!("{text:<COLUMN$}"), style));
    }
    Line::from(spans)
}

fn run_line(run: &RunLine) -> String {
    let time = run.seconds.map_or("…".to_string(), |s| compact_duration(u64::try_from(s).unwrap_or(0)));
    let word: String = run.word.chars().take(24).collect();
    format!("{:<9} {:<9} {word:<24} {time:>6}  {}", run.short, run.variant.name(), run.run_id)
}
