//! The log pane: opening a variant's log, scrolling (scrolling up pauses follow), search and
//! match navigation, error jumps, filters, wrap and save. Lines arrive as messages.

use crate::app::{
    Action, AppState, Effect, Focus, Level, LogId, LogKey, LogMsg, LogView, Mode, Prompt, PromptPurpose,
};
use crate::dataset::{RunStatus, Variant};
use crate::logs::{self, Line};
use crate::runs::Pane;

/// `L`: close the open log; else open the selected commit's latest run panes, else the recorded
/// output of its deciding variant. An opened log takes focus.
pub fn toggle(state: &mut AppState) -> Vec<Effect> {
    if state.logs.is_open() {
        close(state);
        return Vec::new();
    }
    let Some(index) = state.board.selected_entry() else { return Vec::new() };
    let short = state.board.entries[index].commit.short.clone();
    state.board.detail_open = false;
    state.focus = Focus::Log;
    if let Some(run) = state.runs.list.iter().rev().find(|r| *r.short() == short) {
        state.logs.run_pane = Some((run.run_id.clone(), Pane::Server));
        return Vec::new();
    }
    let campaign_run = state.session.campaign.as_ref().and_then(|c| c.running_of(&short));
    if let Some(run_id) = campaign_run.map(|r| r.run_id.clone()) {
        return super::campaign_view::open_log(state, &run_id);
    }
    open_recorded(state, index)
}

fn close(state: &mut AppState) {
    state.logs.close();
    state.focus = Focus::Board;
}

fn open_recorded(state: &mut AppState, index: usize) -> Vec<Effect> {
    let entry = &state.board.entries[index];
    let variant = entry
        .newest_failing()
        .or_else(|| Variant::ALL.into_iter().find(|v| entry.variant(*v).loaded))
        .unwrap_or(Variant::Human);
    open_variant(state, index, variant)
}

/// The recorded output of one variant of a commit.
fn open_variant(state: &mut AppState, index: usize, variant: Variant) -> Vec<Effect> {
    let entry = &state.board.entries[index];
    let recorded = entry.variant(variant);
    let key = LogKey { short: entry.commit.short.clone(), variant, log: LogId::Recorded };
    let source = recorded.loaded.then(|| recorded.outcome.source.clone()).flatten();
    let text = match (&recorded.outcome.error, recorded.outcome.status) {
        (Some(err), _) => err.clone(),
        (None, RunStatus::NotRun) => "(this variant has not run)".into(),
        (None, _) => "(no output was recorded for this variant)".into(),
    };
    let title =
        format!("{} {} — {}", key.short, variant.name(), source.as_deref().unwrap_or("recorded error text"));
    state.logs.show(LogView::new(key.clone(), title, state.logs.ring));
    vec![Effect::OpenLog { key, source, text, ring: state.logs.ring }]
}

pub fn message(state: &mut AppState, msg: LogMsg) -> Vec<Effect> {
    match msg {
        LogMsg::Lines { key, lines, skipped, finished } => {
            if let Some(view) = recorded(state, &key) {
                view.skip(skipped);
                view.append(lines);
                view.finished |= finished;
            }
        }
        LogMsg::Page { key, first, lines } => {
            if let Some(view) = recorded(state, &key) {
                view.page = Some((first, lines));
            }
        }
        LogMsg::Expanded { key, n, line } => {
            if let Some(view) = recorded(state, &key) {
                view.replace(n, line);
            }
        }
        LogMsg::SearchHits { key, query, hits, done } => search_hits(state, &key, &query, hits, done),
    }
    Vec::new()
}

/// The open log of `key`, shown or behind the shown one.
fn recorded<'a>(state: &'a mut AppState, key: &LogKey) -> Option<&'a mut LogView> {
    state.logs.view_mut(key)
}

fn top(view: &LogView, rows: usize) -> usize {
    view.top_line(rows)
}

/// A log-pane action on the focused log.
pub fn act(state: &mut AppState, action: Action) -> Vec<Effect> {
    match action {
        Action::OtherPane => other_pane(state),
        Action::LogSearch => open_search(state),
        Action::CloseLog => close_or_clear(state),
        Action::ShowBaseline | Action::ShowHuman | Action::ShowAgent => show_variant(state, action),
        _ => {
            let rows = state.log_rows();
            match state.focused_log_mut() {
                Some(view) => view_action(view, action, rows),
                None => Vec::new(),
            }
        }
    }
}

/// `b`/`h`/`a` in a recorded log: that variant's output instead.
fn show_variant(state: &mut AppState, action: Action) -> Vec<Effect> {
    let variant = match action {
        Action::ShowBaseline => Variant::Baseline,
        Action::ShowHuman => Variant::Human,
        _ => Variant::Agent,
    };
    let of_run =
        state.logs.run_pane.as_ref().and_then(|(id, _)| state.runs.get(id)).map(|r| r.short().clone());
    let short = of_run.or_else(|| state.logs.recorded.as_ref().map(|v| v.key.short.clone()));
    let Some(index) = short.and_then(|s| state.board.entry_index(&s)) else { return Vec::new() };
    state.logs.run_pane = None;
    open_variant(state, index, variant)
}

