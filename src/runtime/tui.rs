//! The event loop: drain messages, update, hand effects to the executor, draw when something
//! changed (≤30 fps). The loop never looks inside a message: the model decides.

use super::effects::Io;
use super::{events, saver::Saver, terminal};
use crate::app::{AppState, GpuMsg, Level, Msg, RecipeInfo, update};
use crate::dataset::CommitIndex;
use crate::jobs::service::{JobService, JobSetup};
use crate::session::{Context, Workspace};
use crate::startup;
use crate::ui::{self, Theme};
use anyhow::Result;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

const FRAME: Duration = Duration::from_millis(33);
const TICK: Duration = Duration::from_secs(1);

/// The GPU sampler thread: raw samples (attributed to our runs by `update`), or why there are none.
fn spawn_gpu(replay: Option<std::path::PathBuf>, interval: Arc<AtomicU64>, tx: mpsc::UnboundedSender<Msg>) {
    crate::gpu::spawn(replay, interval, move |result| {
        let msg = match result {
            Ok((kind, sample)) => GpuMsg::Sample { source: format!("{kind:?}").to_lowercase(), sample },
            Err(why) => GpuMsg::Unavailable(why.to_string()),
        };
        tx.send(Msg::Gpu(msg)).is_ok()
    });
}

/// The model as the session loaded it.
fn initial_state(ctx: &mut Context, workspace: &Workspace, recipes: &crate::fixes::RecipeBook) -> AppState {
    let entries = std::mem::take(&mut ctx.entries);
    let mut state = AppState::new(entries, workspace.book.clone(), ctx.keymap.clone());
    let read_only = workspace.store.is_read_only();
    state.session.read_only = read_only;
    state.session.images = ctx.images.clone();
    state.session.fixed_repo = ctx.config.fixed_repo();
    state.session.owner = Some(crate::fixes::Owner::of(&ctx.workspace));
    state.logs.ring = ctx.config.log_ring.unwrap_or(crate::logs::DEFAULT_RING).max(100);
    state.runs.concurrency = ctx.config.runs.concurrency.max(1);
    state.runs.repeat = ctx.config.runs.repeat;
    state.runs.slurm = ctx.config.slurm.board.then(|| slurm_target(&ctx.config.slurm));
    state.session.now = crate::session::now_rfc3339();
    state.session.id = format!("p{}-", std::process::id());
    state.session.warnings = std::mem::take(&mut ctx.warnings);
    for w in state.session.warnings.clone() {
        state.session.log(Level::Warn, w);
    }
    state.session.message = startup_message(&state, &workspace.report.messages, read_only);
    state.session.recipes = recipes
        .recipes
        .iter()
        .map(|r| RecipeInfo { id: r.id.clone(), title: r.title.clone(), answers: r.answers.clone() })
        .collect();
    state
}

/// How long a board that is closing waits for the result files of the runs that have ended.
const RECORD_PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

/// The board, until it is quit or a signal stops it; the signal's number, if one did (the
/// terminal is given back and pending saves written either way).
pub fn run_tui(
    (mut ctx, reader): (Context, crate::session::ResultsReader),
    theme: &Theme,
    gpu_replay: Option<std::path::PathBuf>,
) -> Result<Option<u8>> {
    let workspace = ctx.open_workspace(true)?;
    startup::mark("workspace");
    let recipes = ctx.recipes()?;
    startup::mark("recipes");
    let mut state = starting_state(&mut ctx, &workspace, &recipes);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    // Listening before the terminal is taken: a signal from then on ends the loop and restores
    // it (before, a SIGTERM during start-up killed the board with the terminal still taken).
    let stop = runtime.block_on(async { stop_signals() });
    startup::mark("runtime");
    let mut term = terminal::enter()?;
    let size = term.size()?;
    state.session.size = (size.width, size.height);
    // The first frame before the reading threads start: on two cores they put it off by ~40 ms.
    first_frame(&mut term, &state, theme)?;
    own_log(&ctx, &workspace, &mut state);
    let (tx, rx) = mpsc::unbounded_channel();
    let commits = CommitIndex::of(&state.board.entries);
    let (shown, heard_shown) = std::sync::mpsc::channel();
    events::spawn(tx.clone(), shown);
    spawn_results(reader, commits.clone(), (tx.clone(), heard_shown))?;
    let saver = Saver::spawn(workspace.store, tx.clone());
    let gpu_interval = Arc::new(AtomicU64::new(1000));
    spawn_gpu(gpu_replay, gpu_interval.clone(), tx.clone());
    let (result, io) = runtime.block_on(async {
        let mut io = executor(&ctx, &state, (recipes, commits), saver, gpu_interval, tx);
        io.jobs.connect_forever();
        (event_loop(&mut term, &mut state, theme, &mut io, (rx, stop)).await, io)
    });
    terminal::leave();
    close(&runtime, io, &state, &ctx);
    result
}

