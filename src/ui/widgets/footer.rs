//! Bottom line: the prompt being typed, else the last message, else key hints from the live key map.

use crate::app::{Action, AppState, KeyMode, Level, Mode, Prompt, PromptPurpose};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let line = match (&state.mode, &state.session.message) {
        (Mode::Prompt(prompt), _) => prompt_line(state, prompt, theme),
        (_, Some((level, text))) => {
            let style = match level {
                Level::Info => theme.text,
                Level::Warn => theme.warn,
                Level::Error => theme.error,
            };
            Line::from(Span::styled(text.clone(), style))
        }
        _ => hints(state, theme),
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// The prompt being typed, with its submit and cancel keys from the key map.
fn prompt_line(state: &AppState, prompt: &Prompt, theme: &Theme) -> Line<'static> {
    let key = |action| super::hints::key(&state.session.keymap, KeyMode::Prompt, action);
    let (submit, close) = (key(Action::Submit), key(Action::Close));
    let label = match prompt.purpose {
        PromptPurpose::Filter => "/".to_string(),
        PromptPurpose::LogSearch => "log search (regex) /".to_string(),
        PromptPurpose::UnfixableReason => {
            format!("Unfixable reason for {} ({submit}: review, {close}: cancel): ", prompt.short)
        }
        PromptPurpose::Note => format!("Note for {} ({submit}: save, {close}: cancel): ", prompt.short),
        PromptPurpose::Command => ":".to_string(),
        PromptPurpose::BuildKnobs => format!(
            "Build {} with (max_jobs= nvcc_threads= timeout_s= cuda_arch=; {submit}: plan, {close}: cancel): ",
            prompt.short
        ),
    };
    Line::from(vec![
        Span::styled(label, theme.accent),
        Span::raw(prompt.text.clone()),
        Span::styled("█", theme.dim),
    ])
}

fn hints(state: &AppState, theme: &Theme) -> Line<'static> {
    super::hints::line(&state.session.keymap, state.key_mode(), theme)
}
