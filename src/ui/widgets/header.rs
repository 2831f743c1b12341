//! Top line: the view tabs with their counts, the active filter and sort, runs, workspace state.

use crate::app::{AppState, DockerStatus, View};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let mut spans = vec![Span::styled("perftriage ", theme.accent)];
    for (i, view) in View::ALL.iter().enumerate() {
        let label = format!(" {} {} ", view.title(), state.board.view_counts[i]);
        let style = if *view == state.board.view { theme.tab_active } else { theme.text };
        spans.push(Span::styled(label, style));
    }
    spans.extend(loading_span(state, theme));
    spans.extend(board_spans(state, theme));
    spans.extend(runtime_spans(state, theme));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// While the result files are read: how many of how many, and how fast.
fn loading_span(state: &AppState, theme: &Theme) -> Option<Span<'static>> {
    let p = state.board.loading?;
    let text = match p.total {
        0 => "  finding result files…".to_string(),
        total => format!("  reading results {}/{total} ({:.0} files/s)…", p.read, p.files_per_second()),
    };
    Some(Span::styled(text, theme.warn))
}

/// Sort, agent and filter (naming a filter field that does not exist).
fn board_spans(state: &AppState, theme: &Theme) -> Vec<Span<'static>> {
    let board = &state.board;
    let arrow = if board.sort_reverse { "↑" } else { "↓" };
    let mut spans = vec![Span::styled(format!("  sort:{}{arrow}", board.sort.title()), theme.dim)];
    if let Some(agent) = &board.agent {
        spans.push(Span::styled(format!("  agent:{agent}"), theme.accent));
    }
    if board.query.is_empty() {
        return spans;
    }
    spans.push(Span::styled(format!("  filter:{}", board.query.text), theme.accent));
    spans.push(Span::styled(format!(" ({} shown)", board.visible.len()), theme.dim));
    if let Some(warning) = board.query.unknown_field_warning() {
        spans.push(Span::styled(format!("  {warning}"), theme.warn));
    }
    spans
}

/// Runs, Docker, GPUs and the workspace.
fn runtime_spans(state: &AppState, theme: &Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let running = state.runs.list.iter().filter(|r| r.is_active()).count();
    let queued = state.runs.queue.len();
    if running + queued > 0 {
        spans.push(Span::styled(format!("  runs: {running} running, {queued} queued"), theme.accent));
    }
    if let Some(campaign) = &state.session.campaign {
        spans.push(Span::styled(format!("  {}", campaign.headline), theme.accent));
    }
    spans.extend(host_spans(state, theme));
    spans.push(match &state.runs.docker {
        DockerStatus::Connecting => Span::styled("  Docker: connecting…", theme.dim),
        DockerStatus::Connected(d) => Span::styled(format!("  Docker: connected ({d})"), theme.dim),
        DockerStatus::Unreachable(why) => Span::styled(format!("  Docker: unreachable: {why}"), theme.warn),
    });
    if let Some(why) = &state.gpu.unavailable {
        let cut: String = why.chars().take(60).collect();
        spans.push(Span::styled(format!("  GPU: unavailable — {cut}"), theme.dim));
    }
    for (on, word) in [(state.session.read_only, "  READ-ONLY"), (state.session.unsaved, "  UNSAVED")] {
        if on {
            spans.push(Span::styled(word, theme.warn));
        }
    }
    spans
}

/// `hosts: local ●1/2 gpu2 ●0/1 8gpu gone ✗` — each `[[hosts]]` engine: runs of its slots and
/// GPUs when it answers, a cross when it does not.
fn host_spans(state: &AppState, theme: &Theme) -> Vec<Span<'static>> {
    if state.runs.hosts.is_empty() {
        return Vec::new();
    }
    let mut spans = vec![Span::styled("  hosts:", theme.dim)];
    for h in &state.runs.hosts {
        let style = if h.down.is_some() { theme.warn } else { theme.dim };
        spans.push(Span::styled(format!(" {}", h.summary()), style));
    }
    spans
}
