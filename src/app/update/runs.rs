//! Runs from the board: choosing and queueing them, starting queued runs when a slot is free and
//! Docker is connected, cancelling, and what the job service reports.

use crate::app::{
    Action, AppState, Confirm, ConfirmAction, DockerMsg, DockerStatus, Effect, Found, JobError, JobKey,
    KeyMode, Level, Mode, Progress, Reread, RunView,
};
use crate::classify::Verdict;
use crate::dataset::{Outcome, Variant};
use crate::runs::{FoundRun, Launch, Repeat, RepeatPlan, RunId, RunPhase, RunRequest};

/// `r`: choose baseline, human, agent or all three for the selected commit.
pub fn open_chooser(state: &mut AppState) -> Vec<Effect> {
    if let Some(short) = state.board.selected_short().cloned() {
        state.mode = Mode::Choose(short);
    }
    Vec::new()
}

pub fn chooser(state: &mut AppState, action: Action) -> Vec<Effect> {
    let Mode::Choose(short) = &state.mode else { return Vec::new() };
    let short = short.clone();
    let variants = match action {
        Action::RunBaseline => vec![Variant::Baseline],
        Action::RunHuman => vec![Variant::Human],
        Action::RunAgent => vec![Variant::Agent],
        Action::RunAll => Variant::ALL.to_vec(),
        _ => {
            state.mode = Mode::Normal;
            return Vec::new();
        }
    };
    state.mode = Mode::Planning(short.clone());
    let requests = variants.iter().map(|v| request(state, &short, *v)).collect();
    vec![Effect::PlanRuns { short, requests }]
}

/// A run of a variant, in its fixed image where a fix made one, repeated as `[runs] repeat` says.
fn request(state: &AppState, short: &str, variant: Variant) -> RunRequest {
    let image = state.board.book.fixed_image(short, variant.name());
    let fixes = if image.is_some() { state.board.book.fixes(short, variant.name()) } else { Vec::new() };
    let repeat = state.repeat_plan(short, variant, state.runs.repeat);
    RunRequest { short: short.into(), variant, image, fixes, host: None, repeat }
}

/// Confirmed: queue the runs (they start in the order given), each in its fixed image if it has one.
pub fn start(
    state: &mut AppState,
    short: &str,
    variants: &[Variant],
    (host, repeat): (Option<&str>, Repeat),
) -> Vec<Effect> {
    for v in variants {
        let repeat = state.repeat_plan(short, *v, repeat);
        let request = RunRequest { host: host.map(String::from), repeat, ..request(state, short, *v) };
        state.queue_run(request);
    }
    if !matches!(state.runs.docker, DockerStatus::Connected(_)) {
        state.notify(Level::Warn, "waiting for Docker (see the header); queued runs start when it connects");
    }
    state.refresh_live_cells();
    Vec::new()
}

/// Start queued runs while slots are free and Docker is connected.
pub fn pump(state: &mut AppState) -> Vec<Effect> {
    let mut effects = Vec::new();
    if !matches!(state.runs.docker, DockerStatus::Connected(_)) {
        return effects;
    }
    while state.runs.active() < state.runs.concurrency.max(1) {
        let Some(run_id) = state.runs.queue.pop_front() else { break };
        let Some(run) = state.runs.get_mut(&run_id) else { continue };
        run.dispatched = true;
        let request = run.request.clone();
        effects.push(Effect::StartRun { run_id, request });
    }
    effects
}

/// `x`: cancel the selected commit's live run, after a confirm.
pub fn ask_cancel(state: &mut AppState) -> Vec<Effect> {
    let Some(short) = state.board.selected_short().cloned() else { return Vec::new() };
    if let Some(run_id) = state.runs.live_of(&short).map(|r| r.run_id.clone()) {
        return ask_cancel_run(state, &run_id);
    }
    let campaign_run =
        state.session.campaign.as_ref().and_then(|c| c.running_of(&short)).map(|r| r.run_id.clone());
    if let Some(run_id) = campaign_run {
        return super::campaign_view::ask_cancel_run(state, &run_id);
    }
    super::other_jobs::ask_cancel(state, &short).unwrap_or_else(|| {
        state.notify(Level::Info, format!("{short} has no live run"));
        Vec::new()
    })
}

