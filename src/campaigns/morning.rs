//! The morning table: every cell of a campaign with its state, the image its last run ran in (and
//! the fixes in it), its runs and their time, its result file, why it is left and the next step —
//! as `campaign status` prints it (text, JSON, CSV) and `report` lists it. Built here from the
//! journal; the row and its formats are the report's.

use super::{CampaignState, Cell, Next, next};
use crate::classify::Disposition;
use crate::dataset::Variant;
use crate::ids::{ImageRef, RunId, Short};
pub use crate::report::MorningRow;

/// A run's image and the fixes in it, as its launch record says.
pub type LaunchedIn = (ImageRef, Vec<String>);

/// What the morning reads beside the journal: a run's image and fixes (from its launch record)
/// and the recipe that answers a category.
pub struct Lookups<'a> {
    pub launched_in: &'a dyn Fn(&RunId) -> Option<LaunchedIn>,
    pub recipe_for: &'a dyn Fn(&str) -> Option<String>,
}

impl CampaignState {
    /// Every cell of the campaign, commit by commit, variants as asked.
    pub fn morning(&self, look: &Lookups<'_>) -> Vec<MorningRow> {
        self.spec.cells().filter_map(|key| self.morning_of(&key, look)).collect()
    }

    /// One cell's row, if the campaign has that cell.
    pub fn morning_of(&self, key: &(Short, Variant), look: &Lookups<'_>) -> Option<MorningRow> {
        Some(self.morning_row(key, self.cells.get(key)?, look))
    }

    fn morning_row(
        &self,
        (short, variant): &(Short, Variant),
        cell: &Cell,
        look: &Lookups<'_>,
    ) -> MorningRow {
        let step = next(cell, self.spec.policy, |c| (look.recipe_for)(c));
        let (state, why) = standing(cell, &step);
        let last = cell.attempts.last();
        let launched = last.and_then(|a| (look.launched_in)(&a.run_id));
        let fixed = cell.fixes.iter().rev().find(|f| f.verified);
        let (image, fixes) = match (launched, fixed) {
            (Some((image, fixes)), _) => (Some(image), fixes),
            (None, Some(fix)) => (fix.image.clone(), vec![fix.recipe.clone()]),
            (None, None) => (None, Vec::new()),
        };
        let finish = cell.last_finish();
        MorningRow {
            short: short.clone(),
            variant: *variant,
            state,
            next: (state == "left").then(|| next_step(cell, &self.spec.name, (short, *variant), look)),
            why,
            image,
            fixes,
            runs: cell.attempts.iter().map(|a| a.run_id.clone()).collect(),
            run_s: cell.attempts.iter().filter_map(super::Attempt::seconds).sum(),
            result: finish.and_then(|f| f.result.clone()),
            category: finish.and_then(|f| f.category.as_ref()).map(|k| k.name().to_string()),
        }
    }
}

/// A cell's state in a word, and why where it matters.
fn standing(cell: &Cell, next: &Next) -> (&'static str, Option<String>) {
    match next {
        Next::Done => ("ok", None),
        Next::Leave(why) => ("left", Some(why.clone())),
        Next::PickUp(run_id) => ("running", Some(format!("run {run_id}"))),
        Next::Fix(recipe) => ("to fix", Some(recipe.clone())),
        Next::Retry { n, after_s } => ("to retry", Some(format!("retry {n} after {after_s} s"))),
        Next::Run if cell.attempts.is_empty() => ("queued", None),
        Next::Run => ("to run again", None),
    }
}

