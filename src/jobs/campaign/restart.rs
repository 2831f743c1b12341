//! What a campaign finds when it starts again: a run launched before the stop either wrote its
//! result (recorded from it, never run twice), still runs (picked up from its launch record on
//! the host it runs on) or left neither (run again); containers that cannot go on are removed.

use super::steps::Crew;
use super::{EngineError, say};
use crate::campaigns::Event;
use crate::dataset::{RunStatus, Variant};
use crate::docker::Engine;
use crate::ids::{RunId, Short};
use crate::jobs::executor::Target;
use crate::jobs::run::Start;
use crate::runs::FailureKind;
use crate::session::Context;

impl Crew<'_> {
    /// A run launched before a restart: its result if it wrote one before the stop (never run
    /// twice), else its container picked up from its launch record on the host it ran on; a run
    /// with neither was lost and runs again.
    pub(super) async fn pick_up(
        &self,
        (short, variant): (&Short, Variant),
        run_id: &RunId,
    ) -> Result<(), EngineError> {
        let ctx = self.ctx;
        if let Some(finished) = written_before(ctx, (short, variant), run_id) {
            say(&format!("{short} {}: run {run_id} had ended before the stop", variant.name()));
            return Ok(self.journal.append(&finished)?);
        }
        let launch = match crate::jobs::launches::read(&ctx.workspace, run_id) {
            Ok(launch) => launch,
            Err(why) => {
                // Killed between its container's creation and its record, or a record that cannot
                // be used: its container (ours by its labels) is removed and the cell runs again.
                removed(ctx, run_id).await;
                let why = match why.is_missing() {
                    true => "it had not started before the stop".to_string(),
                    false => format!("{why}; its container is removed and the cell runs again"),
                };
                return self.unrun(run_id, FailureKind::LostInARestart, &why);
            }
        };
        if (&launch.plan.short, launch.plan.variant) != (short, variant) {
            let (recorded, cell) = (launch.plan.short.as_str(), launch.plan.variant.name());
            let why = format!(
                "its launch record is of {} {cell}, the journal's cell is {short} {}: refused, its container left for a look",
                crate::logs::display_text(recorded),
                variant.name()
            );
            return self.unrun(run_id, FailureKind::LaunchMismatch, &why);
        }
        let host = launch.host.as_deref();
        let engine = match crate::jobs::fixing::engine_of(ctx, host).await {
            Ok(engine) => engine,
            Err(why) => return self.unrun(run_id, FailureKind::DockerUnreachable, &why.to_string()),
        };
        let Some((container, created_unix)) = container_of(ctx, &engine, run_id).await else {
            return self.unrun(run_id, FailureKind::LostInARestart, "its container was gone after the stop");
        };
        if let Some(code) = no_evidence(&engine, &container).await {
            let _ = engine.remove(&container).await;
            let why = format!("its container had ended after the stop with nothing to read (exit {code})");
            return self.unrun(run_id, FailureKind::LostInARestart, &why);
        }
        say(&format!("{short} {}: picking up run {run_id} from its launch record", variant.name()));
        let start = Start::Resume { container, created_unix, image_digest: launch.image_digest.clone() };
        let target = Target::Engine { host: launch.host.clone(), engine };
        self.executed(launch.plan, target, start).await
    }
}

/// The cell's result file, when it is this run's: the run ended before the stop.
fn written_before(ctx: &Context, (short, variant): (&Short, Variant), run_id: &RunId) -> Option<Event> {
    let path = ctx.workspace.join("results").join(format!("{short}_{}_result.json", variant.name()));
    let record: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    (record["perftriage"]["run_id"].as_str()? == run_id.as_str()).then_some(())?;
    let own = crate::jobs::run::own_result_path(&ctx.workspace, (short, variant), run_id);
    Some(finished_as_recorded(&record, if own.exists() { &own } else { &path }, run_id))
}

/// `run_id`'s `finished` event from the result file at `path` (`record`, as read).
pub(super) fn finished_as_recorded(
    record: &serde_json::Value,
    path: &std::path::Path,
    run_id: &RunId,
) -> Event {
    let ours = &record["perftriage"];
    let status = if record["status"] == "success" { RunStatus::Success } else { RunStatus::Error };
    let category = ours["classification"]["category"].as_str().map(FailureKind::from_name);
    let disposition = serde_json::from_value(ours["classification"]["disposition"].clone()).ok();
    let result = Some(path.display().to_string());
    let at = crate::session::now_rfc3339();
    Event::Finished { run_id: run_id.clone(), status, category, disposition, result, at }
}

/// The container of `run_id` on `engine`, running or exited (an exited one holds the run's
/// evidence: the pick-up classifies its log): its id and creation time.
async fn container_of(ctx: &Context, engine: &Engine, run_id: &RunId) -> Option<(String, i64)> {
    let ours = engine.ours(&ctx.workspace.display().to_string()).await.ok()?;
    let mine =
        |c: &crate::docker::Ours| c.labels.get(crate::runs::LABEL_RUN).is_some_and(|r| r == run_id.as_str());
    ours.into_iter().find(mine).map(|c| (c.id, c.created))
}

/// An exited container's exit code when it holds no evidence of the run's own: 0 (the run's end
/// came, but the stop came before its result was written) or SIGKILL/SIGTERM (its daemon
/// restarted, `docker stop` or `kill`): the run is lost and runs again. A container whose server
/// failed on its own (any other code) is read.
async fn no_evidence(engine: &Engine, container: &str) -> Option<i64> {
    let (running, code) = engine.state(container).await.ok()?;
    code.filter(|c| !running && [0, 128 + 9, 128 + 15].contains(c))
}

/// A container of `run_id` without its launch record (killed between its creation and the
/// record) cannot be picked up: it is removed wherever it runs (its cell runs again).
async fn removed(ctx: &Context, run_id: &RunId) {
    for engine in engines(ctx).await {
        if let Some((container, _)) = container_of(ctx, &engine, run_id).await {
            let _ = engine.remove(&container).await;
        }
    }
}

/// Containers a stopped perftriage left that cannot go on (a fix's, a stopped run's) are removed
/// from every engine before the campaign goes on; the containers of the campaign's runs in flight
/// (`in_flight`), running or exited, are left for their cells to pick up.
pub async fn swept(ctx: &Context, state: &crate::campaigns::CampaignState) {
    let (in_flight, ended) = (state.runs_in_flight(), state.runs_ended());
    let workspace = ctx.workspace.display().to_string();
    for engine in engines(ctx).await {
        for orphan in crate::jobs::orphans::find(&engine, &workspace).await {
            if in_flight.contains(&orphan.run_id) {
                continue;
            }
            say(&format!("removing {} (left by a stopped perftriage)", orphan.name));
            let _ = engine.remove(&orphan.id).await;
        }
        // A run given up on while its container still ran (its host unknown, its launch record
        // refused) is not left running silently: gone once its engine answers again.
        for (id, name) in crate::jobs::orphans::running_after_their_end(&engine, &workspace, &ended).await {
            say(&format!("removing {name}: still running, though its run ended in the journal"));
            let _ = engine.remove(&id).await;
        }
    }
}

/// Every engine runs may be on that answers: the `[[hosts]]`, else this machine's.
async fn engines(ctx: &Context) -> Vec<Engine> {
    if ctx.config.hosts.is_empty() {
        return Engine::connect().await.into_iter().collect();
    }
    let each = ctx.config.hosts.iter().map(crate::jobs::fleet::connect);
    futures_util::future::join_all(each).await.into_iter().flatten().collect()
}