/// Ask before cancelling a run that has not ended.
pub fn ask_cancel_run(state: &mut AppState, run_id: &RunId) -> Vec<Effect> {
    let Some(run) = state.runs.get(run_id).filter(|r| !r.phase.is_finished()) else {
        state.notify(Level::Info, format!("run {run_id} has already ended"));
        return Vec::new();
    };
    let preview = vec![
        format!("Run {} ({} {}) is {}.", run.run_id, run.short(), run.variant().name(), run.phase.word()),
        "Its container will be stopped and removed; the logs so far are kept.".into(),
    ];
    let title = format!("Cancel {} {}?", run.short(), run.variant().name());
    let action = ConfirmAction::Cancel(JobKey::Run(run.run_id.clone()));
    state.mode = Mode::Confirm(Confirm::new(title, preview, action));
    Vec::new()
}

/// Confirmed: a queued run leaves the queue here; a started one is cancelled by the job service.
pub fn cancel(state: &mut AppState, run_id: &RunId) -> Vec<Effect> {
    if let Some(at) = state.runs.queue.iter().position(|id| id == run_id) {
        state.runs.queue.remove(at);
        set_phase(state, run_id, RunPhase::Cancelled);
        state.notify(Level::Info, format!("run {run_id} cancelled before it started"));
        return Vec::new();
    }
    state.notify(Level::Info, format!("cancelling run {run_id}…"));
    vec![Effect::Cancel(JobKey::Run(run_id.clone()))]
}

/// A run moved on: its phase, or its log lines.
pub fn progress(state: &mut AppState, run_id: &RunId, progress: Progress) -> Vec<Effect> {
    match progress {
        Progress::Phase(phase) => set_phase(state, run_id, phase),
        Progress::Lines { pane, lines } => {
            if let Some(run) = state.runs.get_mut(run_id) {
                run.pane_mut(pane).append(lines);
            }
        }
        Progress::Build(_) => {}
    }
    Vec::new()
}

/// A run of ours alive after a restart: a container is re-attached, a Slurm job followed.
pub fn found(state: &mut AppState, found: Found) -> Vec<Effect> {
    match found {
        Found::Container { found, launch } => reattached(state, found, launch),
        Found::SlurmJob { run_id, short, variant, job_id } => {
            if was_found(state, &run_id, &short, variant, Some(format!("#{job_id}"))) {
                return vec![Effect::FollowJob { run_id, job_id }];
            }
            Vec::new()
        }
    }
}

pub fn docker(state: &mut AppState, msg: DockerMsg) -> Vec<Effect> {
    match msg {
        DockerMsg::Connected(engine) => {
            state.runs.docker = DockerStatus::Connected(engine);
            let mut effects = super::fixes::probe_again(state);
            effects.extend(super::waiting::start_all(state));
            return effects;
        }
        DockerMsg::Unreachable(why) => state.runs.docker = DockerStatus::Unreachable(why),
        DockerMsg::Owners(owners) => state.gpu.owners = owners,
        DockerMsg::Orphans(orphans) => offer_removal(state, &orphans),
        DockerMsg::Hosts(hosts) => state.runs.hosts = hosts,
        DockerMsg::HostGpus(gpus) => state.gpu.hosts = gpus,
    }
    Vec::new()
}

