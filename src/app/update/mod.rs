//! `update(state, msg) -> effects`: the only place state changes. One file per area.

mod board;
pub mod fixes;
pub mod logs;
mod prompt;
pub mod runs;
mod triage;

use super::{Action, AppState, Effect, Level, Mode, Msg};

pub fn update(state: &mut AppState, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Key(key) => match &state.mode {
            Mode::Choose(_) => runs::chooser_key(state, key),
            Mode::Fix(_) => fixes::menu_key(state, key),
            Mode::BulkFix { .. } => fixes::bulk_key(state, key),
            Mode::Normal => {
                let action =
                    if state.log_focused() { state.keymap.log_action(key) } else { state.keymap.action(key) };
                match action {
                    Some(action) => act(state, action),
                    None => Vec::new(),
                }
            }
            Mode::Help => {
                state.mode = Mode::Normal;
                Vec::new()
            }
            Mode::Prompt(_) => prompt::key(state, key),
            Mode::Confirm(_) => prompt::confirm_key(state, key),
        },
        Msg::ScrollUp => board::move_by(state, -3),
        Msg::ScrollDown => board::move_by(state, 3),
        Msg::Resize(w, h) => {
            state.size = (w, h);
            Vec::new()
        }
        Msg::Tick(now) => {
            state.now = now;
            state.ticks += 1;
            runs::refresh_live_cells(state);
            Vec::new()
        }
        Msg::Docker(status) => {
            state.docker = status;
            Vec::new()
        }
        Msg::RunPhase { run_id, phase } => {
            runs::phase(state, &run_id, phase);
            Vec::new()
        }
        Msg::RunLines { run_id, pane, lines } => {
            runs::lines(state, &run_id, pane, lines);
            Vec::new()
        }
        Msg::RunFinished { run_id, outcome, verdict } => {
            runs::finished(state, &run_id, outcome, verdict);
            Vec::new()
        }
        Msg::RunFound { run_id, short, variant } => {
            runs::found(state, &run_id, &short, variant);
            Vec::new()
        }
        Msg::Saved(Ok(())) => {
            state.unsaved = false;
            Vec::new()
        }
        Msg::Saved(Err(why)) => {
            state.message = Some((Level::Error, format!("NOT SAVED: {why}")));
            Vec::new()
        }
        Msg::LogLines { key, lines, finished } => {
            logs::lines(state, &key, lines, finished);
            Vec::new()
        }
        Msg::LogPage { key, first, lines } => {
            logs::page(state, &key, first, lines);
            Vec::new()
        }
        Msg::LogLineExpanded { key, n, line } => {
            if let Some(view) = state.log.as_mut().filter(|v| v.key == key) {
                view.replace(n, line);
            }
            Vec::new()
        }
        Msg::LogSearchHits { key, query, hits, done } => {
            logs::search_hits(state, &key, &query, hits, done);
            Vec::new()
        }
        Msg::FixOffers { short, variant, offers } => {
            fixes::offers(state, &short, variant, offers);
            Vec::new()
        }
        Msg::FixDone { short, variant, recipe, outcome, image, log, commit_image } => fixes::done(
            state,
            fixes::FixDoneArgs { short, variant, recipe, outcome, image, log, commit_image },
        ),
        Msg::Gpu(Ok((source, sample))) => {
            state.gpu.record(sample, source, state.ticks);
            runs::refresh_live_cells(state);
            Vec::new()
        }
        Msg::Gpu(Err(why)) => {
            state.gpu.unavailable = Some(why);
            Vec::new()
        }
        Msg::Notice(level, text) => {
            state.message = Some((level, text));
            Vec::new()
        }
    }
}

/// Run an action in normal mode.
pub fn act(state: &mut AppState, action: Action) -> Vec<Effect> {
    state.message = None;
    if state.log_focused()
        && let Some(effects) = logs::act(state, action)
    {
        return effects;
    }
    match action {
        Action::OpenLog => logs::toggle(state),
        Action::StartRun => runs::open_chooser(state),
        Action::CancelRun => runs::ask_cancel(state),
        Action::FixMenu => fixes::open(state),
        Action::GpuPane => {
            state.gpu.visible = !state.gpu.visible;
            Vec::new()
        }
        Action::GpuWindow => {
            state.gpu.window = state.gpu.window.next();
            Vec::new()
        }
        Action::GpuFaster | Action::GpuSlower => {
            let ms = state.gpu.interval_ms;
            let next = if action == Action::GpuFaster {
                (ms / 2).max(crate::gpu::FLOOR_MS)
            } else {
                (ms * 2).min(60_000)
            };
            state.gpu.interval_ms = next;
            state.message = Some((Level::Info, format!("GPU sampling every {next} ms")));
            vec![Effect::GpuInterval(next)]
        }
        Action::Pick => fixes::pick(state),
        Action::BulkFix => {
            let recipes = state.recipes.clone();
            fixes::open_bulk(state, &recipes)
        }
        Action::Quit => {
            state.quitting = true;
            vec![Effect::Quit]
        }
        Action::Help => {
            state.mode = Mode::Help;
            Vec::new()
        }
        Action::Filter => prompt::open_filter(state),
        Action::MarkUnfixable | Action::AddNote => prompt::open_for_selected(state, action),
        Action::MarkSkip | Action::ClearMark => triage::quick_mark(state, action),
        _ => board::navigate(state, action),
    }
}
