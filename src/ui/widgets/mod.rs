//! One widget per file; each takes the state (or a small part of it) and the theme.

pub mod action_menu;
pub mod board;
pub mod build_pane;
pub mod campaign_view;
pub mod chooser;
pub mod confirm;
pub mod debug_pane;
pub mod detail;
pub mod fix_menu;
pub mod footer;
pub mod gpu_pane;
pub mod header;
pub mod help;
pub mod hints;
pub mod images_view;
pub mod log_pane;
pub mod messages;
pub mod run_panes;
pub mod runs_view;
pub mod strip;
pub mod three_way;
pub mod too_small;
pub mod verdict_plot;

use crate::dataset::RunStatus;
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

/// A verdict's style and word.
pub fn verdict_style(verdict: crate::metrics::Verdict, theme: &Theme) -> (Style, &'static str) {
    let style = match verdict {
        crate::metrics::Verdict::Beats => theme.better,
        crate::metrics::Verdict::Worse => theme.worse,
        crate::metrics::Verdict::Similar => theme.tie,
        crate::metrics::Verdict::Undecided => theme.warn,
    };
    (style, verdict.word())
}

pub fn status_style(status: RunStatus, theme: &Theme) -> Style {
    match status {
        RunStatus::Success => theme.ok,
        RunStatus::Error => theme.fail,
        RunStatus::Timeout => theme.timeout,
        RunStatus::Skipped => theme.skip,
        RunStatus::NotRun => theme.not_run,
    }
}

/// A centred rectangle of at most `width`×`height` inside `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    area.centered(Constraint::Length(width.min(area.width)), Constraint::Length(height.min(area.height)))
}

/// Draw a popup: clear a centred rectangle and put `body` in a bordered block titled `title`.
pub fn popup(
    frame: &mut Frame,
    area: Rect,
    size: (u16, u16),
    title: Span<'static>,
    border: Style,
    body: Paragraph,
) {
    let rect = centered(area, size.0, size.1);
    let block = Block::default().borders(Borders::ALL).border_style(border).title(title);
    frame.render_widget(Clear, rect);
    frame.render_widget(body.block(block), rect);
}

/// A row or column count for layout: counts beyond the screen are clamped.
pub fn cells(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}