/// The board's state before its first frame: the workspace's book and messages, the sort, view
/// and filter it was left with.
fn starting_state(ctx: &mut Context, workspace: &Workspace, recipes: &crate::fixes::RecipeBook) -> AppState {
    let mut state = initial_state(ctx, workspace, recipes);
    state.board.loading = Some(crate::dataset::Progress::default());
    match crate::session::board_prefs::load(&ctx.workspace) {
        Ok(Some(prefs)) => state.board.restore(prefs),
        Ok(None) => {}
        Err(why) => state.session.notify(Level::Warn, why.to_string()),
    }
    startup::mark("state");
    state
}

/// Draw the first frame.
fn first_frame(term: &mut terminal::Term, state: &AppState, theme: &Theme) -> Result<()> {
    startup::mark("terminal");
    term.draw(|f| ui::view(f, state, theme))?;
    startup::mark("drawn");
    startup::first_frame_drawn();
    Ok(())
}

/// The own log started once the first frame is drawn (its first record's time stamp reads the
/// zone database, a walk of /usr/share/zoneinfo), with the workspace's messages and where the
/// start went.
fn own_log(ctx: &Context, workspace: &Workspace, state: &mut AppState) {
    if let Err(why) = super::own_log::start(&ctx.workspace) {
        state.session.log(Level::Warn, why.to_string());
        state.session.warnings.push(why.to_string());
    }
    for m in &workspace.report.messages {
        log::warn!("{m}");
    }
    if let Some(phases) = startup::summary() {
        log::info!("first frame: {phases}");
    }
}

/// After the loop: the runs that ended recorded, pending saves written, the board's prefs kept.
fn close(runtime: &tokio::runtime::Runtime, mut io: Io, state: &AppState, ctx: &Context) {
    let ledger = &state.gpu.ledger;
    if !runtime.block_on(io.jobs.record_ended(|run_id| ledger.get(run_id).cloned(), RECORD_PATIENCE)) {
        let waited = RECORD_PATIENCE.as_secs();
        eprintln!(
            "perftriage: a run that had ended was not recorded {waited} s after the board closed: its logs are kept"
        );
    }
    io.saver.finish();
    if let Err(e) = crate::session::board_prefs::save(&ctx.workspace, &state.board.prefs()) {
        let e = crate::logs::display_text(&e.to_string());
        eprintln!("perftriage: the board's sort, view and filter were not kept: {e}");
    }
}

/// How long the reading waits for the terminal to say it has shown the first frame.
const SHOWN_PATIENCE: Duration = Duration::from_millis(100);

/// Read the rest of the dataset and the result files on threads of their own, once the terminal
/// has shown the first frame (`shown`): the board draws the dataset's head meanwhile, hears how
/// far the reading has got a few times a second, and takes the joined commits at the end (the
/// job service's `commits` hold them first).
fn spawn_results(
    reader: crate::session::ResultsReader,
    commits: CommitIndex,
    (tx, shown): (mpsc::UnboundedSender<Msg>, std::sync::mpsc::Receiver<()>),
) -> std::io::Result<()> {
    let reader_thread = std::thread::Builder::new().name(super::background::READER.into());
    reader_thread.spawn(move || {
        super::background::lower_this_thread();
        // Until then the terminal (tmux, sshd, an emulator on two cores) needs the CPU more.
        match shown.recv_timeout(SHOWN_PATIENCE) {
            Ok(()) => log::debug!("reading the results once the terminal showed the first frame"),
            Err(_) => log::debug!("reading the results: the terminal had not said it showed the first frame"),
        }
        let mut said = std::time::Instant::now();
        let (entries, warnings) = reader.read(&mut |progress| {
            if said.elapsed() >= std::time::Duration::from_millis(200) {
                said = std::time::Instant::now();
                let _ = tx.send(Msg::Reading(progress));
            }
        });
        commits.replace(&entries);
        let _ = tx.send(Msg::ResultsRead { entries, warnings });
    })?;
    Ok(())
}

/// The effect executor and the job service it drives (built inside the runtime: it spawns tasks).
fn executor(
    ctx: &Context,
    state: &AppState,
    (recipes, commits): (crate::fixes::RecipeBook, CommitIndex),
    saver: Saver,
    gpu_interval: Arc<AtomicU64>,
    tx: mpsc::UnboundedSender<Msg>,
) -> Io {
    let exec = crate::jobs::executor::Executor::of(ctx);
    let classifier = exec.classifier.clone();
    let setup = JobSetup {
        exec,
        config: ctx.config.runs.clone(),
        images: state.session.images.clone(),
        recipes: recipes.clone(),
        fixed_repo: ctx.config.fixed_repo(),
        registry: ctx.config.registry.clone(),
        build: ctx.config.build.clone(),
        recording: Default::default(),
    };
    let jobs = JobService::new(setup, commits.clone(), tx.clone());
    let logs = crate::jobs::logs::Logs::new(&ctx.workspace, (classifier, ctx.redactor.clone()), tx.clone());
    let sources = crate::jobs::documents::Sources {
        commits,
        workspace: ctx.workspace.clone(),
        recipes,
        trajectory_dirs: ctx.trajectory_dirs.clone(),
        config: ctx.config.runs.clone(),
    };
    let documents = crate::jobs::documents::Documents::new(sources, tx.clone());
    Io { saver, gpu_interval, jobs, logs, documents, workspace: ctx.workspace.clone(), tx }
}

