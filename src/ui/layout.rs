//! Screen regions. Wide terminals put the detail pane beside the board, narrow ones below it.

use ratatui::layout::{Constraint, Direction, Layout, Rect};

/// Below this (columns, rows) the board is replaced by a "terminal too small" screen.
pub const MIN_SIZE: (u16, u16) = (60, 12);
const SIDE_BY_SIDE_WIDTH: u16 = 140;

pub struct Areas {
    pub header: Rect,
    pub board: Rect,
    pub detail: Option<Rect>,
    pub gpu: Option<Rect>,
    pub footer: Rect,
}

/// Where the detail (or log) pane goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    None,
    /// Beside the board on wide terminals, below it on narrow ones.
    Beside,
    /// In the board's place (a document).
    Whole,
}

/// `gpu_rows`: height of the GPU pane above the footer (0 hides it).
pub fn split(area: Rect, pane: Pane, gpu_rows: u16) -> Areas {
    let gpu_rows = gpu_rows.min(area.height / 2);
    let [header, body, gpu, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(gpu_rows),
        Constraint::Length(1),
    ])
    .areas(area);
    let gpu = (gpu_rows > 0).then_some(gpu);
    match pane {
        Pane::None => return Areas { header, board: body, detail: None, gpu, footer },
        Pane::Whole => return Areas { header, board: Rect::default(), detail: Some(body), gpu, footer },
        Pane::Beside => {}
    }
    let (direction, split) = if area.width >= SIDE_BY_SIDE_WIDTH {
        (Direction::Horizontal, [Constraint::Percentage(55), Constraint::Percentage(45)])
    } else {
        (Direction::Vertical, [Constraint::Percentage(50), Constraint::Percentage(50)])
    };
    let parts = Layout::default().direction(direction).constraints(split).split(body);
    Areas { header, board: parts[0], detail: Some(parts[1]), gpu, footer }
}
