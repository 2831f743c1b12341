//! `update(state, msg) -> effects`: the only place state changes. One file per area; areas never
//! call each other: what crosses areas (a confirmed action, a submitted prompt) comes back here
//! and is dispatched, and every call ends by starting queued runs that have a free slot.

mod board;
mod builds;
mod bulk_fix;
mod campaign;
mod campaign_view;
mod confirm;
mod documents;
mod fixes;
mod gpu;
mod help;
mod images;
mod logs;
mod menu;
mod mouse;
mod other_jobs;
mod plot;
mod prompt;
mod run_confirm;
mod runs;
mod runs_view;
mod triage;
mod waiting;

use super::{
    Action, AppState, ConfirmAction, Effect, End, Focus, JobError, JobKey, JobMsg, Key, KeyCode, KeyMode,
    Level, Msg, Planned, Progress,
};
use prompt::Edit;

pub fn update(state: &mut AppState, msg: Msg) -> Vec<Effect> {
    let mut effects = route(state, msg);
    effects.extend(runs::pump(state));
    let live = state.runs.is_live() || state.builds.live().next().is_some();
    if state.session.quit_when_idle && !live && !effects.contains(&Effect::Quit) {
        effects.extend(quit(state));
    }
    effects
}

fn quit(state: &mut AppState) -> Vec<Effect> {
    state.session.quitting = true;
    vec![Effect::Quit]
}

fn route(state: &mut AppState, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Key(key) => key_pressed(state, key),
        Msg::Mouse { .. } => Vec::new(),
        Msg::Pointer { over, wheel } => mouse::pointer(state, over, wheel),
        Msg::Images(listed) => images::listed(state, listed),
        Msg::Campaign(snapshot) => campaign::read(state, snapshot),
        Msg::CampaignNames(names) => campaign_view::named(state, names),
        Msg::CampaignPlanned(plan) => campaign::planned(state, plan),
        Msg::CampaignStarted(started) => campaign::started(state, started),
        Msg::CampaignAsked(asked) => campaign::asked(state, asked),
        Msg::CampaignResult(digested) => campaign::result(state, *digested),
        Msg::ImageRemoved(tag) => images::removed(state, &tag),
        Msg::Pushed { tag, reference } => images::pushed(state, &tag, &reference),
        Msg::DetailLimit(limit) => {
            state.board.detail_limit = limit;
            state.board.detail_scroll = state.board.detail_scroll.min(limit);
            Vec::new()
        }
        Msg::ConfirmLimit(limit) => {
            confirm::limit(state, limit);
            Vec::new()
        }
        Msg::Resize(w, h) => {
            state.session.size = (w, h);
            documents::resized(state)
        }
        Msg::PatchLine { short, line } => {
            state.board.patch_lines.insert(short, Some(line));
            Vec::new()
        }
        Msg::Tick(now) => tick(state, now),
        Msg::TookOver { book, messages } => triage::took_over(state, &book, &messages),
        Msg::Saved(result) => saved(state, result),
        Msg::Log(msg) => logs::message(state, msg),
        Msg::Job(msg) => job(state, msg),
        Msg::Docker(msg) => runs::docker(state, msg),
        Msg::Gpu(msg) => gpu::message(state, msg),
        Msg::Notice(level, text) => {
            state.notify(level, text);
            Vec::new()
        }
        Msg::Reading(progress) => {
            state.board.loading = Some(progress);
            Vec::new()
        }
        Msg::ResultsRead { entries, warnings } => results_read(state, entries, warnings),
    }
}

/// A job's message goes to its kind's area, by the stage of its life.
fn job(state: &mut AppState, msg: JobMsg) -> Vec<Effect> {
    match msg {
        JobMsg::Planned(Planned::Runs { short, plans }) => {
            run_confirm::planned(state, short, plans);
            Vec::new()
        }
        JobMsg::Planned(Planned::Fixes { short, variant, offers }) => {
            fixes::offered(state, &short, variant, offers)
        }
        JobMsg::Planned(Planned::Build { short, knobs, plan }) => builds::planned(state, short, knobs, plan),
        JobMsg::Found(found) => runs::found(state, found),
        JobMsg::Progress { job: JobKey::Run(run_id), progress } => runs::progress(state, &run_id, progress),
        JobMsg::Progress { job: JobKey::Build(short), progress: Progress::Build(status) } => {
            builds::progress(state, short, status)
        }
        JobMsg::Ended { job: JobKey::Run(run_id), end: End::Run { outcome, verdict } } => {
            runs::ended(state, &run_id, outcome, verdict)
        }
        JobMsg::Ended { job: JobKey::Fix(short, variant), end: End::Fix(end) } => {
            fixes::ended(state, short, variant, end)
        }
        JobMsg::Ended { job: JobKey::Build(short), end: End::Build(end) } => {
            builds::ended(state, &short, end)
        }
        JobMsg::Recorded { run_id, source, reread } => {
            runs::recorded(state, &run_id, source, reread);
            Vec::new()
        }
        mismatched => {
            state.session.log(
                Level::Warn,
                format!("a job message whose key and kind differ, ignored: {mismatched:?}"),
            );
            Vec::new()
        }
    }
}

