//! The `R` overlay: every run of this session, newest first — commit, variant, phase (with a
//! failure's category and words), elapsed time, image and container.

use super::popup;
use crate::app::{Action, AppState, KeyMode, RunView, compact_duration};
use crate::runs::RunPhase;
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, selected: usize, theme: &Theme) {
    let mut lines = vec![Line::styled(
        format!("{:<8} {:<9} {:<30} {:>5}  {}", "commit", "variant", "phase", "time", "image · container"),
        theme.header,
    )];
    let own = state.runs.list.len();
    if own == 0 && state.session.campaign.is_none() {
        lines.push(Line::styled("No runs yet: r on a commit starts one.", theme.dim));
    }
    for (i, run) in state.runs.list.iter().rev().enumerate() {
        let style = if i == selected { theme.selected } else { theme.text };
        lines.push(Line::styled(row(run, state.session.ticks), style));
    }
    lines.extend(campaign_rows(state, selected.checked_sub(own), theme));
    let key = |action| super::hints::key(&state.session.keymap, KeyMode::Runs, action);
    let (open, cancel, close) = (key(Action::OpenLog), key(Action::CancelRun), key(Action::Close));
    let (running, queued) = (state.runs.active(), state.runs.queue.len());
    let theirs = state.session.campaign_runs().filter(|r| r.in_flight()).count();
    let campaign = if state.session.campaign.is_some() {
        format!(", the campaign's {theirs} running")
    } else {
        String::new()
    };
    let title = format!(
        " Runs: {running} running, {queued} queued here{campaign} — {open} logs, {cancel} cancel, {close} closes "
    );
    let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX).min(area.height);
    popup(frame, area, (140, height), Span::styled(title, theme.header), theme.border, Paragraph::new(lines));
}

/// The workspace campaign's runs, newest first, below this board's own (they run in the
/// campaign's process: its journal says how they went; a run in flight, its launch record where):
/// `selected` counts from the first of them.
fn campaign_rows(state: &AppState, selected: Option<usize>, theme: &Theme) -> Vec<Line<'static>> {
    let Some(snapshot) = &state.session.campaign else { return Vec::new() };
    let view = super::hints::key(&state.session.keymap, KeyMode::Board, Action::CampaignView);
    let title = format!("{} — its runs, newest first ({view}: by commit and variant)", snapshot.headline);
    let mut lines = vec![Line::raw(""), Line::styled(title, theme.header)];
    for (i, run) in state.session.campaign_runs().enumerate() {
        let style = if Some(i) == selected { theme.selected } else { theme.text };
        lines.push(Line::styled(campaign_row(run), style));
    }
    lines
}

/// `short variant word time  image @ host · container`, or `run <id>` for a run that ended.
fn campaign_row(run: &crate::campaigns::RunLine) -> String {
    let time = run.seconds.map_or("…".into(), |s| compact_duration(u64::try_from(s).unwrap_or(0)));
    let word: String = run.word.chars().take(30).collect();
    let whereabouts = match &run.placed {
        Some(p) => {
            let host = p.host.as_deref().unwrap_or("local");
            let container = crate::runs::container_name(run.short.as_str(), run.variant, &run.run_id);
            format!("{} @ {host} · {container}", p.image)
        }
        None => format!("run {}", run.run_id),
    };
    format!("{:<8} {:<9} {word:<30} {time:>5}  {whereabouts}", run.short, run.variant.name())
}

fn row(run: &RunView, ticks: u64) -> String {
    let phase = match &run.phase {
        RunPhase::Failed { category, message } => format!("failed: {category} — {message}"),
        RunPhase::Done { metrics } => format!("done: {} metrics", metrics.len()),
        RunPhase::Slurm { job_id, state, .. } => format!("job {job_id}: {state}"),
        other => other.word().to_string(),
    };
    let phase: String = phase.chars().take(30).collect();
    let elapsed = compact_duration(run.elapsed(ticks));
    let image = run.image.as_deref().or(run.request.image.as_deref()).unwrap_or("(no container yet)");
    let container = crate::runs::container_name(run.short(), run.variant(), &run.run_id);
    format!("{:<8} {:<9} {phase:<30} {elapsed:>5}  {image} · {container}", run.short(), run.variant().name())
}
