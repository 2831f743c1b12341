//! The event loop: drain messages, update, carry out effects, draw when something changed (≤30 fps).

use super::{Context, events, saver::Saver, terminal};
use crate::app::{AppState, Effect, Level, Msg, update};
use crate::ui::{self, Theme};
use anyhow::Result;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

const FRAME: Duration = Duration::from_millis(33);
const TICK: Duration = Duration::from_secs(1);

pub fn run_tui(ctx: Context, theme: Theme) -> Result<()> {
    let workspace = ctx.open_workspace(true)?;
    let read_only = workspace.store.is_read_only();
    let mut state = AppState::new(ctx.entries, workspace.book, ctx.keymap);
    state.read_only = read_only;
    state.images = ctx.images;
    state.now = super::now_rfc3339();
    state.warnings = ctx.warnings;
    state.message = startup_message(&state, &workspace.report.messages, read_only);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build()?;
    let mut term = terminal::enter()?;
    let size = term.size()?;
    state.size = (size.width, size.height);
    let (tx, rx) = mpsc::unbounded_channel();
    let saver = Saver::spawn(workspace.store, tx.clone());
    events::spawn(tx);
    let result = runtime.block_on(event_loop(&mut term, &mut state, &theme, &saver, rx));
    terminal::leave();
    saver.finish();
    result
}

fn startup_message(state: &AppState, store_messages: &[String], read_only: bool) -> Option<(Level, String)> {
    if let Some(m) = store_messages.first() {
        return Some((Level::Error, m.clone()));
    }
    if read_only {
        return Some((Level::Warn, "another perftriage holds this workspace: the board is read-only".into()));
    }
    match state.warnings.len() {
        0 => None,
        n => Some((Level::Warn, format!("{n} result-file warning(s); first: {}", state.warnings[0]))),
    }
}

async fn event_loop(
    term: &mut terminal::Term,
    state: &mut AppState,
    theme: &Theme,
    saver: &Saver,
    mut rx: mpsc::UnboundedReceiver<Msg>,
) -> Result<()> {
    let mut tick = tokio::time::interval(TICK);
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    loop {
        if dirty && last_draw.elapsed() >= FRAME {
            term.draw(|f| ui::view(f, state, theme))?;
            dirty = false;
            last_draw = Instant::now();
        }
        let until_frame = FRAME.saturating_sub(last_draw.elapsed());
        let first = tokio::select! {
            msg = rx.recv() => match msg { Some(m) => m, None => return Ok(()) },
            _ = tick.tick() => Msg::Tick(super::now_rfc3339()),
            _ = tokio::time::sleep(until_frame), if dirty => continue,
        };
        let mut batch = vec![first];
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
        }
        for msg in batch {
            let quiet = matches!(msg, Msg::Tick(_));
            for effect in update(state, msg) {
                match effect {
                    Effect::SaveTriage(book) => saver.save(book),
                    Effect::Quit => return Ok(()),
                }
            }
            dirty |= !quiet;
        }
    }
}
