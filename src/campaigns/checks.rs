//! What a journal line may say, given the lines before it: a journal is read back as the config
//! is, every value in range and every event in its order (a run ends after it was launched, once;
//! a fix or a decision is of one of the campaign's cells; names are plain, images references
//! Docker takes). A line that says otherwise is an error naming it.

use super::{CampaignSpec, Event};
use crate::dataset::Variant;
use crate::ids::{RunId, Short};
use std::collections::HashSet;

/// The bounds `campaign start` takes (`--concurrency 1..=64`, `--retries 0..=10`, `--retry-wait 1..=600`).
const CONCURRENCY: std::ops::RangeInclusive<u32> = 1..=64;
const RETRIES: std::ops::RangeInclusive<u32> = 0..=10;
const RETRY_WAIT_S: std::ops::RangeInclusive<u64> = 1..=600;

/// Why a journal line cannot follow the ones before it; the texts it quotes are cleaned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrderError {
    #[error("a second `started` event")]
    SecondStart,
    #[error("{what} {value} is out of range ({range})")]
    OutOfRange { what: &'static str, value: String, range: String },
    #[error("{what} `{name}` is not a plain name")]
    NotPlain { what: &'static str, name: String },
    #[error("{cell} is not a cell of the campaign")]
    NoCell { cell: String },
    #[error("run {run} is launched twice")]
    LaunchedTwice { run: String },
    #[error("run {run} is {what} before it was launched")]
    BeforeLaunch { run: String, what: &'static str },
    #[error("run {run} is {what} after it finished")]
    AfterEnd { run: String, what: &'static str },
    #[error("image `{image}`: {why}")]
    BadImage { image: String, why: crate::ids::ReferenceError },
}

/// The journal so far, as far as the next line's checks need it.
#[derive(Debug, Default)]
pub(super) struct Order {
    cells: Option<HashSet<(Short, Variant)>>,
    launched: HashSet<RunId>,
    finished: HashSet<RunId>,
}

impl Order {
    /// Whether `event` may follow the events seen; it is seen from now on.
    pub(super) fn check(&mut self, event: &Event) -> Result<(), OrderError> {
        match event {
            Event::Started { spec, .. } => self.started(spec),
            Event::Launched { short, variant, run_id, .. } => {
                self.of_a_cell(short, *variant)?;
                plain_run(run_id)?;
                match self.launched.insert(run_id.clone()) {
                    true => Ok(()),
                    false => Err(OrderError::LaunchedTwice { run: shown(run_id) }),
                }
            }
            Event::Submitted { run_id, .. } => self.in_flight(run_id, "submitted"),
            Event::Finished { run_id, .. } => {
                self.in_flight(run_id, "finished")?;
                self.finished.insert(run_id.clone());
                Ok(())
            }
            Event::Fixed { short, variant, recipe, image, .. } => {
                self.of_a_cell(short, *variant)?;
                fixed(recipe, image.as_ref())
            }
            Event::Decided { short, variant, .. } => self.of_a_cell(short, *variant),
            Event::Paused { .. } | Event::Resumed { .. } | Event::Cancelled { .. } | Event::Driven { .. } => {
                Ok(())
            }
        }
    }

    fn started(&mut self, spec: &CampaignSpec) -> Result<(), OrderError> {
        if self.cells.is_some() {
            return Err(OrderError::SecondStart);
        }
        let (policy, bad) = (&spec.policy, |what: &'static str, value: String, range: String| {
            Err(OrderError::OutOfRange { what, value, range })
        });
        if !CONCURRENCY.contains(&spec.concurrency) {
            return bad("concurrency", spec.concurrency.to_string(), format!("{CONCURRENCY:?}"));
        }
        if !RETRIES.contains(&policy.retries) {
            return bad("retries", policy.retries.to_string(), format!("{RETRIES:?}"));
        }
        if !RETRY_WAIT_S.contains(&policy.retry_wait_s) {
            return bad("retry wait", policy.retry_wait_s.to_string(), format!("{RETRY_WAIT_S:?} s"));
        }
        if let Some(short) = spec.commits.iter().find(|s| !s.is_plain()) {
            return Err(OrderError::NotPlain { what: "commit", name: shown(short) });
        }
        self.cells = Some(spec.cells().collect());
        Ok(())
    }

    fn of_a_cell(&self, short: &Short, variant: Variant) -> Result<(), OrderError> {
        match self.cells.as_ref().is_some_and(|cells| cells.contains(&(short.clone(), variant))) {
            true => Ok(()),
            false => Err(OrderError::NoCell { cell: format!("{} {}", shown(short), variant.name()) }),
        }
    }

    fn in_flight(&self, run_id: &RunId, what: &'static str) -> Result<(), OrderError> {
        if !self.launched.contains(run_id) {
            return Err(OrderError::BeforeLaunch { run: shown(run_id), what });
        }
        match self.finished.contains(run_id) {
            true => Err(OrderError::AfterEnd { run: shown(run_id), what }),
            false => Ok(()),
        }
    }
}

fn plain_run(run_id: &RunId) -> Result<(), OrderError> {
    match run_id.is_plain() {
        true => Ok(()),
        false => Err(OrderError::NotPlain { what: "run id", name: shown(run_id) }),
    }
}

/// A fix's recipe is a plain name and its image a reference Docker takes: both reach the triage
/// history and the next run's plan.
fn fixed(recipe: &str, image: Option<&crate::ids::ImageRef>) -> Result<(), OrderError> {
    if !crate::ids::plain_name(recipe) {
        return Err(OrderError::NotPlain { what: "recipe", name: shown(recipe) });
    }
    match image.map(|i| (i, crate::ids::check_reference(i.as_str()))) {
        Some((image, Err(why))) => Err(OrderError::BadImage { image: shown(image.as_str()), why }),
        _ => Ok(()),
    }
}

/// A journal's text as an error may quote it: escapes and controls made visible.
fn shown(text: &str) -> String {
    crate::logs::display_text(text)
}

#[cfg(test)]
mod tests {
    use super::super::{JournalError, parse, to_line};
    use super::*;
    use crate::dataset::RunStatus;

    fn started(concurrency: u32) -> Event {
        let mut start = crate::campaigns::state::tests::started(&["aaaa0001"]);
        if let Event::Started { spec, .. } = &mut start {
            spec.concurrency = concurrency;
        }
        start
    }

    fn launched(run: &str) -> Event {
        Event::Launched {
            short: "aaaa0001".into(),
            variant: Variant::Baseline,
            run_id: run.into(),
            at: "t".into(),
        }
    }

    fn finished(run: &str) -> Event {
        let status = RunStatus::Success;
        let at = "t".to_string();
        Event::Finished { run_id: run.into(), status, category: None, disposition: None, result: None, at }
    }

    /// The journal's words for what is wrong at which line.
    fn refused(events: &[Event]) -> (usize, String) {
        let text: String = events.iter().map(to_line).collect();
        match parse(text.as_bytes()) {
            Err(JournalError::Refused { line, why }) => (line, why.to_string()),
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn events_out_of_order_and_values_out_of_range_are_errors_naming_the_line() {
        assert_eq!(refused(&[started(0)]), (1, "concurrency 0 is out of range (1..=64)".into()));
        let early = refused(&[started(1), finished("r1"), launched("r1")]);
        assert_eq!(early, (2, "run r1 is finished before it was launched".into()));
        let twice = refused(&[started(1), launched("r1"), finished("r1"), finished("r1")]);
        assert_eq!(twice, (4, "run r1 is finished after it finished".into()));
        let other = Event::Decided {
            short: "bbbb0002".into(),
            variant: Variant::Agent,
            what: "x".into(),
            decision: None,
            at: "t".into(),
        };
        assert_eq!(refused(&[started(1), other]), (2, "bbbb0002 agent is not a cell of the campaign".into()));
        let in_order = [started(1), launched("r1"), finished("r1"), launched("r2")];
        let text: String = in_order.iter().map(to_line).collect();
        assert_eq!(parse(text.as_bytes()).unwrap().events.len(), 4);
    }

    /// A `fixed` event's image and recipe reach the triage history and the next run's plan: an
    /// image with an escape (an OSC 52 clipboard write) is refused, quoted harmless.
    #[test]
    fn a_fixed_events_image_and_recipe_are_checked_before_they_are_believed() {
        let fixed = |recipe: &str, image: &str| Event::Fixed {
            short: "aaaa0001".into(),
            variant: Variant::Baseline,
            recipe: recipe.into(),
            image: Some(image.into()),
            host: None,
            at: "t".into(),
        };
        let (line, why) =
            refused(&[started(1), fixed("numpy_lt_2", "perftriage-fixed:evil\u{1b}]52;c;aGk=\u{7}")]);
        assert_eq!(line, 2);
        assert!(why.starts_with("image `perftriage-fixed:evil") && !why.contains('\u{1b}'), "{why:?}");
        let (_, why) = refused(&[started(1), fixed("rope\u{1b}[31m", "perftriage-fixed:abc")]);
        assert!(why.starts_with("recipe `rope") && !why.contains('\u{1b}'), "{why:?}");
        let fine = [started(1), fixed("numpy_lt_2", "perftriage-fixed:abc")];
        assert!(parse(fine.iter().map(to_line).collect::<String>().as_bytes()).is_ok());
    }
}