/// The result files are in: the board shows them, and says how many could not be read.
fn results_read(
    state: &mut AppState,
    entries: Vec<crate::dataset::Entry>,
    warnings: Vec<String>,
) -> Vec<Effect> {
    state.board.results_loaded(entries);
    for w in &warnings {
        state.session.log(Level::Warn, w.clone());
    }
    // A start-up message (the store's, a read-only board) stays.
    if let Some(first) = warnings.first().filter(|_| state.session.message.is_none()) {
        state.notify(Level::Warn, format!("{} warning(s); first: {first}", warnings.len()));
    }
    state.session.warnings.extend(warnings);
    Vec::new()
}

/// Ticks between two reads of the campaign journal (a driver that died is said within this).
const CAMPAIGN_TICKS: u64 = 2;

fn tick(state: &mut AppState, now: String) -> Vec<Effect> {
    state.session.now = now;
    state.session.ticks += 1;
    state.session.expire_message();
    state.refresh_live_cells();
    campaign::check_start(state);
    let mut effects = documents::ask_patch_line(state);
    // A campaign runs in a process of its own: its journal is read every few seconds.
    if state.session.ticks % CAMPAIGN_TICKS == 1 {
        effects.push(state.read_campaign());
    }
    // A read-only board asks for the lock every other second.
    if state.session.read_only && state.session.ticks.is_multiple_of(2) {
        effects.push(Effect::TryTakeOver);
    }
    effects
}

fn saved(state: &mut AppState, result: Result<(), JobError>) -> Vec<Effect> {
    match result {
        Ok(()) => state.session.unsaved = false,
        Err(why) => state.notify(Level::Error, format!("NOT SAVED: {why}")),
    }
    Vec::new()
}

/// A key, read in the key mode of whatever is in front.
fn key_pressed(state: &mut AppState, key: Key) -> Vec<Effect> {
    let mode = state.key_mode();
    let action = state.session.keymap.action(mode, key);
    match (mode, action) {
        (KeyMode::Prompt, None) => typed(state, key),
        (_, None) => Vec::new(),
        (KeyMode::Board | KeyMode::Log, Some(action)) => act(state, action),
        (KeyMode::Chooser, Some(action)) => runs::chooser(state, action),
        (KeyMode::FixMenu, Some(action)) => fixes::menu(state, action),
        (KeyMode::BulkPicker, Some(action)) => bulk_fix::picker(state, action),
        (KeyMode::Runs, Some(action)) => runs_view::act(state, action),
        (KeyMode::Plot, Some(action)) => plot::act(state, action),
        (KeyMode::Images, Some(action)) => images::act(state, action),
        (KeyMode::ActionMenu, Some(action)) => match menu::act(state, action) {
            Some(chosen) => act(state, chosen),
            None => Vec::new(),
        },
        (KeyMode::Confirm, Some(action)) => match confirm::act(state, action) {
            confirm::Answer::Yes(confirmed) => dispatch_confirmed(state, confirmed),
            confirm::Answer::LeaveRunning => quit(state),
            confirm::Answer::Pending | confirm::Answer::No => Vec::new(),
        },
        (KeyMode::Prompt, Some(action)) => {
            let edit = prompt::act(state, action);
            edited(state, edit)
        }
        (KeyMode::Help, Some(action)) => help::act(state, action),
        (KeyMode::Campaign, Some(action)) => campaign_view::act(state, action),
    }
}

/// A printable character typed into a prompt.
fn typed(state: &mut AppState, key: Key) -> Vec<Effect> {
    match key.code {
        KeyCode::Char(c) if !key.ctrl => {
            let edit = prompt::push(state, c);
            edited(state, edit)
        }
        _ => Vec::new(),
    }
}

/// What a prompt edit means to the area the prompt is for.
fn edited(state: &mut AppState, edit: Edit) -> Vec<Effect> {
    match edit {
        Edit::None | Edit::FilterChanged => Vec::new(),
        Edit::SearchChanged(text) => {
            logs::search(state, &text);
            Vec::new()
        }
        Edit::Submitted(p) => match p.purpose {
            super::PromptPurpose::Filter => {
                if let Some(warning) = state.board.query.unknown_field_warning() {
                    state.notify(Level::Warn, format!("filter: {warning}"));
                }
                Vec::new()
            }
            super::PromptPurpose::LogSearch => logs::submit_search(state, &p.text),
            super::PromptPurpose::Note => triage::record_note(state, &p.short, &p.text),
            super::PromptPurpose::UnfixableReason => triage::confirm_unfixable(state, p),
            super::PromptPurpose::Command => command(state, &p.text),
            super::PromptPurpose::BuildKnobs => builds::ask_with(state, &p.short, &p.text),
        },
    }
}