fn startup_message(state: &AppState, store_messages: &[String], read_only: bool) -> Option<(Level, String)> {
    if let Some(m) = store_messages.first() {
        return Some((Level::Error, m.clone()));
    }
    if read_only {
        return Some((Level::Warn, "another perftriage holds this workspace: the board is read-only".into()));
    }
    match state.session.warnings.len() {
        0 => None,
        n => Some((Level::Warn, format!("{n} warning(s); first: {}", state.session.warnings[0]))),
    }
}

/// Idle means idle: ticks, and GPU samples nobody is looking at, do not redraw.
fn quiet(state: &AppState, msg: &Msg) -> bool {
    match msg {
        Msg::Tick(_) => !state.runs.is_live(),
        Msg::Gpu(GpuMsg::Sample { .. }) => {
            !state.gpu.visible && !state.runs.is_live() && state.gpu.unavailable.is_none()
        }
        Msg::Gpu(GpuMsg::Unavailable(why)) => state.gpu.unavailable.as_deref() == Some(why.as_str()),
        _ => false,
    }
}

/// What the drawn screen says about how far its panes can scroll.
fn report_limits(state: &mut AppState, theme: &Theme) {
    if let Some(limit) = ui::detail_scroll_limit(state, theme).filter(|l| *l != state.board.detail_limit) {
        update(state, Msg::DetailLimit(limit));
    }
    let drawn = ui::confirm_scroll_limit(state);
    if let (Some(limit), crate::app::Mode::Confirm(confirm)) = (drawn, &state.mode)
        && limit != confirm.scroll_limit
    {
        update(state, Msg::ConfirmLimit(limit));
    }
}

/// SIGINT, SIGTERM and SIGHUP, each its number on the channel returned.
fn stop_signals() -> mpsc::UnboundedReceiver<u8> {
    let (stop_tx, stop) = mpsc::unbounded_channel();
    crate::jobs::signals::on_stop(move |_, number| {
        let _ = stop_tx.send(number);
    });
    stop
}

async fn event_loop(
    term: &mut terminal::Term,
    state: &mut AppState,
    theme: &Theme,
    io: &mut Io,
    (mut rx, mut stop): (mpsc::UnboundedReceiver<Msg>, mpsc::UnboundedReceiver<u8>),
) -> Result<Option<u8>> {
    let mut tick = tokio::time::interval(TICK);
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    loop {
        if dirty && last_draw.elapsed() >= FRAME {
            term.draw(|f| ui::view(f, state, theme))?;
            report_limits(state, theme);
            dirty = false;
            last_draw = Instant::now();
        }
        let until_frame = FRAME.saturating_sub(last_draw.elapsed());
        let first = tokio::select! {
            msg = rx.recv() => match msg { Some(m) => m, None => return Ok(None) },
            _ = tick.tick() => {
                super::own_log::collect();
                Msg::Tick(crate::session::now_rfc3339())
            }
            // The terminal is restored and pending saves are written on the way out.
            Some(number) = stop.recv() => return Ok(Some(number)),
            _ = tokio::time::sleep(until_frame), if dirty => continue,
        };
        let mut batch = vec![first];
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
        }
        match apply(state, io, batch) {
            Some(changed) => dirty |= changed,
            None => return Ok(None),
        }
    }
}

/// Update with a batch of messages and carry out the effects; whether the screen changed, or
/// `None` to quit.
fn apply(state: &mut AppState, io: &mut Io, batch: Vec<Msg>) -> Option<bool> {
    let mut changed = false;
    for msg in batch {
        let msg = match msg {
            Msg::Mouse { wheel, column, row } => match ui::pointed(state, column, row) {
                Some(over) => Msg::Pointer { over, wheel },
                None => continue,
            },
            other => other,
        };
        changed |= !quiet(state, &msg);
        for effect in update(state, msg) {
            if !io.run(effect) {
                return None;
            }
        }
    }
    Some(changed)
}

/// `partition h100, account triage` (or `the default partition`), for the run confirm.
fn slurm_target(slurm: &crate::runs::SlurmConfig) -> String {
    let partition =
        slurm.partition.as_ref().map_or("the default partition".into(), |p| format!("partition {p}"));
    let account = slurm.account.as_ref().map(|a| format!(", account {a}")).unwrap_or_default();
    format!("{partition}{account}")
}
