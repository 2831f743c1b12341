//! A headless run's id and plan: what `run`, `fix apply`'s re-run, `slurm` and campaigns hand the
//! executor, planned by the one rule (`runs::launch_plan`) the board's confirm uses too.

use crate::dataset::Variant;
use crate::runs::{LaunchAsk, PlanError, Planning, Repeat, RunId, RunPlan, launch_plan};
use crate::session::Context;

/// `entry`'s `variant` planned for a launch (`runs::launch_plan`): run `repeat` times (`None`:
/// `[runs] repeat`), in `fixed` (an image and the fixes that made it) where given.
pub fn planned(
    ctx: &Context,
    (entry, variant): (&crate::dataset::Entry, Variant),
    run_id: &RunId,
    repeat: Option<Repeat>,
    fixed: Option<(crate::ids::ImageRef, Vec<String>)>,
) -> Result<RunPlan, PlanError> {
    let runs = &ctx.config.runs;
    let on = Planning { config: runs, images: &ctx.images, workspace: &ctx.workspace };
    let ask = LaunchAsk { fixed, repeat: repeat.unwrap_or(runs.repeat).plan_for(entry, variant) };
    launch_plan((&entry.commit, variant), run_id, on, ask)
}

/// Unique across processes and within one (a campaign runs many): two runs of one commit in the same
/// second must not share a container name.
pub fn new_run_id() -> RunId {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let stamp = crate::session::now_compact().to_lowercase();
    match NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) {
        0 => format!("{stamp}-{}", std::process::id()).into(),
        n => format!("{stamp}-{}-{n}", std::process::id()).into(),
    }
}
