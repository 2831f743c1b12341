//! One widget per file; each takes the state (or a small part of it) and the theme.

pub mod board;
pub mod chooser;
pub mod confirm;
pub mod detail;
pub mod fix_menu;
pub mod footer;
pub mod gpu_pane;
pub mod header;
pub mod help;
pub mod log_pane;
pub mod run_panes;
pub mod too_small;

use crate::dataset::RunStatus;
use crate::ui::Theme;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::Style;

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
    let [row] =
        Layout::vertical([Constraint::Length(height.min(area.height))]).flex(Flex::Center).areas(area);
    let [cell] =
        Layout::horizontal([Constraint::Length(width.min(area.width))]).flex(Flex::Center).areas(row);
    cell
}
