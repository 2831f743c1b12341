//! The runs view (`R`): every run of this session, newest first; open a run's panes or cancel it.

use crate::app::{Action, AppState, Effect, Focus, Mode};

/// `R`: the runs view.
pub fn open(state: &mut AppState) -> Vec<Effect> {
    state.mode = Mode::Runs(0);
    Vec::new()
}

/// Keys in the runs view: move, open the run's panes, cancel it (a campaign's run through its
/// driver).
pub fn act(state: &mut AppState, action: Action) -> Vec<Effect> {
    let Mode::Runs(selected) = state.mode else { return Vec::new() };
    let own = state.runs.list.len();
    let count = own + state.session.campaign_runs().count();
    if selected >= own && matches!(action, Action::CancelRun | Action::OpenLog) {
        let Some(run) = state.session.campaign_runs().nth(selected - own) else { return Vec::new() };
        let run_id = run.run_id.clone();
        return match action {
            Action::OpenLog => super::campaign_view::open_log(state, &run_id),
            _ => super::campaign_view::ask_cancel_run(state, &run_id),
        };
    }
    let run_id = state.runs.list.iter().rev().nth(selected).map(|r| r.run_id.clone());
    match (action, run_id) {
        (Action::MenuDown, _) => state.mode = Mode::Runs((selected + 1).min(count.saturating_sub(1))),
        (Action::MenuUp, _) => state.mode = Mode::Runs(selected.saturating_sub(1)),
        (Action::OpenLog, Some(id)) => {
            state.mode = Mode::Normal;
            state.logs.run_pane = Some((id, crate::runs::Pane::Server));
            state.focus = Focus::Log;
        }
        (Action::CancelRun, Some(id)) => return super::runs::ask_cancel_run(state, &id),
        (Action::Close, _) => state.mode = Mode::Normal,
        _ => {}
    }
    Vec::new()
}
