//! Headless campaigns: `perftriage campaign start|resume|pause|cancel|status`. A campaign runs
//! every (commit, variant) it was started with, one after the other, with its policy (auto-fix,
//! retries); its journal (`<workspace>/campaigns/<name>/journal.jsonl`) is its whole state, so a
//! campaign stopped any way — a signal, SIGKILL, a reboot — goes on with `resume`. Exit 0 every
//! run succeeded, 3 some were left failed, 2 a bad request, 1 a tool error.

mod list;
mod notify;
mod status;
mod stop;

use crate::campaigns::{CampaignError, CampaignSpec, Event, Policy, SCHEMA, parse_variants};
use crate::dataset::Variant;
use crate::ids::{CampaignName, Short};
use crate::jobs::driver::{Claiming, DriverError, DriverLock};
use crate::jobs::journal::Journal;
use crate::runs::Repeat;
use crate::session::Context;
use anyhow::Result;
use std::process::ExitCode;

pub use list::list;
pub use status::{Form, morning, status};

/// `campaign start`'s request, as the command line gave it.
pub struct StartArgs {
    /// Shorts, each argument space- or comma-separated.
    pub commits: Vec<String>,
    pub filter: Option<String>,
    pub failing: bool,
    pub variants: String,
    pub repeat: Option<Repeat>,
    pub policy: Policy,
    /// Runs at once (`None`: the `[[hosts]]` slots, 1 without hosts).
    pub concurrency: Option<u32>,
    /// Runs go to Slurm as batch jobs.
    pub slurm: bool,
    pub name: Option<String>,
    /// Only the cells this campaign left failed.
    pub rerun_failed: Option<String>,
    /// Run with the summary JSON on stdin when the driver ends.
    pub notify: Option<String>,
}

pub fn start(ctx: &Context, args: &StartArgs) -> Result<ExitCode> {
    let spec = match spec(ctx, args) {
        Ok(spec) => spec,
        Err(why) => {
            super::out::err(&format!("perftriage: campaign not started: {why}"));
            return Ok(ExitCode::from(2));
        }
    };
    let claiming = Claiming::take(&ctx.workspace)?;
    let Some(lock) = claim(ctx, &spec)? else { return Ok(ExitCode::from(2)) };
    let usable = Some(spec.commits.iter().filter(|s| usable(ctx, s)).count());
    let started =
        Event::Started { schema: SCHEMA, spec: spec.clone(), usable, at: crate::session::now_rfc3339() };
    let journal = Journal::create(&ctx.workspace, &started, &spec.name)?;
    drop(claiming);
    announce(&spec, &journal);
    let code = crate::cli::runtime()?.block_on(crate::jobs::campaign::drive(ctx, &journal, lock))?;
    if let Some(command) = &args.notify {
        notify::notify(ctx, &journal, command);
    }
    Ok(code)
}

/// What it will run, and where its journal is.
fn announce(spec: &CampaignSpec, journal: &Journal) {
    let variants: Vec<&str> = spec.variants.iter().map(|v| v.name()).collect();
    let (runs, commits) = (spec.cells().count(), spec.commits.len());
    let (name, path) = (&spec.name, journal.path.display());
    let said =
        format!("campaign {name}: {runs} runs ({commits} commits × {}), journal {path}", variants.join(", "));
    super::out::err(&format!("perftriage: {said}"));
}