/// A submitted `:` line: its action, as if its key was pressed; words after the name are typed
/// into the prompt the action opens, and submitted.
fn command(state: &mut AppState, line: &str) -> Vec<Effect> {
    if line.trim().is_empty() {
        return Vec::new();
    }
    let (action, words) = match super::commands::resolve(line) {
        Ok(found) => found,
        Err(why) => {
            state.notify(Level::Warn, why.to_string());
            return Vec::new();
        }
    };
    let mut effects = act(state, action);
    if words.is_empty() || !matches!(state.mode, super::Mode::Prompt(_)) {
        return effects;
    }
    let cleared = prompt::act(state, Action::ClearLine);
    effects.extend(edited(state, cleared));
    for c in words.chars() {
        let edit = prompt::push(state, c);
        effects.extend(edited(state, edit));
    }
    let submitted = prompt::act(state, Action::Submit);
    effects.extend(edited(state, submitted));
    effects
}

/// A confirmed dialog's action, handed to its area (gitui's round trip).
fn dispatch_confirmed(state: &mut AppState, action: ConfirmAction) -> Vec<Effect> {
    match action {
        ConfirmAction::MarkUnfixable { short, reason } => triage::record_unfixable(state, &short, reason),
        ConfirmAction::StartRuns { short, variants, host, repeat } => {
            runs::start(state, &short, &variants, (host.as_deref(), repeat))
        }
        ConfirmAction::Cancel(JobKey::Run(run_id)) => runs::cancel(state, &run_id),
        ConfirmAction::Cancel(job) => other_jobs::cancel(state, job),
        ConfirmAction::ApplyFix { short, variant, recipe, commit_image, rerun } => {
            if rerun {
                state.board.rerun_after_fix.insert((short.clone(), variant));
            }
            fixes::apply(state, &short, variant, &recipe, commit_image)
        }
        ConfirmAction::BulkFix { targets, recipe, again } => {
            bulk_fix::confirmed(state, targets, recipe, again)
        }
        ConfirmAction::QuitStoppingRuns => runs::stop_all(state),
        ConfirmAction::RemoveOrphans { ids } => vec![Effect::RemoveContainers(ids)],
        ConfirmAction::RemoveImage { tag } => vec![Effect::RemoveImage(tag)],
        ConfirmAction::StartBuild { short, knobs } => builds::start(state, &short, *knobs),
        ConfirmAction::StartCampaign { shorts, name } => campaign::start(state, shorts, name),
        ConfirmAction::Campaign { name, verb } => vec![Effect::Campaign { name, verb }],
    }
}

/// A board or log-pane action (the log pane also takes the board's).
pub fn act(state: &mut AppState, action: Action) -> Vec<Effect> {
    state.session.message = None;
    match action {
        Action::Quit if state.runs.is_live() || state.builds.live().next().is_some() => runs::ask_quit(state),
        Action::Quit => quit(state),
        Action::Help => help::open(state),
        Action::Messages => help::messages(state),
        Action::CommandLine => menu::open_command(state),
        Action::ActionMenu => menu::open_actions(state),
        Action::RunsView => runs_view::open(state),
        Action::ImagesView => images::open(state),
        Action::ToggleMouse => mouse::toggle(state),
        Action::CopyHash | Action::CopyEvidence => mouse::copy(state, action),
        Action::CycleFocus => cycle_focus(state),
        Action::OpenLog => logs::toggle(state),
        Action::StartRun => runs::open_chooser(state),
        Action::BuildBaseline => builds::ask(state),
        Action::BuildWithKnobs => builds::open_knobs(state),
        Action::CancelRun => runs::ask_cancel(state),
        Action::FixMenu => fixes::open(state),
        Action::BulkFix => bulk_fix::open(state),
        Action::StartCampaign => campaign::ask(state),
        Action::CampaignView => campaign::open(state),
        Action::VerdictPlot => plot::open(state),
        Action::Filter => prompt::open_filter(state),
        Action::MarkUnfixable | Action::AddNote => triage::open_prompt(state, action),
        Action::MarkSkip | Action::ClearMark => triage::quick_mark(state, action),
        Action::GpuPane | Action::GpuWindow | Action::GpuHost | Action::GpuFaster | Action::GpuSlower => {
            gpu::act(state, action)
        }
        Action::DebugPane | Action::DebugLevel => help::debug(state, action),
        Action::PatchView | Action::AgentRunView => documents::open(state, action),
        // Tab in a log without sections is the board's, as before.
        Action::NextSection if !has_sections(state) => board::navigate(state, Action::NextView),
        Action::PrevSection if !has_sections(state) => board::navigate(state, Action::PrevView),
        _ if KeyMode::Log.offers(action) => logs::act(state, action),
        Action::Pick => board::pick(state),
        _ => board::navigate(state, action),
    }
}

/// Board → log pane → (a run's other pane) → board.
fn has_sections(state: &mut AppState) -> bool {
    state.focused_log_mut().is_some_and(|v| !v.sections.is_empty())
}

fn cycle_focus(state: &mut AppState) -> Vec<Effect> {
    if !state.logs.is_open() {
        state.notify(Level::Info, "only the board is open: L opens the log pane");
        return Vec::new();
    }
    state.focus = match state.focus {
        Focus::Board => Focus::Log,
        Focus::Log => Focus::Board,
    };
    Vec::new()
}