fn set_phase(state: &mut AppState, run_id: &RunId, phase: RunPhase) {
    let ticks = state.session.ticks;
    let Some(run) = state.runs.get_mut(run_id) else { return };
    let ended = phase.is_finished();
    if ended && run.ended_tick.is_none() {
        run.ended_tick = Some(ticks);
    }
    let news = match &phase {
        RunPhase::Creating { image } => {
            run.image = Some(image.clone());
            None
        }
        RunPhase::Placed { host } => {
            run.host = Some(host.clone());
            None
        }
        RunPhase::Unfixed { gone } => Some((
            Level::Warn,
            format!("run {run_id}: its fixed image {gone} is gone from the engine: it runs unfixed"),
        )),
        RunPhase::Placing { why } if run.phase != phase => {
            Some((Level::Warn, format!("run {run_id} waits for a host: {why}")))
        }
        RunPhase::Slurm { job_id, state, node } => {
            run.host = Some(format!("#{job_id} {node}").trim_end().to_string());
            (run.phase != phase).then(|| (Level::Info, format!("run {run_id}: Slurm job {job_id} {state}")))
        }
        _ => None,
    };
    run.phase = phase;
    let short = run.short().to_string();
    // An ended run gives its cell back to the recorded outcome (a result, if any, follows).
    if ended && let Some(index) = state.board.entry_index(&short) {
        state.board.rebuild_row(index);
    }
    if let Some((level, text)) = news {
        state.notify(level, text);
    }
    state.refresh_live_cells();
}

/// An ended run's outcome replaces the variant's on the board; its result file is written next.
pub fn ended(
    state: &mut AppState,
    run_id: &RunId,
    outcome: Outcome,
    verdict: Option<Verdict>,
) -> Vec<Effect> {
    let Some(run) = state.runs.get_mut(run_id) else { return Vec::new() };
    run.server.finished = true;
    run.bench.finished = true;
    if run.phase == RunPhase::Cancelled {
        // Nothing was measured: the variant keeps what it had.
        state.refresh_live_cells();
        return Vec::new();
    }
    if let RunPhase::Failed { category, message } = &run.phase
        && category.is_setup_error()
    {
        // This host's set-up failed, not the commit: nothing is recorded over the variant.
        let text = format!(
            "{} {}: set-up error ({category}): {message}; nothing recorded",
            run.short(),
            run.variant().name()
        );
        state.notify(Level::Error, text);
        state.refresh_live_cells();
        return Vec::new();
    }
    let (short, variant) = (run.short().to_string(), run.variant());
    if outcome.status.is_failure() {
        let category = verdict.as_ref().map_or(crate::classify::UNCLASSIFIED, |v| v.category.as_str());
        let why = outcome.error.as_deref().unwrap_or("no error text");
        state.notify(
            Level::Error,
            format!("{short} {} failed: {category} — {why} (L: its log)", variant.name()),
        );
    }
    if let Some(index) = state.board.entry_index(&short) {
        let slot = &mut state.board.entries[index].variants[variant as usize];
        slot.outcome = outcome;
        slot.verdict = verdict.map(Box::new);
        slot.loaded = true;
        // The newest record: the row's category, `f` and `L` now follow this variant.
        slot.at = crate::dataset::results::Stamp::parse(&state.session.now);
        state.board.rebuild_row(index);
    }
    state.refresh_live_cells();
    state.board.refilter();
    vec![Effect::WriteResult { run_id: run_id.clone(), gpu: state.gpu.ledger.get(run_id).cloned() }]
}

pub fn recorded(
    state: &mut AppState,
    run_id: &RunId,
    source: Result<String, JobError>,
    reread: Option<Reread>,
) {
    let Some(run) = state.runs.get(run_id) else { return };
    let (short, variant) = (run.short().to_string(), run.variant());
    let path = match source {
        Ok(path) => path,
        Err(why) => {
            return state.notify(Level::Error, format!("run {run_id}: cannot write the result file: {why}"));
        }
    };
    let Some(index) = state.board.entry_index(&short) else { return };
    let slot = &mut state.board.entries[index].variants[variant as usize];
    slot.outcome.source = Some(path);
    if let Some(reread) = reread {
        slot.verdict = reread.verdict.map(Box::new);
        slot.warnings = reread.warnings;
        state.board.rebuild_row(index);
        state.board.refilter();
    }
}

