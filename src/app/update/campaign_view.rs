//! The board as a campaign's client: the `O` view's pause, resume and cancel, a campaign run's
//! stop (`x`) asked of its driver, and its live log (`L`, Enter in `R`). Each verb confirms first
//! and says the headless command it is the same as.

use super::super::state::{Confirm, ConfirmAction, Mode};
use super::super::{AppState, Effect, JobKey, Level};
use crate::campaigns::{Liveness, Snapshot};
use crate::ids::CampaignName;

/// A key in the `O` view: scrolling, or pause, resume or cancel after a confirm.
pub fn act(state: &mut AppState, action: crate::app::Action) -> Vec<Effect> {
    use crate::app::Action;
    use crate::campaigns::Verb;
    let verb = match action {
        Action::CampaignPause => Verb::Pause,
        Action::CampaignResume => Verb::Resume,
        Action::CampaignCancel => Verb::Cancel,
        Action::CampaignNext => return switch(state, 1),
        Action::CampaignPrevious => return switch(state, -1),
        Action::MenuDown => return select(state, 1),
        Action::MenuUp => return select(state, -1),
        Action::OpenLog => return open_cell(state),
        other => return super::help::act(state, other),
    };
    let Some(campaign) = &state.session.campaign else { return Vec::new() };
    if let Some(why) = refused(campaign, verb) {
        state.notify(Level::Info, why);
        return Vec::new();
    }
    let name = CampaignName::from(campaign.headline.name.clone());
    let title = format!("{} campaign {name}?", capitalised(verb.word()));
    let preview = verb_preview(campaign, verb);
    state.mode = Mode::Confirm(Confirm::new(title, preview, ConfirmAction::Campaign { name, verb }));
    Vec::new()
}

/// The workspace's campaigns as the last read listed them (newest first).
pub fn named(state: &mut AppState, names: Vec<CampaignName>) -> Vec<Effect> {
    state.session.campaign_names = names;
    Vec::new()
}

/// `j`/`k`: the next or previous cell, the view scrolled to keep its commit's line in sight.
fn select(state: &mut AppState, step: isize) -> Vec<Effect> {
    let Some(campaign) = &state.session.campaign else { return Vec::new() };
    let (cells, per_row) = (campaign.cells.len(), campaign.variants_asked().max(1));
    let cell = state.session.campaign_cell.saturating_add_signed(step).min(cells.saturating_sub(1));
    state.session.campaign_cell = cell;
    // The commit's line: under the header line; the view shows the size less its frame and title.
    let line = u16::try_from(1 + cell / per_row).unwrap_or(u16::MAX);
    let shown = state.session.size.1.saturating_sub(6).max(1);
    let scroll = &mut state.session.help_scroll;
    *scroll = (*scroll).min(line).max(line.saturating_sub(shown - 1));
    Vec::new()
}

/// Enter: the selected cell's runs, fixes with their logs, and result, as a document.
fn open_cell(state: &mut AppState) -> Vec<Effect> {
    let Some(campaign) = &state.session.campaign else { return Vec::new() };
    let Some(cell) = campaign.cells.get(state.session.campaign_cell) else { return Vec::new() };
    let name = CampaignName::from(campaign.headline.name.clone());
    let key = crate::app::LogKey {
        short: cell.short.clone(),
        variant: cell.variant,
        log: crate::app::LogId::CampaignCell,
    };
    state.mode = Mode::Normal;
    super::documents::show(state, key, crate::app::Document::CampaignCell(name))
}

/// `]` (`step` 1) shows the next older campaign, `[` (-1) the next newer; the newest is followed
/// (a campaign started later shows) rather than held by name.
fn switch(state: &mut AppState, step: isize) -> Vec<Effect> {
    let names = &state.session.campaign_names;
    let shown = state.session.campaign.as_ref().map(|c| c.headline.name.as_str());
    let at = names.iter().position(|n| Some(n.as_str()) == shown).unwrap_or(0);
    let Some(to) = at.checked_add_signed(step).filter(|i| *i < names.len()) else {
        let end = if step > 0 { "oldest" } else { "newest" };
        state.notify(Level::Info, format!("no campaign beyond this one: it is the {end} of {}", names.len()));
        return Vec::new();
    };
    let name = names[to].clone();
    state.notify(Level::Info, format!("campaign {name} ({} of {}, newest first)", to + 1, names.len()));
    state.session.campaign_chosen = (to > 0).then(|| name.clone());
    (state.session.help_scroll, state.session.campaign_cell) = (0, 0);
    vec![Effect::ReadCampaign(Some(name))]
}

