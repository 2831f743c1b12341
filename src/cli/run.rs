//! Headless `perftriage run SHORT --variant V`: the board's engine, its log lines on stdout.
//! Exit 0 success, 3 the run failed (category printed), 1 a tool error.

use crate::dataset::{RunStatus, Variant};
use crate::jobs::run::{RunEnv, RunEvent, Start, write_result};
use crate::logs::Redactor;
use crate::runs::{LaunchAsk, Pane, Planning, Repeat, RunId, RunPlan, launch_plan};
use crate::session::Context;
use anyhow::Result;
use std::io::Write;
use std::process::ExitCode;
use tokio::sync::{mpsc, watch};

/// How a headless run goes: JSON lines or plain, on which host, how many benchmark repeats.
pub struct How<'a> {
    pub json: bool,
    pub host: Option<&'a str>,
    pub repeat: Option<Repeat>,
}

pub fn run(ctx: &Context, short: &str, variant: Variant, how: &How) -> Result<ExitCode> {
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let book = ctx.read_workspace().book;
    let short = &entry.commit.short;
    let fixed =
        book.fixed_image(short, variant.name()).map(|image| (image, book.fixes(short, variant.name())));
    let plan = planned(ctx, (entry, variant), &run_id(), how.repeat, fixed)?;
    super::runtime()?.block_on(run_plan(ctx, plan, how.json, how.host))
}

/// `entry`'s `variant` planned for a launch (`runs::launch_plan`): run `repeat` times (`None`:
/// `[runs] repeat`), in `fixed` (an image and the fixes that made it) where given.
pub fn planned(
    ctx: &Context,
    (entry, variant): (&crate::dataset::Entry, Variant),
    run_id: &RunId,
    repeat: Option<Repeat>,
    fixed: Option<(crate::ids::ImageRef, Vec<String>)>,
) -> Result<RunPlan> {
    let runs = &ctx.config.runs;
    let on = Planning { config: runs, images: &ctx.images, workspace: &ctx.workspace };
    let ask = LaunchAsk { fixed, repeat: repeat.unwrap_or(runs.repeat).plan_for(entry, variant) };
    Ok(launch_plan((&entry.commit, variant), run_id, on, ask)?)
}

/// Unique across processes and within one (a campaign runs many): two runs of one commit in the same
/// second must not share a container name.
pub fn run_id() -> RunId {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let stamp = crate::session::now_compact().to_lowercase();
    match NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) {
        0 => format!("{stamp}-{}", std::process::id()).into(),
        n => format!("{stamp}-{}-{n}", std::process::id()).into(),
    }
}

/// Carry out a plan on `host` (or the host placement picks; see `jobs::fleet`), printing its logs.
pub async fn run_plan(ctx: &Context, plan: RunPlan, json: bool, host: Option<&str>) -> Result<ExitCode> {
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let (cancel_tx, cancel) = watch::channel(false);
    let stopped_by = on_signal(&cancel_tx);
    let printer = tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            if print_event(&event, json).is_err() {
                break; // stdout is gone (a closed pipe): the run goes on, unprinted
            }
        }
    });
    let outcome = carry_out(ctx, &plan, host, (events_tx, cancel), Start::Fresh).await?;
    let _ = printer.await;
    if let Some(signal) = stopped_by.lock().ok().and_then(|s| *s) {
        super::out::err(&format!(
            "perftriage: stopped by {}; the container is removed, no result written",
            signal.0
        ));
        return Ok(ExitCode::from(128 + signal.1));
    }
    conclude(ctx, &outcome, &ctx.redactor)
}

/// What a run sends while it goes, and the switch that cancels it.
pub type RunLink = (mpsc::UnboundedSender<RunEvent>, watch::Receiver<bool>);

/// Place `plan` on `host` (or the host placement picks; see `jobs::fleet`) and carry it out from
/// `start`, its events to the link's sender.
pub async fn carry_out(
    ctx: &Context,
    plan: &RunPlan,
    host: Option<&str>,
    link: RunLink,
    start: Start,
) -> Result<crate::jobs::run::RunOutcome> {
    let claims = crate::jobs::fleet::Claims::default();
    let placed = place(ctx, plan, host, &claims).await?;
    Ok(carry_out_on(ctx, plan, placed, link, start).await)
}