/// A container of ours found running: picked up with what its launch record says it ran, or,
/// without a usable record, shown (cancelling removes it) and never recorded.
fn reattached(state: &mut AppState, found: FoundRun, launch: Result<Box<Launch>, String>) -> Vec<Effect> {
    let host = found.host.clone();
    if !was_found(state, &found.run_id, &found.short, found.variant, host) {
        return Vec::new();
    }
    let Some(run) = state.runs.get_mut(&found.run_id) else { return Vec::new() };
    match launch {
        Ok(launch) => {
            run.image = Some(launch.plan.image.clone());
            run.request.fixes.clone_from(&launch.plan.fixes);
            run.request.repeat = launch.repeat_plan();
            vec![Effect::ResumeRun { found, launch }]
        }
        Err(why) => {
            run.phase = RunPhase::Unrecorded { why: why.clone() };
            let text = format!("run {}: {why}; it writes no result (x cancels and removes it)", found.run_id);
            state.notify(Level::Warn, text);
            state.refresh_live_cells();
            Vec::new()
        }
    }
}

/// A container of ours still running after a restart: show it (`false` when the run is already on
/// the board).
fn was_found(
    state: &mut AppState,
    run_id: &RunId,
    short: &str,
    variant: Variant,
    host: Option<String>,
) -> bool {
    if state.runs.get(run_id).is_some() {
        return false;
    }
    let request = RunRequest {
        short: short.into(),
        variant,
        image: None,
        fixes: Vec::new(),
        host: None,
        repeat: RepeatPlan::Times(1),
    };
    let mut run = RunView::new(run_id, request, state.session.ticks, state.logs.ring);
    run.reattached = true;
    run.dispatched = true;
    run.host = host;
    run.phase = RunPhase::Starting;
    state.runs.list.push(run);
    state.notify(
        Level::Info,
        format!("re-attached to run {run_id} ({short} {}): picking it up", variant.name()),
    );
    state.refresh_live_cells();
    true
}

/// `q` with live runs: stop them first, leave them running, or stay.
pub fn ask_quit(state: &mut AppState) -> Vec<Effect> {
    let live: Vec<String> = state
        .runs
        .live()
        .map(|r| format!("  {} {} ({})", r.short(), r.variant().name(), r.phase.word()))
        .collect();
    let builds: Vec<String> =
        state.builds.live().map(|(short, b)| format!("  {short} baseline build ({})", b.phase)).collect();
    let mut preview = vec![format!("{} run(s) and {} build(s) are live:", live.len(), builds.len())];
    preview.extend(live);
    preview.extend(builds);
    preview.push("Yes stops them (their containers are removed) and quits when they are gone;".into());
    let leave = state.session.keymap.key_name(KeyMode::Confirm, Action::LeaveRunning);
    preview.push(format!(
        "{leave} leaves them running (runs are re-attached at the next start; a build cannot be, and its container is offered for removal); Cancel stays."
    ));
    let title = "Quit with live runs?".to_string();
    state.mode = Mode::Confirm(Confirm::new(title, preview, ConfirmAction::QuitStoppingRuns));
    Vec::new()
}

/// Confirmed: cancel every live run; `update` quits once none is live.
pub fn stop_all(state: &mut AppState) -> Vec<Effect> {
    state.session.quit_when_idle = true;
    let live = state.live_jobs();
    live.into_iter()
        .flat_map(|job| match job {
            JobKey::Run(run_id) => cancel(state, &run_id),
            other => super::other_jobs::cancel(state, other),
        })
        .collect()
}

/// Containers left by a perftriage that is gone: offer to remove them (if nothing else is open).
fn offer_removal(state: &mut AppState, orphans: &[crate::runs::Orphan]) {
    if orphans.is_empty() || state.mode != Mode::Normal {
        return;
    }
    let mut preview =
        vec![format!("{} container(s) of ours were left by a perftriage that is gone:", orphans.len())];
    preview.extend(orphans.iter().map(|o| {
        let state = if o.running { "running" } else { "stopped" };
        format!("  {} ({} {}, run {}, {state})", o.name, o.short, o.variant, o.run_id)
    }));
    preview.push("Yes stops and removes them; their logs in the workspace are kept.".into());
    let ids = orphans.iter().map(|o| o.id.clone()).collect();
    let action = ConfirmAction::RemoveOrphans { ids };
    state.mode = Mode::Confirm(Confirm::new("Remove left-behind containers?".into(), preview, action));
}
