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
    let lines = lines(snapshot, theme);
    let height = area.height.saturating_sub(2);
    let last_top = super::cells(lines.len()).saturating_sub(height.saturating_sub(2));
    let scroll = state.session.help_scroll.min(last_top);
    let key = |action| super::hints::key(&state.session.keymap, KeyMode::Campaign, action);
    let (down, up, close) = (key(Action::MenuDown), key(Action::MenuUp), key(Action::Close));
    let verbs = [Action::CampaignPause, Action::CampaignResume, Action::CampaignCancel].map(key);
    let [pause, resume, cancel] = &verbs;
    let (older, newer) = (key(Action::CampaignNext), key(Action::CampaignPrevious));
    let title = format!(
        " {} — {down}/{up} scroll, {pause} pause, {resume} resume, {cancel} cancel, {older}/{newer} older/newer \
         campaign, {close} closes ",
        snapshot.headline
    );
    let body = Paragraph::new(lines).scroll((scroll, 0));
    popup(frame, area, (150, height), Span::styled(title, theme.header), theme.border, body);
}

fn lines(snapshot: &Snapshot, theme: &Theme) -> Vec<Line<'static>> {
    let mut variants: Vec<String> = Vec::new();
    for cell in snapshot.cells.iter().take_while(|c| c.short == snapshot.cells[0].short) {
        variants.push(cell.variant.name().to_string());
    }
    let head: String = variants.iter().map(|v| format!("{v:<COLUMN$}")).collect();
    let mut lines = vec![Line::styled(format!("{:<9} {head}", "commit"), theme.header)];
    for row in snapshot.cells.chunks(variants.len().max(1)) {
        lines.push(commit_line(row, theme));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(format!("runs ({}), in launch order", snapshot.runs.len()), theme.header));
    lines.extend(snapshot.runs.iter().map(|run| Line::styled(run_line(run), theme.text)));
    lines
}

fn commit_line(row: &[CellLine], theme: &Theme) -> Line<'static> {
    let mut spans = vec![Span::styled(format!("{:<9} ", row[0].short), theme.text)];
    for cell in row {
        let style = match cell.standing.chars().next() {
            Some('✓') => theme.ok,
            Some('✗') => theme.fail,
            Some('↻') => theme.warn,
            _ => theme.dim,
        };
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