/// The engine `plan` goes to: `host`, else the one placement picks; its claim held in `claims`.
pub async fn place(
    ctx: &Context,
    plan: &RunPlan,
    host: Option<&str>,
    claims: &crate::jobs::fleet::Claims,
) -> Result<(String, crate::docker::Engine), crate::jobs::fleet::PlaceError> {
    let workspace = ctx.workspace.display().to_string();
    crate::jobs::fleet::engine_for(crate::jobs::fleet::Placement {
        hosts: &ctx.config.hosts,
        chosen: host,
        need: &plan.container.gpus,
        workspace: &workspace,
        claims,
        run_id: &plan.run_id,
    })
    .await
}

/// Carry `plan` out from `start` on the engine placed for it.
pub async fn carry_out_on(
    ctx: &Context,
    plan: &RunPlan,
    (host, engine): (String, crate::docker::Engine),
    (events, cancel): RunLink,
    start: Start,
) -> crate::jobs::run::RunOutcome {
    super::out::err(&format!(
        "perftriage: Docker connected on host {host} ({}); {} {} in {}",
        engine.description,
        plan.short,
        plan.variant.name(),
        plan.image
    ));
    let env = RunEnv {
        engine,
        workspace: ctx.workspace.clone(),
        vllm_repo: ctx.config.runs.vllm_repo.clone(),
        redactor: ctx.redactor.clone(),
        classifier: std::sync::Arc::new(ctx.classifier.clone()),
        events,
        cancel,
        // This machine's engine is no `[[hosts]]` host.
        host: (!ctx.config.hosts.is_empty()).then_some(host),
    };
    crate::jobs::run::run(plan, env, start).await
}

/// Write the result and say how the run went: exit 0 ok, 3 failed; a set-up error writes no
/// result (it says nothing of the commit) and exits 1.
fn conclude(ctx: &Context, outcome: &crate::jobs::run::RunOutcome, redactor: &Redactor) -> Result<ExitCode> {
    if let Some(kind) = outcome.category.as_ref().filter(|k| k.is_setup_error()) {
        let why = outcome.error.as_deref().unwrap_or("");
        super::out::err(&format!(
            "perftriage: set-up error ({kind}): {why}; nothing was run, no result written"
        ));
        return Ok(ExitCode::from(1));
    }
    let path = write_result(outcome, &ctx.workspace, redactor, &crate::session::now_rfc3339(), None)?;
    let summary = match outcome.status {
        RunStatus::Success => format!("done: {} metrics", outcome.metrics.len()),
        _ => format!(
            "failed: {} — {}",
            outcome.category.as_ref().map_or("?", |c| c.name()),
            outcome.error.as_deref().unwrap_or("")
        ),
    };
    let (short, variant) = (&outcome.plan.short, outcome.plan.variant.name());
    super::out::err(&format!("perftriage: {short} {variant}: {summary}; result {}", path.display()));
    Ok(if outcome.status == RunStatus::Success { ExitCode::SUCCESS } else { ExitCode::from(3) })
}

/// A run's event on stdout: JSON lines, or `[server] …` text (phases go to stderr then).
fn print_event(event: &RunEvent, json: bool) -> std::io::Result<()> {
    let mut out = super::out::stdout();
    match event {
        RunEvent::Phase(p) if json => {
            writeln!(out, "{}", super::out::json(&serde_json::json!({ "event": "phase", "phase": p }))?)?
        }
        RunEvent::Phase(p) => super::out::err(&format!("perftriage: {}", p.word())),
        RunEvent::Lines { pane, lines } => {
            let tag = if *pane == Pane::Server { "server" } else { "bench" };
            for line in lines {
                if json {
                    let event = serde_json::json!({ "event": "line", "pane": tag, "text": line.text() });
                    writeln!(out, "{}", super::out::json(&event)?)?;
                } else {
                    writeln!(out, "[{tag}] {}", line.text())?;
                }
            }
        }
    }
    Ok(())
}

/// A signal that stopped the run: its name and number.
pub(super) type Stopped = std::sync::Arc<std::sync::Mutex<Option<(&'static str, u8)>>>;

/// SIGINT, SIGTERM or SIGHUP cancel the run: its container is stopped and removed before we exit.
pub(super) fn on_signal(cancel: &watch::Sender<bool>) -> Stopped {
    let (stopped, cancel) = (Stopped::default(), cancel.clone());
    let record = stopped.clone();
    crate::jobs::signals::on_stop(move |name, number| {
        if let Ok(mut s) = record.lock() {
            *s = Some((name, number));
        }
        super::out::err(&format!("perftriage: {name}: stopping and removing the container"));
        let _ = cancel.send(true);
    });
    stopped
}
