//! Shown instead of the board when the terminal is smaller than `MIN_SIZE`.

use crate::ui::{MIN_SIZE, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, Wrap};

pub fn render(frame: &mut Frame, area: Rect, theme: &Theme) {
    let text = format!(
        "Terminal too small: {}×{}.\nperftriage needs at least {}×{}.\nEnlarge the window, or press q to quit.",
        area.width, area.height, MIN_SIZE.0, MIN_SIZE.1
    );
    frame.render_widget(Paragraph::new(text).style(theme.warn).wrap(Wrap { trim: true }), area);
}
