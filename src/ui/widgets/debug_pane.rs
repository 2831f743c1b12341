//! The tool's own log (tui-logger's records: Docker, runs, cleanups, the lock), newest at the
//! bottom, from the chosen level up.

use crate::app::AppState;
use crate::logs::Level;
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders};
use tui_logger::{TuiLoggerLevelOutput, TuiLoggerWidget, TuiWidgetState};

/// Rows the pane takes when shown.
pub const HEIGHT: u16 = 10;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let level = match state.session.debug_level {
        Level::Debug => log::LevelFilter::Debug,
        Level::Info => log::LevelFilter::Info,
        Level::Warning => log::LevelFilter::Warn,
        Level::Error => log::LevelFilter::Error,
    };
    let filter = TuiWidgetState::new().set_default_display_level(level);
    let title = format!(" perftriage log ({} and up) ", level.as_str().to_lowercase());
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border)
        .title(Span::styled(title, theme.header));
    let widget = TuiLoggerWidget::default()
        .block(block)
        .state(&filter)
        .output_level(Some(TuiLoggerLevelOutput::Abbreviated))
        .output_target(false)
        .output_file(false)
        .output_line(false)
        .style(theme.text)
        .style_warn(theme.warn)
        .style_error(theme.error)
        .style_debug(theme.dim);
    frame.render_widget(widget, area);
}