/// `spec`'s driver lock, taken while no other live campaign of the workspace runs one of its
/// cells (their result files are the same); `None` (said) when one does or `spec`'s own is held.
/// The caller holds `Claiming`, so two claims at once see each other.
fn claim(ctx: &Context, spec: &CampaignSpec) -> Result<Option<DriverLock>> {
    if let Some(why) = overlapping(ctx, spec) {
        super::out::err(&format!("perftriage: campaign {} not driven: {why}", spec.name));
        return Ok(None);
    }
    match DriverLock::take(&ctx.workspace, &spec.name) {
        Ok(lock) => Ok(Some(lock)),
        Err(e @ DriverError::Held { .. }) => {
            super::out::err(&format!("perftriage: {e}"));
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// Another campaign of the workspace whose driver is alive and which shares a cell with `spec`.
fn overlapping(ctx: &Context, spec: &CampaignSpec) -> Option<String> {
    let ours: std::collections::BTreeSet<_> = spec.cells().collect();
    let dirs = std::fs::read_dir(ctx.workspace.join("campaigns")).ok()?;
    dirs.flatten().find_map(|d| {
        let name = CampaignName::from(d.file_name().to_string_lossy().into_owned());
        let live = crate::jobs::driver::liveness(&ctx.workspace, &name);
        let crate::campaigns::Liveness::Driving(driver) = live.clone() else { return None };
        let other = Journal::of(&ctx.workspace, &name).state().ok()?;
        let shared = other.spec.cells().filter(|c| ours.contains(c)).count();
        (name != spec.name && shared > 0).then(|| {
            format!("campaign {name} ({driver}) runs {shared} of its cells; one driver a cell: watch it with `campaign status {name}`")
        })
    })
}

/// `short` is usable 3-way by the results this process read.
pub(crate) fn usable(ctx: &Context, short: &Short) -> bool {
    ctx.find(short).is_some_and(crate::report::usable_3way)
}

/// Go on with a campaign where its journal says it stopped.
pub fn resume(ctx: &Context, name: &str, notify: Option<&str>) -> Result<ExitCode> {
    let Some(journal) = existing(ctx, name) else { return Ok(ExitCode::from(2)) };
    let claiming = Claiming::take(&ctx.workspace)?;
    let spec = journal.state()?.spec;
    let Some(lock) = claim(ctx, &spec)? else { return Ok(ExitCode::from(2)) };
    drop(claiming);
    let parsed = journal.repaired()?;
    said(&parsed, "it is dropped");
    let state = journal.fold(&parsed)?;
    if state.cancelled {
        super::out::err(&format!("perftriage: campaign {name} was cancelled; nothing to resume"));
        return Ok(ExitCode::SUCCESS);
    }
    if state.paused {
        journal.append(&Event::Resumed { at: crate::session::now_rfc3339() })?;
    }
    let code = crate::cli::runtime()?.block_on(crate::jobs::campaign::drive(ctx, &journal, lock))?;
    if let Some(command) = notify {
        notify::notify(ctx, &journal, command);
    }
    Ok(code)
}

/// `pause` or `cancel`. A campaign whose driver is alive is asked (the driver journals it and
/// stops before its next step; this waits until the journal says so); one whose driver is gone
/// is stopped here, under its lock, the journal repaired first.
pub fn stop(ctx: &Context, name: &str, cancel: bool) -> Result<ExitCode> {
    let Some(journal) = existing(ctx, name) else { return Ok(ExitCode::from(2)) };
    let lock = match DriverLock::take(&ctx.workspace, &journal.name) {
        Ok(lock) => lock,
        Err(DriverError::Held { driver, .. }) => {
            return stop::ask_driver(&journal, &ctx.workspace, cancel, driver);
        }
        Err(e) => return Err(e.into()),
    };
    let parsed = journal.repaired()?;
    said(&parsed, "it is dropped");
    let state = journal.fold(&parsed)?;
    if state.has_ended() {
        let tally = state.progress().tally();
        super::out::err(&format!("perftriage: campaign {name} already ended ({tally}); nothing changed"));
        return Ok(ExitCode::SUCCESS);
    }
    journal.append(&crate::jobs::campaign::stop_event(cancel))?;
    drop(lock);
    Ok(ExitCode::SUCCESS)
}

/// `cancel NAME --run RUN`: the live driver is asked to stop that run and leave its cell; this
/// waits until the journal says the run ended.
pub fn cancel_run(ctx: &Context, name: &str, run_id: &crate::ids::RunId) -> Result<ExitCode> {
    let Some(journal) = existing(ctx, name) else { return Ok(ExitCode::from(2)) };
    let in_flight = journal.state()?.runs_in_flight();
    let driver = crate::jobs::driver::liveness(&ctx.workspace, &journal.name);
    let refused = match (&driver, in_flight.contains(run_id)) {
        (_, false) => Some(format!("run {run_id} is not in flight in campaign {name}")),
        (crate::campaigns::Liveness::Driving(_), true) => None,
        (_, true) => Some(format!("no driver runs campaign {name}: run {run_id} is not running")),
    };
    if let Some(why) = refused {
        super::out::err(&format!("perftriage: {}", crate::logs::display_text(&why)));
        return Ok(ExitCode::from(2));
    }
    stop::ask_to_stop_run(&journal, &ctx.workspace, run_id, driver.driver().cloned())
}

/// What reading the journal found beside its events: a torn last line (`torn`: what becomes of
/// it), events of kinds a newer perftriage wrote.
pub(crate) fn said(parsed: &crate::campaigns::Parsed, torn: &str) {
    if parsed.torn_tail {
        super::out::err(&format!("perftriage: the journal's last line was cut short by a crash; {torn}"));
    }
    for skipped in &parsed.skipped {
        super::out::err(&format!("perftriage: journal {skipped}: skipped"));
    }
}

/// The journal of the campaign `name`, or `None` (said) when there is no such campaign here.
/// One rule for every verb: a plain name (no path), whose journal is there.
fn existing(ctx: &Context, name: &str) -> Option<Journal> {
    let name = CampaignName::from(name);
    if !name.is_plain() {
        super::out::err(&format!(
            "perftriage: {}",
            CampaignError::Name(crate::logs::display_text(name.as_str()))
        ));
        return None;
    }
    let journal = Journal::of(&ctx.workspace, &name);
    if journal.path.symlink_metadata().is_ok() {
        return Some(journal);
    }
    super::out::err(&format!(
        "perftriage: no campaign `{name}` in {}",
        ctx.workspace.join("campaigns").display()
    ));
    None
}

fn spec(ctx: &Context, args: &StartArgs) -> Result<CampaignSpec, CampaignError> {
    let name = CampaignName::from(args.name.clone().unwrap_or_else(default_name));
    if !name.is_plain() {
        return Err(CampaignError::Name(name.to_string()));
    }
    let (commits, variants, only) = match &args.rerun_failed {
        Some(of) => failed_cells(ctx, of)?,
        None => {
            let variants = parse_variants(&args.variants)?;
            let commits = commits(ctx, args, &variants)?;
            let only = args.failing.then(|| failing_cells(ctx, &commits, &variants));
            (commits, variants, only)
        }
    };
    let repeat = args.repeat.unwrap_or(ctx.config.runs.repeat);
    let concurrency = args.concurrency.unwrap_or_else(|| crate::config::total_slots(&ctx.config.hosts));
    if args.slurm && args.policy.auto_fix {
        return Err(CampaignError::FixOnSlurm);
    }
    if args.slurm && ctx.config.slurm.shared_dir.is_none() {
        return Err(CampaignError::NoSharedDir);
    }
    let (policy, slurm) = (args.policy, args.slurm);
    Ok(CampaignSpec { name, commits, variants, repeat, policy, concurrency, slurm, only })
}

/// Cells of a campaign's commits and variants whose variant failed: `--failing` runs only these.
fn failing_cells(ctx: &Context, commits: &[Short], variants: &[Variant]) -> Vec<(Short, Variant)> {
    let failing = |short: &Short, v: Variant| {
        ctx.entries.iter().any(|e| e.commit.short == *short && e.variant(v).outcome.status.is_failure())
    };
    let cells = commits.iter().flat_map(|c| variants.iter().map(move |v| (c.clone(), *v)));
    cells.filter(|(c, v)| failing(c, *v)).collect()
}

/// The cells campaign `of` left failed, with their commits and variants: `--rerun-failed`.
type Cells = (Vec<Short>, Vec<Variant>, Option<Vec<(Short, Variant)>>);
fn failed_cells(ctx: &Context, of: &str) -> Result<Cells, CampaignError> {
    let name = CampaignName::from(of);
    if !name.is_plain() {
        return Err(CampaignError::Name(crate::logs::display_text(of)));
    }
    let state = Journal::of(&ctx.workspace, &name)
        .state()
        .map_err(|e| CampaignError::Unreadable(name.clone(), e.to_string()))?;
    let left: Vec<(Short, Variant)> = state
        .cells
        .iter()
        .filter(|(_, cell)| cell.is_final(state.cancelled) == Some(false))
        .map(|(key, _)| key.clone())
        .collect();
    if left.is_empty() {
        return Err(CampaignError::NothingFailed(name));
    }
    let mut commits: Vec<Short> = left.iter().map(|(s, _)| s.clone()).collect();
    commits.dedup();
    let variants = Variant::ALL.into_iter().filter(|v| left.iter().any(|(_, lv)| lv == v)).collect();
    Ok((commits, variants, Some(left)))
}

fn default_name() -> String {
    format!("campaign-{}", crate::session::now_compact().to_lowercase())
}

/// The commits asked for: named, else those the filter shows (the board's filter language), else
/// all; `--failing` keeps those with a failing variant among the ones asked.
fn commits(ctx: &Context, args: &StartArgs, variants: &[Variant]) -> Result<Vec<Short>, CampaignError> {
    let named: Vec<&str> =
        args.commits.iter().flat_map(|a| a.split([',', ' '])).filter(|s| !s.is_empty()).collect();
    let book = ctx.read_workspace().book;
    let query = crate::app::filter::Query::parse(args.filter.as_deref().unwrap_or(""));
    let mut out = Vec::new();
    for short in &named {
        ctx.find(short).ok_or_else(|| CampaignError::NoCommit(short.to_string()))?;
    }
    for entry in &ctx.entries {
        let c = &entry.commit;
        let asked = named.is_empty() || named.iter().any(|s| c.short == *s || c.full == *s);
        let shown = query.matches(&crate::app::rows::build_row(entry, &book));
        let failing = !args.failing || variants.iter().any(|v| entry.variant(*v).outcome.status.is_failure());
        if asked && shown && failing {
            out.push(c.short.clone());
        }
    }
    if out.is_empty() {
        return Err(CampaignError::NothingAsked);
    }
    Ok(out)
}
