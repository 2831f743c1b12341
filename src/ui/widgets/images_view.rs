//! The `I` overlay: perftriage's fixed images — tag, size, when made, and the commit variants
//! (with their fixes) that run in them; another workspace's image says whose it is.

use super::popup;
use crate::app::{Action, AppState, KeyMode, ListedImage};
use crate::dataset::results::Stamp;
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, selected: usize, theme: &Theme) {
    let width =
        state.runs.images.iter().map(|i| i.image.tag.chars().count()).max().unwrap_or(0).clamp(44, 72);
    let mut lines = vec![Line::styled(
        format!("{:<width$} {:>8}  {:<16}  {:<16}  {}", "image", "size", "made", "last run", "fixes"),
        theme.header,
    )];
    if state.runs.images.is_empty() {
        lines.push(Line::styled("No fixed images here (yet): f on a failed commit makes one.", theme.dim));
    }
    for (i, listed) in state.runs.images.iter().enumerate() {
        let style = if i == selected { theme.selected } else { theme.text };
        lines.push(Line::styled(row(state, listed, width), style));
        if let Some(elsewhere) = &listed.elsewhere {
            lines.push(Line::styled(format!("  {}: d refuses it", elsewhere.describe()), theme.dim));
        }
    }
    let key = |action| super::hints::key(&state.session.keymap, KeyMode::Images, action);
    let (delete, push, close) = (key(Action::DeleteImage), key(Action::PushImage), key(Action::Close));
    let count = state.runs.images.len();
    let title =
        format!(" Fixed images ({count}) — {delete} delete, {push} push to the registry, {close} closes ");
    let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX).min(area.height);
    popup(frame, area, (140, height), Span::styled(title, theme.header), theme.border, Paragraph::new(lines));
}

/// An image's row: tag, size, when made, the newest run in it, and what it fixes for whom.
fn row(state: &AppState, listed: &ListedImage, width: usize) -> String {
    let image = &listed.image;
    let users = state.board.fixed_by(&image.tag);
    let fixes = match (&listed.elsewhere, users.is_empty()) {
        (Some(_), _) => "— (another workspace's, below)".to_string(),
        (None, true) => "— (no commit records it)".to_string(),
        (None, false) => users.join("; "),
    };
    let made = to_minute(Stamp::from_unix(image.created_unix), "?");
    let size = format!("{:.0} MB", image.size_bytes as f64 / 1e6);
    let last = to_minute(state.board.last_run_in(&image.tag), "—");
    format!("{:<width$} {size:>8}  {made:<16}  {last:<16}  {fixes}", image.tag)
}

/// `2026-11-22 10:00`, or `none`.
fn to_minute(stamp: Option<Stamp>, none: &str) -> String {
    stamp.map_or_else(|| none.to_string(), |s| s.to_string().chars().take(16).collect())
}
