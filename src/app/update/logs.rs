//! The log pane: opening a variant's log, scrolling (scrolling up pauses follow), search and
//! match navigation, error jumps, filters, wrap and save. Lines arrive as messages.

use crate::app::{Action, AppState, Effect, Level, LogKey, LogView, Mode, Prompt, PromptPurpose};
use crate::dataset::{RunStatus, Variant};
use crate::logs::{self, Line};

/// `L`: close the open log; else open the selected commit's latest run panes, else the recorded
/// output of its deciding variant.
pub fn toggle(state: &mut AppState) -> Vec<Effect> {
    if state.log.take().is_some() | state.focus_run.take().is_some() {
        return Vec::new();
    }
    let Some(index) = state.selected_entry() else { return Vec::new() };
    let short = state.entries[index].commit.short.clone();
    if let Some(run) = state.runs.iter().rev().find(|r| r.short == short) {
        state.focus_run = Some((run.run_id.clone(), crate::runs::Pane::Server));
        state.detail_open = false;
        return Vec::new();
    }
    let entry = &state.entries[index];
    let variant = Variant::ALL
        .into_iter()
        .find(|v| entry.variant(*v).outcome.status.is_failure())
        .or_else(|| Variant::ALL.into_iter().find(|v| entry.variant(*v).loaded))
        .unwrap_or(Variant::Human);
    let state_v = entry.variant(variant);
    let key = LogKey { short: entry.commit.short.clone(), variant, run: "recorded".into() };
    let source = state_v.loaded.then(|| state_v.outcome.source.clone()).flatten();
    let text = match (&state_v.outcome.error, state_v.outcome.status) {
        (Some(err), _) => err.clone(),
        (None, RunStatus::NotRun) => "(this variant has not run)".into(),
        (None, _) => "(no output was recorded for this variant)".into(),
    };
    let title =
        format!("{} {} — {}", key.short, variant.name(), source.as_deref().unwrap_or("recorded error text"));
    state.log = Some(LogView::new(key.clone(), title, state.log_ring));
    state.detail_open = false;
    vec![Effect::OpenLog { key, source, text }]
}

pub fn lines(state: &mut AppState, key: &LogKey, lines: Vec<Line>, finished: bool) {
    let Some(view) = state.log.as_mut().filter(|v| &v.key == key) else { return };
    view.append(lines);
    view.finished |= finished;
}

pub fn page(state: &mut AppState, key: &LogKey, first: usize, lines: Vec<Line>) {
    if let Some(view) = state.log.as_mut().filter(|v| &v.key == key) {
        view.page = Some((first, lines));
    }
}

/// The first line on screen.
pub fn top(view: &LogView, rows: usize) -> usize {
    if view.follow { view.ring.total().saturating_sub(rows) } else { view.top }
}

pub fn act(state: &mut AppState, action: Action) -> Option<Vec<Effect>> {
    let rows = state.log_rows();
    if action == Action::OtherPane {
        if let Some((_, pane)) = &mut state.focus_run {
            *pane = match pane {
                crate::runs::Pane::Server => crate::runs::Pane::Benchmark,
                crate::runs::Pane::Benchmark => crate::runs::Pane::Server,
            };
        }
        return Some(Vec::new());
    }
    let last_query = state.last_log_query.clone();
    let view = state.focused_log_mut()?;
    let current = top(view, rows);
    let last_top = view.ring.total().saturating_sub(rows);
    let jump = |view: &mut LogView, to: usize| {
        view.follow = false;
        view.top = to.min(last_top);
    };
    match action {
        Action::Up => jump(view, current.saturating_sub(1)),
        Action::Down => jump(view, current + 1),
        Action::PageUp => jump(view, current.saturating_sub(rows)),
        Action::PageDown => jump(view, current + rows),
        Action::Top => jump(view, 0),
        Action::Bottom => resume(view),
        Action::SearchNext | Action::SearchPrev => {
            to_match(view, current, rows, action == Action::SearchNext)
        }
        Action::NextError | Action::PrevError => to_error(view, current, rows, action == Action::NextError),
        Action::ToggleMatchesOnly => view.only_matches = !view.only_matches,
        Action::CycleLevel => view.min_level = next_level(view.min_level),
        Action::ToggleWrap => view.wrap = !view.wrap,
        Action::SaveLog => return Some(vec![Effect::SaveLog { key: view.key.clone() }]),
        Action::ExpandLines => {
            let lines: Vec<usize> = view
                .visible(rows, current)
                .into_iter()
                .filter(|&n| view.line(n).is_some_and(|l| l.full_chars.is_some()))
                .collect();
            view.wrap = true;
            return Some(if lines.is_empty() {
                Vec::new()
            } else {
                vec![Effect::ExpandLines { key: view.key.clone(), lines }]
            });
        }
        Action::Filter => {
            let text = view.search.as_ref().map_or(last_query, |s| s.query.clone());
            state.mode =
                Mode::Prompt(Prompt { purpose: PromptPurpose::LogSearch, short: String::new(), text });
            return Some(Vec::new());
        }
        Action::ClearFilter => {
            if view.search.take().is_none() {
                state.log = None;
                state.focus_run = None;
            }
            return Some(Vec::new());
        }
        Action::OpenLog => return Some(toggle(state)),
        _ => return None,
    }
    let view = state.focused_log_mut()?;
    Some(fetch_if_needed(view, rows))
}