/// `o`: a run's other pane, or the next fix or build log open behind the shown one.
fn other_pane(state: &mut AppState) -> Vec<Effect> {
    if state.logs.next_behind() {
        return Vec::new();
    }
    if let Some((_, pane)) = &mut state.logs.run_pane {
        *pane = match pane {
            Pane::Server => Pane::Benchmark,
            Pane::Benchmark => Pane::Server,
        };
    }
    Vec::new()
}

/// `/` on a log: an empty prompt (what is typed is the new query, never appended to the last;
/// ↑ brings the last one back).
fn open_search(state: &mut AppState) -> Vec<Effect> {
    if state.focused_log_mut().is_none() {
        return Vec::new();
    }
    state.mode = Mode::Prompt(Prompt::new(PromptPurpose::LogSearch, "", String::new()));
    Vec::new()
}

/// Esc: clear the search, else close the log.
fn close_or_clear(state: &mut AppState) -> Vec<Effect> {
    let cleared = state.focused_log_mut().is_some_and(|v| v.search.take().is_some());
    if !cleared {
        close(state);
    }
    Vec::new()
}

fn view_action(view: &mut LogView, action: Action, rows: usize) -> Vec<Effect> {
    let current = top(view, rows);
    let last_top = view.ring.total().saturating_sub(rows);
    let jump = |view: &mut LogView, to: usize| {
        view.follow = false;
        view.top = to.min(last_top);
    };
    match action {
        Action::ScrollUp => jump(view, current.saturating_sub(1)),
        Action::ScrollDown => jump(view, current + 1),
        Action::ScrollPageUp => jump(view, current.saturating_sub(rows)),
        Action::ScrollPageDown => jump(view, current + rows),
        Action::ScrollTop => jump(view, 0),
        Action::Follow => resume(view),
        Action::SearchNext | Action::SearchPrev => {
            to_match(view, current, rows, action == Action::SearchNext)
        }
        Action::NextError | Action::PrevError => to_error(view, current, rows, action == Action::NextError),
        Action::ToggleMatchesOnly => view.only_matches = !view.only_matches,
        Action::CycleLevel => view.min_level = next_level(view.min_level),
        Action::ToggleWrap => view.wrap = !view.wrap,
        Action::SaveLog => return vec![Effect::SaveLog { key: view.key.clone() }],
        Action::ExpandLines => return expand(view, rows, current),
        Action::NextSection | Action::PrevSection => {
            to_section(view, current, rows, action == Action::NextSection);
        }
        _ => {}
    }
    fetch_if_needed(view, rows)
}

fn expand(view: &mut LogView, rows: usize, current: usize) -> Vec<Effect> {
    let lines: Vec<usize> = view
        .visible(rows, current)
        .into_iter()
        .filter(|&n| view.line(n).is_some_and(|l| l.full_chars.is_some()))
        .collect();
    view.wrap = true;
    if lines.is_empty() { Vec::new() } else { vec![Effect::ExpandLines { key: view.key.clone(), lines }] }
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

/// The next (or previous) block of error lines: a traceback whose every line says ERROR is one stop.
fn to_error(view: &mut LogView, current: usize, rows: usize, forward: bool) {
    let from = current + rows / 3;
    let is_error = |n: usize| view.ring.get(n).is_some_and(Line::is_error);
    let starts_block = |n: usize| is_error(n) && (n == view.ring.first() || !is_error(n - 1));
    let found = if forward {
        view.ring.iter_from(from + 1).map(|(n, _)| n).find(|&n| starts_block(n))
    } else {
        (view.ring.first()..from.min(view.ring.total())).rev().find(|&n| starts_block(n))
    };
    if let Some(line) = found {
        show(view, line, rows);
    }
}

/// Tab / S-Tab: put the next (previous) section head at the top.
fn to_section(view: &mut LogView, current: usize, rows: usize, forward: bool) {
    let next = if forward {
        view.sections.iter().find(|&&n| n > current)
    } else {
        view.sections.iter().rev().find(|&&n| n < current)
    };
    if let Some(&line) = next {
        view.follow = false;
        view.top = line.min(view.ring.total().saturating_sub(rows));
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
    if let Err(note) = view.set_search(query) {
        state.notify(Level::Warn, note.to_string());
    }
    if !query.is_empty() {
        state.logs.last_query = query.to_string();
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

fn search_hits(
    state: &mut AppState,
    key: &LogKey,
    query: &str,
    hits: Vec<(usize, Vec<(usize, usize)>)>,
    done: bool,
) {
    let Some(view) = recorded(state, key) else { return };
    if let Some(search) = view.search.as_mut().filter(|s| s.regex.as_str() == query) {
        search.merge(hits, done);
    }
}