/// Why `verb` makes no sense now: a resume of a campaign whose driver is alive, anything of an
/// ended or cancelled one.
fn refused(campaign: &Snapshot, verb: crate::campaigns::Verb) -> Option<String> {
    let h = &campaign.headline;
    let name = &h.name;
    if h.state == "cancelled" || h.progress.ended == h.progress.total {
        return Some(format!("campaign {name} has ended; nothing to {}", verb.word()));
    }
    let driving = campaign.liveness.is_driving();
    match verb {
        crate::campaigns::Verb::Resume if driving => {
            Some(format!("campaign {name} is running: nothing to resume"))
        }
        crate::campaigns::Verb::Pause if h.state == "paused" => {
            Some(format!("campaign {name} is paused already"))
        }
        _ => None,
    }
}

fn verb_preview(campaign: &Snapshot, verb: crate::campaigns::Verb) -> Vec<String> {
    use crate::campaigns::Verb;
    let who = campaign.liveness.driver().map_or_else(|| "its driver".into(), |d| format!("its driver ({d})"));
    let what = match (verb, campaign.liveness.is_driving()) {
        (Verb::Resume, _) => {
            "a new driver, in a process of its own, goes on where the journal stopped".into()
        }
        (Verb::Pause, true) => {
            format!("{who} is asked to pause: it starts nothing more; runs under way go on")
        }
        (Verb::Cancel, true) => format!("{who} is asked to cancel: it starts nothing more"),
        (_, false) => "no driver is alive: the journal says so, and a resume goes on from there".into(),
    };
    vec![what, format!("the same as `{}`", campaign.command(verb))]
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// `x` on a run of the campaign: a confirm, then its driver is asked to stop it and leave its
/// cell (a run the snapshot no longer shows running is said, not asked about).
pub fn ask_cancel_run(state: &mut AppState, run_id: &crate::ids::RunId) -> Vec<Effect> {
    let Some(campaign) = &state.session.campaign else { return Vec::new() };
    let Some(run) = campaign.runs.iter().find(|r| &r.run_id == run_id && r.in_flight()) else {
        state.notify(Level::Info, format!("run {run_id} of the campaign has already ended"));
        return Vec::new();
    };
    let Liveness::Driving(driver) = &campaign.liveness else {
        let resume = campaign.command(crate::campaigns::Verb::Resume);
        state.notify(
            Level::Info,
            format!("no driver runs campaign {}: nothing to stop ({resume} goes on)", campaign.headline.name),
        );
        return Vec::new();
    };
    let name = CampaignName::from(campaign.headline.name.clone());
    let preview = vec![
        format!("Run {run_id} ({} {}) of campaign {name} is running.", run.short, run.variant.name()),
        format!("Its driver ({driver}) stops it and removes its container; the cell is left, not run again."),
        format!("the same as `{} campaign cancel {name} --run {run_id}`", campaign.perftriage),
    ];
    let title = format!("Cancel {} {} (campaign {name})?", run.short, run.variant.name());
    let action = ConfirmAction::Cancel(JobKey::CampaignRun(name, run_id.clone()));
    state.mode = Mode::Confirm(Confirm::new(title, preview, action));
    Vec::new()
}

/// A campaign run's benchmark and server logs, followed live from its driver's spools (`L`, Enter
/// in `R`): the server's shown, the benchmark's behind it (`o`).
pub fn open_log(state: &mut AppState, run_id: &crate::ids::RunId) -> Vec<Effect> {
    use crate::runs::Pane;
    let Some(campaign) = &state.session.campaign else { return Vec::new() };
    let Some(run) = campaign.runs.iter().find(|r| &r.run_id == run_id) else { return Vec::new() };
    let (name, short, variant) =
        (CampaignName::from(campaign.headline.name.clone()), run.short.clone(), run.variant);
    let effects = [Pane::Benchmark, Pane::Server].map(|pane| {
        let log = crate::app::LogId::Campaign { run_id: run_id.clone(), pane };
        let key = crate::app::LogKey { short: short.clone(), variant, log };
        let title = format!(
            "{short} {} — campaign {name}, run {run_id}, {} (live; o: the other)",
            variant.name(),
            pane.name()
        );
        let ring = state.logs.ring;
        state.logs.show(crate::app::LogView::new(key.clone(), title, ring));
        Effect::FollowCampaignLog { key, name: name.clone(), ring }
    });
    state.mode = Mode::Normal;
    state.focus = crate::app::Focus::Log;
    effects.into()
}
