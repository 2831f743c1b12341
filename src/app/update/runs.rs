//! Launching and cancelling runs from the board, and what their messages do to it.

use crate::app::runs::RunView;
use crate::app::{AppState, Confirm, ConfirmAction, Effect, Key, KeyCode, Level, Mode};
use crate::dataset::{Outcome, Variant};
use crate::runs::{Pane, RunPhase};

/// `r`: choose baseline, human, agent or all three for the selected commit.
pub fn open_chooser(state: &mut AppState) -> Vec<Effect> {
    if let Some(short) = state.selected_short().map(str::to_string) {
        state.mode = Mode::Choose(short);
    }
    Vec::new()
}

pub fn chooser_key(state: &mut AppState, key: Key) -> Vec<Effect> {
    let Mode::Choose(short) = &state.mode else { return Vec::new() };
    let short = short.clone();
    let variants = match key.code {
        KeyCode::Char('b') => vec![Variant::Baseline],
        KeyCode::Char('h') => vec![Variant::Human],
        KeyCode::Char('a') => vec![Variant::Agent],
        KeyCode::Char('3') => Variant::ALL.to_vec(),
        _ => {
            state.mode = Mode::Normal;
            return Vec::new();
        }
    };
    let Some(index) = state.entry_index(&short) else { return Vec::new() };
    let commit = &state.entries[index].commit;
    let mut preview = Vec::new();
    for v in &variants {
        let image = state.images.image_for(commit, *v).unwrap_or_else(|| "— no parent, no image".into());
        preview.push(format!("{} {}: {image}", v.letter(), v.name()));
    }
    preview.push(format!("command: {}", commit.perf_command.effective().unwrap_or("— none")));
    preview.push(format!(
        "GPUs: {} ({}); runs queue one at a time by default",
        commit.gpu_count(),
        commit.gpu.as_deref().unwrap_or("unknown")
    ));
    let names: Vec<&str> = variants.iter().map(|v| v.name()).collect();
    let title = format!("Run {} of {short}?", names.join(", "));
    state.mode = Mode::Confirm(Confirm {
        title,
        preview,
        action: ConfirmAction::StartRuns { short, variants },
        yes_focused: false,
    });
    Vec::new()
}

/// Confirmed: queue the runs (they start in the order given), each in its fixed image if it has one.
pub fn start(state: &mut AppState, short: &str, variants: &[Variant]) -> Vec<Effect> {
    let mut effects = Vec::new();
    for v in variants {
        let image = state.book.fixed_image(short, v.name());
        let fixes = if image.is_some() { state.book.fixes(short, v.name()) } else { Vec::new() };
        effects.extend(start_with(state, short, &[*v], image, fixes));
    }
    effects
}

pub fn start_with(
    state: &mut AppState,
    short: &str,
    variants: &[Variant],
    image: Option<String>,
    fixes: Vec<String>,
) -> Vec<Effect> {
    let mut effects = Vec::new();
    for variant in variants {
        state.run_counter += 1;
        let run_id = format!("{}{}{}", state.now_compact(), state.session, state.run_counter);
        state.runs.push(RunView::new(&run_id, short, *variant, state.ticks, state.log_ring));
        let (image, fixes) = (image.clone(), fixes.clone());
        effects.push(Effect::StartRun { run_id, short: short.to_string(), variant: *variant, image, fixes });
    }
    refresh_live_cells(state);
    effects
}

/// `x`: cancel the selected commit's live run, after a confirm.
pub fn ask_cancel(state: &mut AppState) -> Vec<Effect> {
    let Some(short) = state.selected_short().map(str::to_string) else { return Vec::new() };
    let Some(run) = state.runs.iter().rev().find(|r| r.short == short && !r.phase.is_finished()) else {
        state.message = Some((Level::Info, format!("{short} has no live run")));
        return Vec::new();
    };
    let preview = vec![
        format!("Run {} ({} {}) is {}.", run.run_id, run.short, run.variant.name(), run.phase.word()),
        "Its container will be stopped and removed; the logs so far are kept.".into(),
    ];
    let title = format!("Cancel {} {}?", run.short, run.variant.name());
    let action = ConfirmAction::CancelRun { run_id: run.run_id.clone() };
    state.mode = Mode::Confirm(Confirm { title, preview, action, yes_focused: false });
    Vec::new()
}

pub fn phase(state: &mut AppState, run_id: &str, phase: RunPhase) {
    let Some(run) = state.runs.iter_mut().find(|r| r.run_id == run_id) else { return };
    let ended = phase.is_finished();
    run.phase = phase;
    let short = run.short.clone();
    // An ended run gives its cell back to the recorded outcome (a result, if any, follows).
    if ended && let Some(index) = state.entry_index(&short) {
        state.rebuild_row(index);
    }
    refresh_live_cells(state);
}

pub fn lines(state: &mut AppState, run_id: &str, pane: Pane, lines: Vec<crate::logs::Line>) {
    if let Some(run) = state.runs.iter_mut().find(|r| r.run_id == run_id) {
        run.pane_mut(pane).append(lines);
    }
}

/// A finished run's outcome replaces the variant's on the board.
pub fn finished(
    state: &mut AppState,
    run_id: &str,
    outcome: Outcome,
    verdict: Option<crate::classify::Verdict>,
) {
    let Some(run) = state.runs.iter_mut().find(|r| r.run_id == run_id) else { return };
    run.server.finished = true;
    run.bench.finished = true;
    if run.phase == RunPhase::Cancelled {
        // Nothing was measured: the variant keeps what it had.
        refresh_live_cells(state);
        return;
    }
    let (short, variant) = (run.short.clone(), run.variant);
    if let Some(index) = state.entry_index(&short) {
        let slot = &mut state.entries[index].variants[variant as usize];
        slot.outcome = outcome;
        slot.verdict = verdict;
        slot.loaded = true;
        state.rebuild_row(index);
    }
    refresh_live_cells(state);
    state.refilter();
}

/// Live runs show their phase and elapsed time in their board cell.
pub fn refresh_live_cells(state: &mut AppState) {
    let live: Vec<(String, Variant, String, u64)> = state
        .runs
        .iter()
        .filter(|r| !r.phase.is_finished())
        .map(|r| (r.short.clone(), r.variant, r.cell_text(state.ticks), state.gpu.run_memory_mib(&r.run_id)))
        .collect();
    for (short, variant, text, gpu_mib) in live {
        if let Some(index) = state.entry_index(&short) {
            let row = &mut state.rows[index];
            row.cells[variant as usize].text = text;
            row.cells[variant as usize].live = true;
            // While a run holds GPU memory, the GPU column shows how much.
            if gpu_mib > 0 {
                row.gpus = format!("{:.1}G", gpu_mib as f64 / 1024.0);
            }
        }
    }
}

/// A container of ours still running after a restart: show it, follow its server output.
pub fn found(state: &mut AppState, run_id: &str, short: &str, variant: Variant) {
    if state.runs.iter().any(|r| r.run_id == run_id) {
        return;
    }
    let mut run = RunView::new(run_id, short, variant, state.ticks, state.log_ring);
    run.reattached = true;
    run.phase = RunPhase::Benchmarking;
    state.runs.push(run);
    state.message = Some((Level::Info, format!("re-attached to run {run_id} ({short} {})", variant.name())));
    refresh_live_cells(state);
}
