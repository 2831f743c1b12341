//! Baseline builds from the board: `b` plans the selected commit's build (with the MAX_JOBS a
//! failed build suggested), the confirm shows its steps, yes opens its log in the pane and starts
//! it; status and the outcome come back from the job service and go into the triage history.

use crate::app::{
    AppState, BuildEnd, BuildStatus, BuildView, Confirm, ConfirmAction, Effect, Focus, JobError, Level,
    LogId, LogKey, LogView, Mode,
};
use crate::app::{Prompt, PromptPurpose};
use crate::builds::KnobSet;
use crate::dataset::Variant;
use crate::ids::Short;

/// `b`: plan the selected commit's build for a confirm, with the MAX_JOBS a failed build suggested.
pub fn ask(state: &mut AppState) -> Vec<Effect> {
    let Some(short) = state.board.selected_short().cloned() else { return Vec::new() };
    let max_jobs = state.builds.by_commit.get(&short).and_then(|b| b.suggested_jobs);
    plan(state, short, KnobSet { max_jobs, ..KnobSet::default() })
}

/// `B`: a prompt for the knobs (the suggested MAX_JOBS already in it).
pub fn open_knobs(state: &mut AppState) -> Vec<Effect> {
    let Some(short) = state.board.selected_short().cloned() else { return Vec::new() };
    let suggested = state.builds.by_commit.get(&short).and_then(|b| b.suggested_jobs);
    let text = suggested.map(|jobs| format!("max_jobs={jobs} ")).unwrap_or_default();
    state.mode = Mode::Prompt(Prompt::new(PromptPurpose::BuildKnobs, &short, text));
    Vec::new()
}

/// The knobs prompt submitted: plan with them, or say which word is wrong.
pub fn ask_with(state: &mut AppState, short: &str, text: &str) -> Vec<Effect> {
    match crate::builds::parse_knobs(text) {
        Ok(knobs) => plan(state, short.into(), knobs),
        Err(why) => {
            state.notify(Level::Warn, why.to_string());
            Vec::new()
        }
    }
}

fn plan(state: &mut AppState, short: Short, knobs: KnobSet) -> Vec<Effect> {
    if state.builds.is_live(&short) {
        state.notify(Level::Info, format!("{short}'s baseline is already building"));
        return Vec::new();
    }
    state.mode = Mode::Planning(short.clone());
    vec![Effect::PlanBuild { short, knobs }]
}

/// A live build's status, about once a second.
pub fn progress(state: &mut AppState, short: Short, status: BuildStatus) -> Vec<Effect> {
    let view = state.builds.by_commit.entry(short).or_default();
    (view.phase, view.fraction, view.status) = (status.phase, status.fraction, status.status);
    Vec::new()
}

pub fn planned(
    state: &mut AppState,
    short: Short,
    knobs: KnobSet,
    plan: Result<Vec<String>, JobError>,
) -> Vec<Effect> {
    if state.mode != Mode::Planning(short.clone()) {
        return Vec::new(); // given up with Esc while it was being planned
    }
    state.mode = Mode::Normal;
    let lines = match plan {
        Ok(lines) => lines,
        Err(why) => {
            state.notify(Level::Error, format!("cannot build {short}: {why}"));
            return Vec::new();
        }
    };
    let title = if knobs == KnobSet::default() {
        format!("Build {short}'s baseline image from source?")
    } else {
        format!("Build {short}'s baseline image from source with {}?", crate::builds::describe_knobs(&knobs))
    };
    let action = ConfirmAction::StartBuild { short, knobs: Box::new(knobs) };
    state.mode = Mode::Confirm(Confirm::new(title, lines, action));
    Vec::new()
}

/// Confirmed: the build's log opens in the pane and the job service starts it.
pub fn start(state: &mut AppState, short: &str, knobs: KnobSet) -> Vec<Effect> {
    let log = LogKey { short: short.into(), variant: Variant::Baseline, log: LogId::Build };
    let title = format!("build · {short} baseline");
    state.logs.show(LogView::new(log.clone(), title, state.logs.ring));
    state.focus = Focus::Log;
    let view = BuildView { live: true, phase: "starting".into(), ..BuildView::default() };
    state.builds.by_commit.insert(short.into(), view);
    let started = format!("building {short}'s baseline…");
    super::waiting::when_connected(state, Effect::StartBuild { short: short.into(), knobs, log }, started)
}

/// A build ended: recorded in the triage history unless it was stopped, and said.
pub fn ended(state: &mut AppState, short: &str, end: BuildEnd) -> Vec<Effect> {
    let BuildEnd { change, lines, suggested_jobs } = end;
    let view = state.builds.by_commit.entry(short.into()).or_default();
    (view.live, view.outcome, view.suggested_jobs) = (false, lines.to_vec(), suggested_jobs);
    let recorded = change.is_some();
    let effects = change.map(|change| state.record(short, change)).unwrap_or_default();
    if let (false, Some(index)) = (recorded, state.board.entry_index(short)) {
        state.board.rebuild_row(index); // the live build cell goes back to what the row says
    }
    let level = if suggested_jobs.is_some() || lines.iter().any(|l| l.contains("FAILED")) {
        Level::Error
    } else {
        Level::Info
    };
    state.notify(level, format!("{short}: {}", lines.first().cloned().unwrap_or_default()));
    effects
}
