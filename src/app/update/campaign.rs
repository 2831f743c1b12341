//! Campaigns on the board. A campaign runs in a process of its own (`perftriage campaign`), so it
//! outlives the board; the board reads its journal for the header and the `O` view, and records
//! the fixed images it committed in this board's triage history (a board holds the workspace, so
//! the campaign's process could not). `C` starts one over the picked commits (else every commit
//! the filter shows) after a confirm that says how many runs, in which images, and how long the
//! workspace's earlier runs say it takes.

use super::super::msg::CampaignPlan;
use super::super::state::{Confirm, ConfirmAction, Mode};
use super::super::{AppState, Effect, JobError, Level};
use crate::campaigns::{BOARD_RETRIES as RETRIES, Snapshot};
use crate::dataset::Variant;
use crate::dataset::results::Digested;
use crate::ids::CampaignName;
use crate::triage::{Change, FixOutcome};
use std::time::Duration;

/// A snapshot read from the journal: shown, and its fixes recorded where this board has not yet.
pub fn read(state: &mut AppState, snapshot: Option<Snapshot>) -> Vec<Effect> {
    let mut effects = Vec::new();
    for fix in snapshot.iter().flat_map(|s| &s.fixes) {
        let known = state.board.book.fixed_at(&fix.short, fix.variant.name(), &fix.image).is_some();
        if known || state.session.read_only {
            continue;
        }
        // The journal is read back: only a recipe this board knows becomes a verified fix.
        if !state.session.recipes.iter().any(|r| r.id == fix.recipe) {
            let what =
                format!("campaign fix `{}` on {} is no known recipe: not recorded", fix.recipe, fix.short);
            state.session.log(Level::Warn, crate::logs::display_text(&what));
            continue;
        }
        let (variant, recipe, image) =
            (fix.variant.name().into(), fix.recipe.clone(), Some(fix.image.clone()));
        let change = Change::Fix { variant, recipe, outcome: FixOutcome::Verified, image, log: None };
        // Dated when the campaign made it: its re-run's result comes after it, not before.
        effects.extend(state.record_at(&fix.short, change, fix.at.clone()));
    }
    let starting = state.session.campaign_starting.as_ref().map(|(name, _)| name.to_string());
    if snapshot.as_ref().is_some_and(|s| Some(&s.headline.name) == starting.as_ref()) {
        state.session.campaign_starting = None;
    }
    effects.extend(said_ended(state, snapshot.as_ref()));
    state.session.campaign = snapshot;
    effects
}

/// A campaign this board watched run has just ended: a toast, and the terminal's bell with a
/// desktop notification.
fn said_ended(state: &mut AppState, now: Option<&Snapshot>) -> Option<Effect> {
    let ended = |s: &Snapshot| s.headline.progress.ended == s.headline.progress.total;
    let (before, now) = (state.session.campaign.as_ref()?, now?);
    if before.headline.name != now.headline.name || ended(before) || !ended(now) {
        return None;
    }
    let text = format!("campaign {} ended: {}", now.headline.name, now.headline.progress.tally());
    state.notify(Level::Info, text.clone());
    Some(Effect::Notify(text))
}

/// A result a campaign's run wrote: the variant shows it, as after one of the board's own runs
/// (a record older than the variant's own is not taken).
pub fn result(state: &mut AppState, digested: Digested) -> Vec<Effect> {
    let Digested { record, verdict, warnings } = digested;
    let Some(index) = state.board.entry_index(&record.short) else { return Vec::new() };
    let slot = &mut state.board.entries[index].variants[record.variant as usize];
    if slot.at.is_some() && record.at.is_some() && slot.at > record.at {
        return Vec::new();
    }
    (slot.outcome, slot.verdict, slot.warnings, slot.at) =
        (record.outcome, verdict.map(Box::new), warnings, record.at);
    slot.loaded = true;
    state.board.rebuild_row(index);
    state.board.refilter();
    Vec::new()
}

/// `O`: the campaign view, or how to start one when the workspace has none.
pub fn open(state: &mut AppState) -> Vec<Effect> {
    if state.session.campaign.is_none() {
        let start =
            state.session.keymap.key_name(crate::app::KeyMode::Board, crate::app::Action::StartCampaign);
        state.notify(Level::Info, format!("no campaign in this workspace: {start} starts one"));
        return Vec::new();
    }
    state.session.help_scroll = 0;
    state.mode = Mode::Campaign;
    Vec::new()
}

/// `C`: plan a campaign over the picked commits, else every commit shown — unless one runs in
/// this workspace (or this board is starting one): that one is shown instead.
pub fn ask(state: &mut AppState) -> Vec<Effect> {
    if let Some(running) = running(state) {
        let view =
            state.session.keymap.key_name(crate::app::KeyMode::Board, crate::app::Action::CampaignView);
        state.notify(
            Level::Info,
            format!("{running}: one campaign at a time in a workspace; {view} watches it"),
        );
        return Vec::new();
    }
    let shorts = state.board.picked_or_shown();
    if shorts.is_empty() {
        state.notify(Level::Info, "no commit shown: clear the filter or pick commits for a campaign");
        return Vec::new();
    }
    state.notify(Level::Info, format!("planning a campaign over {} commit(s)…", shorts.len()));
    vec![Effect::PlanCampaign(shorts)]
}

/// What runs in this workspace, said; `None` when no campaign does.
fn running(state: &AppState) -> Option<String> {
    if let Some((name, _)) = &state.session.campaign_starting {
        return Some(format!("campaign {name} is starting"));
    }
    let campaign = state.session.campaign.as_ref()?;
    let crate::campaigns::Liveness::Driving(driver) = &campaign.liveness else { return None };
    Some(format!("campaign {} is running ({driver})", campaign.headline.name))
}

