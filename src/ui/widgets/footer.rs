//! Bottom line: the prompt being typed, else the last message, else key hints from the live key
//! map, those of the selected row's state first, as many as fit.

use crate::app::{Action, AppState, KeyMode, Level, Mode, Prompt, PromptPurpose};
use crate::dataset::CommitStatus;
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let line = match (&state.mode, &state.session.message) {
        (Mode::Prompt(prompt), _) => prompt_line(state, prompt, usize::from(area.width), theme),
        (_, Some((level, text))) => {
            let style = match level {
                Level::Info => theme.text,
                Level::Warn => theme.warn,
                Level::Error => theme.error,
            };
            Line::from(Span::styled(text.clone(), style))
        }
        _ => hints(state, usize::from(area.width), theme),
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// The prompt being typed, with its submit and cancel keys from the key map; past the width the
/// text scrolls, its end (where typing goes on) kept in view.
fn prompt_line(state: &AppState, prompt: &Prompt, width: usize, theme: &Theme) -> Line<'static> {
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
    let room = width.saturating_sub(label.width() + 1);
    let text = tail_fitting(&prompt.text, room);
    let mut line =
        Line::from(vec![Span::styled(label, theme.accent), Span::raw(text), Span::styled("█", theme.dim)]);
    // A filter naming no field is said as it is typed, after the cursor (the line clips it).
    let hint = (prompt.purpose == PromptPurpose::Filter).then(|| state.board.query.unknown_field_warning());
    if let Some(hint) = hint.flatten() {
        line.push_span(Span::styled(format!("  {hint}"), theme.warn));
    }
    line
}

/// The end of `text` that fits `width` columns, `…` first where its start is cut.
fn tail_fitting(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut used = 1;
    let mut start = text.len();
    for (i, c) in text.char_indices().rev() {
        used += c.width().unwrap_or(0);
        if used > width {
            break;
        }
        start = i;
    }
    if width == 0 { String::new() } else { format!("…{}", &text[start..]) }
}

/// The keys of the mode; on the board, those the selected row calls for first.
fn hints(state: &AppState, width: usize, theme: &Theme) -> Line<'static> {
    let mode = state.key_mode();
    let first = if mode == KeyMode::Board { row_actions(state) } else { Vec::new() };
    super::hints::fitted(&state.session.keymap, mode, &first, width, theme)
}

/// The board keys for the selected row's state, most useful first: picked commits, a live run,
/// then by the commit's status; its two documents and the images view after those.
fn row_actions(state: &AppState) -> Vec<Action> {
    use Action::*;
    let mut first = Vec::new();
    if !state.board.picked.is_empty() {
        first.extend([BulkFix, StartCampaign, Pick]);
    }
    let Some(index) = state.board.selected_entry() else { return first };
    let entry = &state.board.entries[index];
    if state.runs.live().any(|r| *r.short() == entry.commit.short) {
        first.extend([OpenLog, CancelRun, RunsView]);
    }
    first.extend(match entry.status() {
        CommitStatus::Failed => &[FixMenu, OpenLog, StartRun, MarkUnfixable, BulkFix, ToggleDetail][..],
        CommitStatus::NotRun => &[StartRun, BuildBaseline, ToggleDetail],
        _ => &[ToggleDetail, StartRun, OpenLog],
    });
    if state.board.book.mark(&entry.commit.short).is_some() {
        first.push(ClearMark);
    }
    first.extend([PatchView, AgentRunView, ImagesView]);
    first
}
