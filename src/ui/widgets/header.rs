//! Top line: the view tabs with their counts, the active filter and sort, workspace state.

use crate::app::{AppState, View};
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
    let arrow = if state.board.sort_reverse { "↑" } else { "↓" };
    spans.push(Span::styled(format!("  sort:{}{arrow}", state.board.sort.title()), theme.dim));
    if let Some(agent) = &state.board.agent {
        spans.push(Span::styled(format!("  agent:{agent}"), theme.accent));
    }
    if !state.board.query.is_empty() {
        spans.push(Span::styled(format!("  filter:{}", state.board.query.text), theme.accent));
        spans.push(Span::styled(format!(" ({} shown)", state.board.visible.len()), theme.dim));
        if let Some(name) = state.board.query.unknown_fields.first() {
            let fields = "cat status model kind gpu mark disp agent";
            spans.push(Span::styled(
                format!("  no field `{name}:` (searched as text; fields: {fields})"),
                theme.warn,
            ));
        }
    }
    let running = state.runs.list.iter().filter(|r| r.is_active()).count();
    let queued = state.runs.queue.len();
    if running + queued > 0 {
        spans.push(Span::styled(format!("  runs: {running} running, {queued} queued"), theme.accent));
    }
    let docker = match &state.runs.docker {
        crate::app::DockerStatus::Connecting => Span::styled("  Docker: connecting…", theme.dim),
        crate::app::DockerStatus::Connected(d) => {
            Span::styled(format!("  Docker: connected ({d})"), theme.dim)
        }
        crate::app::DockerStatus::Unreachable(why) => {
            Span::styled(format!("  Docker: unreachable: {why}"), theme.warn)
        }
    };
    spans.push(docker);
    if let Some(why) = &state.gpu.unavailable {
        let short: String = why.chars().take(60).collect();
        spans.push(Span::styled(format!("  GPU: unavailable — {short}"), theme.dim));
    }
    if state.session.read_only {
        spans.push(Span::styled("  READ-ONLY", theme.warn));
    }
    if state.session.unsaved {
        spans.push(Span::styled("  UNSAVED", theme.warn));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
