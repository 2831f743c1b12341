//! Bottom line: the prompt being typed, else the last message, else key hints from the live key map.

use crate::app::{Action, AppState, Level, Mode, PromptPurpose};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let line = if let Mode::Prompt(prompt) = &state.mode {
        let label = match prompt.purpose {
            PromptPurpose::Filter => "/".to_string(),
            PromptPurpose::LogSearch => "log search (regex) /".to_string(),
            PromptPurpose::UnfixableReason => {
                format!("Unfixable reason for {} (Enter: review, Esc: cancel): ", prompt.short)
            }
            PromptPurpose::Note => {
                format!("Note for {} (Enter: save, Esc: cancel): ", prompt.short)
            }
        };
        Line::from(vec![
            Span::styled(label, theme.accent),
            Span::raw(prompt.text.clone()),
            Span::styled("█", theme.dim),
        ])
    } else if let Some((level, text)) = &state.message {
        let style = match level {
            Level::Info => theme.text,
            Level::Warn => theme.warn,
            Level::Error => theme.error,
        };
        Line::from(Span::styled(text.clone(), style))
    } else {
        hints(state, theme)
    };
    frame.render_widget(Paragraph::new(line), area);
}

fn hints(state: &AppState, theme: &Theme) -> Line<'static> {
    let mut spans = Vec::new();
    // Help first, so the way to every other key survives a narrow terminal.
    let order = std::iter::once(Action::Help).chain(Action::ALL.into_iter().filter(|a| *a != Action::Help));
    for action in order {
        let (Some(label), Some(key)) =
            (action.footer_label(), state.keymap.keys_for(action).first().copied())
        else {
            continue;
        };
        spans.push(Span::styled(key.to_string(), theme.accent));
        spans.push(Span::styled(format!(" {label}  "), theme.dim));
    }
    Line::from(spans)
}