fn resume(view: &mut LogView) {
    view.follow = true;
    view.new_while_paused = 0;
    view.page = None;
}

/// Ask for older lines when the screen reaches above the ring and the page does not cover it.
fn fetch_if_needed(view: &LogView, rows: usize) -> Vec<Effect> {
    let top = top(view, rows);
    let first_in_memory = view.ring.first();
    if top >= first_in_memory {
        return Vec::new();
    }
    let covered =
        view.page.as_ref().is_some_and(|(first, lines)| *first <= top && top + rows <= first + lines.len());
    if covered {
        return Vec::new();
    }
    let first = top.saturating_sub(rows * 2);
    vec![Effect::ReadLog { key: view.key.clone(), first, count: rows * 5 }]
}

/// Keep a third of the screen above the target line, so it is seen in context.
fn show(view: &mut LogView, line: usize, rows: usize) {
    view.follow = false;
    view.top = line.saturating_sub(rows / 3).min(view.ring.total().saturating_sub(rows));
}

fn to_match(view: &mut LogView, current: usize, rows: usize, forward: bool) {
    let Some(search) = &view.search else { return };
    let from = search.current.unwrap_or(current + rows / 3);
    let next = if forward {
        search.matches.range(from + 1..).next().or_else(|| search.matches.iter().next())
    } else {
        search.matches.range(..from).next_back().or_else(|| search.matches.iter().next_back())
    };
    let Some((&line, _)) = next else { return };
    if let Some(search) = &mut view.search {
        search.current = Some(line);
    }
    show(view, line, rows);
}

fn to_error(view: &mut LogView, current: usize, rows: usize, forward: bool) {
    let from = current + rows / 3;
    let found = if forward {
        view.ring.iter_from(from + 1).find(|(_, l)| l.is_error()).map(|(n, _)| n)
    } else {
        let first = view.ring.first();
        (first..from.min(view.ring.total())).rev().find(|&n| view.ring.get(n).is_some_and(Line::is_error))
    };
    if let Some(line) = found {
        show(view, line, rows);
    }
}

fn next_level(level: Option<logs::Level>) -> Option<logs::Level> {
    match level {
        None => Some(logs::Level::Info),
        Some(logs::Level::Debug | logs::Level::Info) => Some(logs::Level::Warning),
        Some(logs::Level::Warning) => Some(logs::Level::Error),
        Some(logs::Level::Error) => None,
    }
}

/// Live-update the log search while typing: the ring only.
pub fn search(state: &mut AppState, query: &str) {
    let Some(view) = state.focused_log_mut() else { return };
    match view.set_search(query) {
        Ok(()) => {}
        Err(note) => state.message = Some((Level::Warn, note)),
    }
    if !query.is_empty() {
        state.last_log_query = query.to_string();
    }
}

/// Submit the search: the ring at once, and the older spooled lines in the background.
pub fn submit_search(state: &mut AppState, query: &str) -> Vec<Effect> {
    search(state, query);
    let Some(view) = state.focused_log_mut() else { return Vec::new() };
    match &view.search {
        Some(s) if !s.spool_done => {
            vec![Effect::SearchLog {
                key: view.key.clone(),
                query: s.regex.as_str().to_string(),
                upto: view.ring.first(),
            }]
        }
        _ => Vec::new(),
    }
}

pub fn search_hits(
    state: &mut AppState,
    key: &LogKey,
    query: &str,
    hits: Vec<(usize, Vec<(usize, usize)>)>,
    done: bool,
) {
    let Some(view) = state.log.as_mut().filter(|v| &v.key == key) else { return };
    if let Some(search) = view.search.as_mut().filter(|s| s.regex.as_str() == query) {
        search.merge(hits, done);
    }
}
