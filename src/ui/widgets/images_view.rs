//! The `I` overlay: perftriage's fixed images — tag, size, when made, and the commit variants
//! (with their fixes) that run in them.

use super::popup;
use crate::app::{Action, AppState, KeyMode};
use crate::dataset::results::Stamp;
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, selected: usize, theme: &Theme) {
    let mut lines = vec![Line::styled(
        format!("{:<44} {:>8}  {:<16}  {:<16}  {}", "image", "size", "made", "last run", "fixes"),
        theme.header,
    )];
    if state.runs.images.is_empty() {
        lines.push(Line::styled("No fixed images here (yet): f on a failed commit makes one.", theme.dim));
    }
    for (i, image) in state.runs.images.iter().enumerate() {
        let style = if i == selected { theme.selected } else { theme.text };
        let users = state.board.fixed_by(&image.tag);
        let fixes =
            if users.is_empty() { "— (no commit records it)".to_string() } else { users.join("; ") };
        let made = to_minute(Stamp::from_unix(image.created_unix), "?");
        let size = format!("{:.0} MB", image.size_bytes as f64 / 1e6);
        let last = to_minute(state.board.last_run_in(&image.tag), "—");
        lines.push(Line::styled(
            format!("{:<44} {size:>8}  {made:<16}  {last:<16}  {fixes}", image.tag),
            style,
        ));
    }
    let key = |action| super::hints::key(&state.session.keymap, KeyMode::Images, action);
    let (delete, push, close) = (key(Action::DeleteImage), key(Action::PushImage), key(Action::Close));
    let count = state.runs.images.len();
    let title =
        format!(" Fixed images ({count}) — {delete} delete, {push} push to the registry, {close} closes ");
    let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX).min(area.height);
    popup(frame, area, (140, height), Span::styled(title, theme.header), theme.border, Paragraph::new(lines));
}

/// `2026-11-22 10:00`, or `none`.
fn to_minute(stamp: Option<Stamp>, none: &str) -> String {
    stamp.map_or_else(|| none.to_string(), |s| s.to_string().chars().take(16).collect())
}
