//! The event loop: drain messages, update, carry out effects, draw when something changed (≤30 fps).

use super::{Context, events, saver::Saver, terminal};
use crate::app::{AppState, Effect, Level, Msg, update};
use crate::ui::{self, Theme};
use anyhow::Result;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

const FRAME: Duration = Duration::from_millis(33);
const TICK: Duration = Duration::from_secs(1);

/// The GPU sampler thread, its samples attributed to our runs.
fn spawn_gpu(
    replay: Option<std::path::PathBuf>,
    interval: std::sync::Arc<std::sync::atomic::AtomicU64>,
    runs: &super::runs::RunService,
    tx: mpsc::UnboundedSender<Msg>,
) {
    let (owners, ledger) = (runs.owners.clone(), runs.ledger.clone());
    crate::gpu::spawn(replay, interval, move |result| {
        let msg = match result {
            Ok((kind, mut sample)) => {
                if let (Ok(owners), Ok(mut ledger)) = (owners.read(), ledger.lock()) {
                    super::gpu::attribute(&mut sample, &owners, &mut ledger);
                }
                Msg::Gpu(Ok((format!("{kind:?}").to_lowercase(), sample)))
            }
            Err(why) => Msg::Gpu(Err(why)),
        };
        tx.send(msg).is_ok()
    });
}

pub fn run_tui(ctx: Context, theme: Theme, gpu_replay: Option<std::path::PathBuf>) -> Result<()> {
    let workspace = ctx.open_workspace(true)?;
    let recipes = super::fix_cli::recipes(&ctx)?;
    let read_only = workspace.store.is_read_only();
    let log_ring = ctx.config.log_ring.unwrap_or(crate::logs::DEFAULT_RING).max(100);
    let mut logs = super::logs::Logs::new(&ctx.workspace, log_ring);
    let classifier = ctx.classifier.clone();
    let mut state = AppState::new(ctx.entries, workspace.book, ctx.keymap);
    state.read_only = read_only;
    state.images = ctx.images;
    state.log_ring = log_ring;
    state.now = super::now_rfc3339();
    state.session = format!("p{}-", std::process::id());
    state.warnings = ctx.warnings;
    state.message = startup_message(&state, &workspace.report.messages, read_only);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let mut term = terminal::enter()?;
    let size = term.size()?;
    state.size = (size.width, size.height);
    let (tx, rx) = mpsc::unbounded_channel();
    let saver = Saver::spawn(workspace.store, tx.clone());
    let tx_loop = tx.clone();
    events::spawn(tx);
    let commits: Vec<_> = state.entries.iter().map(|e| e.commit.clone()).collect();
    state.recipes =
        recipes.recipes.iter().map(|r| (r.id.clone(), r.title.clone(), r.answers.clone())).collect();
    let setup = super::runs::RunSetup {
        workspace: ctx.workspace.clone(),
        config: ctx.config.runs.clone(),
        images: state.images.clone(),
        classifier: std::sync::Arc::new(classifier.clone()),
        recipes,
        fixed_repo: ctx.config.fixed_repo(),
    };
    let mut runs = super::runs::RunService::new(setup, commits, tx_loop.clone());
    let gpu_interval = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(1000));
    spawn_gpu(gpu_replay, gpu_interval.clone(), &runs, tx_loop.clone());
    let mut io = Io {
        saver: &saver,
        gpu_interval,
        runs: &mut runs,
        logs: &mut logs,
        classifier: &classifier,
        tx: tx_loop,
    };
    let result = runtime.block_on(async {
        io.runs.connect_forever();
        event_loop(&mut term, &mut state, &theme, &mut io, rx).await
    });
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

/// What effects are carried out with.
struct Io<'a> {
    saver: &'a Saver,
    gpu_interval: std::sync::Arc<std::sync::atomic::AtomicU64>,
    runs: &'a mut super::runs::RunService,
    logs: &'a mut super::logs::Logs,
    classifier: &'a crate::classify::Classifier,
    tx: mpsc::UnboundedSender<Msg>,
}

impl Io<'_> {
    /// Carry out one effect; `false` means quit.
    fn run(&mut self, effect: Effect) -> bool {
        let replies = match effect {
            Effect::SaveTriage(book) => {
                self.saver.save(book);
                Vec::new()
            }
            Effect::OpenLog { key, source, text } => {
                self.logs.open(key, source.as_deref(), &text, self.classifier)
            }
            Effect::ReadLog { key, first, count } => {
                vec![self.logs.read(&key, first, count, self.classifier)]
            }
            Effect::SaveLog { key } => vec![self.logs.save(&key)],
            Effect::GpuInterval(ms) => {
                self.gpu_interval.store(ms, std::sync::atomic::Ordering::Relaxed);
                Vec::new()
            }
            Effect::StartRun { run_id, short, variant, image, fixes } => {
                self.runs.start(&run_id, &short, variant, image, fixes);
                Vec::new()
            }
            Effect::ProbeFixes { short, variant, image, category, evidence } => {
                let req = super::runs::FixRequest { short, variant, image, evidence, commit_image: false };
                self.runs.probe_fixes(req, category);
                Vec::new()
            }
            Effect::ApplyFix { short, variant, recipe, commit_image, image, evidence, log } => {
                let req = super::runs::FixRequest { short, variant, image, evidence, commit_image };
                self.runs.apply_fix(req, recipe, log);
                Vec::new()
            }
            Effect::CancelRun { run_id } => {
                self.runs.cancel(&run_id);
                Vec::new()
            }
            Effect::ExpandLines { key, lines } => self.logs.expand(&key, &lines, self.classifier),
            Effect::SearchLog { key, query, upto } => self.logs.search(key, query, upto, self.tx.clone()),
            Effect::Quit => return false,
        };
        for msg in replies {
            let _ = self.tx.send(msg);
        }
        true
    }
}

fn io_live(state: &AppState) -> bool {
    state.runs.iter().any(|r| !r.phase.is_finished())
}

async fn event_loop(
    term: &mut terminal::Term,
    state: &mut AppState,
    theme: &Theme,
    io: &mut Io<'_>,
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
            match &msg {
                Msg::RunFinished { run_id, .. } => io.runs.finished(run_id),
                Msg::Docker(crate::app::DockerStatus::Connected(_)) => io.runs.resume(),
                _ => {}
            }
            // Idle means idle: ticks, and GPU samples nobody is looking at, do not redraw.
            let live = io_live(state);
            let quiet = match &msg {
                Msg::Tick(_) => true,
                Msg::Gpu(Ok(_)) => !state.gpu.visible && !live && state.gpu.unavailable.is_none(),
                Msg::Gpu(Err(why)) => state.gpu.unavailable.as_deref() == Some(why.as_str()),
                _ => false,
            };
            for effect in update(state, msg) {
                if !io.run(effect) {
                    return Ok(());
                }
            }
            dirty |= !quiet;
        }
    }
}