/// The confirm said yes: the campaign's process is started, and no other until its journal is read.
pub fn start(state: &mut AppState, shorts: Vec<crate::ids::Short>, name: CampaignName) -> Vec<Effect> {
    state.session.campaign_starting = Some((name.clone(), state.session.ticks));
    vec![Effect::StartCampaign { shorts, name }]
}

/// The plan came back: its confirm (unless another dialog opened meanwhile).
pub fn planned(state: &mut AppState, plan: CampaignPlan) -> Vec<Effect> {
    if state.mode != Mode::Normal {
        return Vec::new();
    }
    let name = CampaignName::from(format!("board-{}", compact(&state.session.now)));
    let preview = preview(state, &plan, &name);
    let title = format!("Start campaign {name}?");
    let action = ConfirmAction::StartCampaign { shorts: plan.shorts, name };
    state.mode = Mode::Confirm(Confirm::new(title, preview, action));
    Vec::new()
}

/// `2026-11-27T07:40:00Z` → `20261127t074000z`.
fn compact(now: &str) -> String {
    now.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_lowercase()
}

fn preview(state: &AppState, plan: &CampaignPlan, name: &CampaignName) -> Vec<String> {
    let runs = plan.shorts.len() * Variant::ALL.len();
    let mut lines = vec![
        format!(
            "{runs} runs: {} commit(s) × baseline, human, agent, {} at a time",
            plan.shorts.len(),
            plan.concurrency
        ),
        estimate(&plan.run_s, runs, plan.concurrency),
        format!("policy: a failure a verified recipe answers is fixed and run again once; {RETRIES} retries"),
        "        of infrastructure failures (Docker or host lost, a refused pull), with a growing wait"
            .into(),
        "it runs in a process of its own: quitting the board leaves it running;".into(),
        format!("`{} campaign pause {name}` stops it, `… resume {name}` goes on", plan.perftriage),
    ];
    lines.extend(images(state, plan));
    lines
}

/// `about 3h10 (median of 41 earlier runs: 2m12 each)`, or why there is no estimate.
fn estimate(run_s: &[f64], runs: usize, concurrency: u32) -> String {
    let mut sorted: Vec<f64> = run_s.iter().copied().filter(|s| s.is_finite() && *s >= 0.0).collect();
    sorted.sort_by(f64::total_cmp);
    let Some(median) = sorted.get(sorted.len() / 2) else {
        return "duration: no earlier run in this workspace says how long a run takes".into();
    };
    let seconds = |s: f64| Duration::try_from_secs_f64(s).map_or(0, |d| d.as_secs());
    let total = seconds(median * runs as f64 / f64::from(concurrency.max(1)));
    let (h, m) = (total / 3600, total % 3600 / 60);
    let each = crate::app::compact_duration(seconds(*median));
    format!("duration: about {h}h{m:02} (the median of {} earlier runs: {each} each)", sorted.len())
}

/// The distinct images, each with how many runs use it; a variant's fixed image where the
/// triage history has one; variants with no image said with why.
fn images(state: &AppState, plan: &CampaignPlan) -> Vec<String> {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    let mut missing = Vec::new();
    for (short, variant, image) in &plan.images {
        let fixed = state.board.book.fixed_image(short, variant.name());
        match (fixed, image) {
            (Some(fixed), _) => *counts.entry(format!("{fixed} (fixed)")).or_default() += 1,
            (None, Ok(image)) => *counts.entry(image.to_string()).or_default() += 1,
            (None, Err(why)) => missing.push(format!("  {short} {}: no image: {why}", variant.name())),
        }
    }
    let mut lines = vec![format!("images ({}):", counts.len())];
    lines.extend(counts.iter().map(|(image, n)| format!("  {image} × {n}")));
    lines.extend(missing);
    lines
}

/// Something was asked of the campaign: said, and the journal read.
pub fn asked(state: &mut AppState, asked: Result<String, JobError>) -> Vec<Effect> {
    match asked {
        Ok(what) => {
            state.notify(Level::Info, format!("asked: {what}; the journal says how it went"));
            vec![state.read_campaign()]
        }
        Err(why) => {
            state.notify(Level::Error, format!("campaign not asked: {why}"));
            Vec::new()
        }
    }
}

/// Ticks a started campaign has to write its journal before the board says it did not.
const START_TICKS: u64 = 30;

/// A tick: a campaign this board started that wrote no journal in `START_TICKS` is said, and `C`
/// works again.
pub fn check_start(state: &mut AppState) {
    let Some((name, at)) = state.session.campaign_starting.clone() else { return };
    if state.session.ticks.saturating_sub(at) > START_TICKS {
        state.session.campaign_starting = None;
        let log = format!("campaigns/{name}/process.log");
        state.notify(
            Level::Error,
            format!("campaign {name} wrote no journal in {START_TICKS} s: see {log} in the workspace"),
        );
    }
}

/// The campaign's process started (or not): said, and the journal read at once.
pub fn started(state: &mut AppState, started: Result<CampaignName, JobError>) -> Vec<Effect> {
    match started {
        Ok(name) => {
            // The board follows the campaign it started.
            state.session.campaign_chosen = None;
            let view =
                state.session.keymap.key_name(crate::app::KeyMode::Board, crate::app::Action::CampaignView);
            state.notify(
                Level::Info,
                format!("campaign {name} started in a process of its own; {view} shows it"),
            );
            vec![state.read_campaign()]
        }
        Err(why) => {
            state.session.campaign_starting = None;
            state.notify(Level::Error, format!("campaign not started: {why}"));
            Vec::new()
        }
    }
}