/// What a person does for a cell the campaign left: the board's key first, then the command.
fn next_step(cell: &Cell, campaign: &str, (short, variant): (&Short, Variant), look: &Lookups<'_>) -> String {
    let Some(finish) = cell.last_finish() else { return "look: L shows its log".into() };
    let category = finish.category.as_ref().map_or(crate::classify::UNCLASSIFIED, |k| k.name());
    let v = variant.name();
    let fix_failed = cell.fixes.iter().any(|f| !f.verified);
    match finish.disposition {
        Some(Disposition::FixableInContainer) if fix_failed => {
            "look: its fix did not verify (the fix log under fixes/), then f another recipe or u".into()
        }
        Some(Disposition::FixableInContainer) => match (look.recipe_for)(category) {
            Some(recipe) => {
                format!("f {recipe}: perftriage fix apply {short} --variant {v} --recipe {recipe}")
            }
            None => format!("u unfixable: no recipe answers {category}"),
        },
        Some(Disposition::InfraRetry) => {
            format!("rerun: perftriage campaign start --rerun-failed {campaign}")
        }
        Some(Disposition::ImageMissing) if variant != Variant::Human => {
            format!("b build its baseline image: perftriage build {short}")
        }
        Some(Disposition::ImageMissing) => "find or pull the PR image, then rerun".into(),
        Some(Disposition::AgentFailure) => "u unfixable: the agent's patch fails the same every run".into(),
        Some(Disposition::UnfixableHere) => format!("u unfixable: {category} cannot be fixed on this box"),
        Some(Disposition::NeedsLook) | None => "look: L shows its log, then f or u".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaigns::Event;
    use crate::campaigns::state::tests::{finished, launched, two_commits};
    use crate::dataset::RunStatus;

    fn failed(run: &str, category: &str, disposition: Disposition) -> Event {
        match finished(run, RunStatus::Error, Some(category)) {
            Event::Finished { run_id, status, category, at, .. } => {
                let result = Some(format!("/ws/runs/{run}/x_result.json"));
                Event::Finished { run_id, status, category, disposition: Some(disposition), result, at }
            }
            other => other,
        }
    }

    fn fixed(short: &str, variant: Variant, image: &str) -> Event {
        let (recipe, image) = ("aimv2_exist_ok".into(), Some(image.into()));
        Event::Fixed { short: short.into(), variant, recipe, image, host: None, at: "t".into() }
    }

    /// The rows of `two_commits` and `more`; a `recipe` answers every category, and the campaign
    /// fixes on its own only without one (with one, a fixable failure is left for a person); no
    /// retries.
    fn rows(more: &[Event], recipe: Option<&str>) -> Vec<MorningRow> {
        let mut state = CampaignState::fold(&two_commits(more)).unwrap();
        state.spec.policy.auto_fix = recipe.is_none();
        state.spec.policy.retries = 0;
        let launched_in = |_: &RunId| None;
        let recipe_for = |_: &str| recipe.map(str::to_string);
        state.morning(&Lookups { launched_in: &launched_in, recipe_for: &recipe_for })
    }

    /// The second commit's baseline failed with `category` as `disposition`, and was left.
    fn left_as(category: &str, disposition: Disposition, recipe: Option<&str>) -> MorningRow {
        let leave = crate::campaigns::Decision::Leave { reason: format!("{category}: left") };
        let events = [
            launched("aaaa0002", Variant::Baseline, "r3"),
            failed("r3", category, disposition),
            Event::decided("aaaa0002".into(), Variant::Baseline, leave, "t".into()),
        ];
        rows(&events, recipe).remove(2)
    }

    #[test]
    fn a_fixed_cell_names_its_fixed_image_and_recipe_and_every_cell_its_runs() {
        let events = [
            fixed("aaaa0001", Variant::Human, "perftriage-fixed:x"),
            launched("aaaa0001", Variant::Human, "r3"),
            finished("r3", RunStatus::Success, None),
        ];
        let rows = rows(&events, None);
        let human = &rows[1];
        assert_eq!(
            (human.state, human.image.as_deref(), human.fixes.as_slice()),
            ("ok", Some("perftriage-fixed:x"), &["aimv2_exist_ok".to_string()][..])
        );
        assert_eq!(human.runs, ["r2", "r3"].map(RunId::from));
        assert_eq!(
            (rows[0].image.as_ref(), rows[0].fixes.len()),
            (None, 0),
            "no launch record, no fix: no image said"
        );
        assert_eq!((rows.len(), rows[2].state), (4, "queued"), "every cell, commit by commit");
        let snapshot = CampaignState::fold(&two_commits(&events)).unwrap().snapshot();
        assert_eq!(snapshot.cells[1].standing, "✓ fixed: aimv2_exist_ok", "O shows it fixed, not ok");
    }

    #[test]
    fn a_left_cell_says_the_next_step_its_failure_needs() {
        let cases = [
            (
                "numpy2",
                Disposition::FixableInContainer,
                Some("numpy_lt_2"),
                "f numpy_lt_2: perftriage fix apply aaaa0002 --variant baseline --recipe numpy_lt_2",
            ),
            ("numpy2", Disposition::FixableInContainer, None, "u unfixable: no recipe answers numpy2"),
            (
                "disk_full",
                Disposition::InfraRetry,
                None,
                "rerun: perftriage campaign start --rerun-failed nightly",
            ),
            (
                "image_missing",
                Disposition::ImageMissing,
                None,
                "b build its baseline image: perftriage build aaaa0002",
            ),
            (
                "patch_fail",
                Disposition::AgentFailure,
                None,
                "u unfixable: the agent's patch fails the same every run",
            ),
            ("oom", Disposition::UnfixableHere, None, "u unfixable: oom cannot be fixed on this box"),
            ("unclassified", Disposition::NeedsLook, None, "look: L shows its log, then f or u"),
        ];
        for (category, disposition, recipe, next) in cases {
            let row = left_as(category, disposition, recipe);
            assert_eq!(row.state, "left", "{category}");
            assert_eq!(row.next.as_deref(), Some(next), "{category} as {disposition:?}");
            assert_eq!(row.result.as_deref(), Some("/ws/runs/r3/x_result.json"));
        }
    }

    #[test]
    fn the_csv_has_a_line_per_cell_and_keeps_hostile_text_as_text() {
        let mut row = left_as("patch_fail", Disposition::AgentFailure, None);
        row.why = Some("=HYPERLINK(\"x\"), a, \"b\"".into());
        let csv = crate::report::morning_csv(&[row]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "short,variant,state,image,fixes,runs,run_s,result,category,why,next");
        assert!(lines[1].contains(",\"'=HYPERLINK(\"\"x\"\"), a, \"\"b\"\"\","), "{}", lines[1]);
        assert_eq!(lines.len(), 2);
    }
}
