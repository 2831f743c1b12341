//! A campaign as the board shows it: its headline, each (commit, variant)'s standing in a word,
//! and every run it launched — all from the journal, read while the campaign's own process runs.

use super::{CampaignState, Cell, Headline};
use crate::dataset::{RunStatus, Variant};
use crate::ids::{RunId, Short};

#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub headline: Headline,
    /// Commit by commit, variants as asked.
    pub cells: Vec<CellLine>,
    /// Every run, in launch order.
    pub runs: Vec<RunLine>,
    /// The fixed images its fixes committed, and when.
    pub fixes: Vec<FixLine>,
    /// Whether its driving process is alive (`Unknown` until the reader says).
    pub liveness: super::Liveness,
    /// `perftriage` with the reader's flags: its commands paste as printed.
    pub perftriage: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CellLine {
    pub short: Short,
    pub variant: Variant,
    /// `✓ ok`, `✗ why it is left`, `↻ category` (the policy acts next), `◷ running`, `· queued`.
    pub standing: String,
    pub runs: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FixLine {
    pub short: Short,
    pub variant: Variant,
    pub recipe: String,
    pub image: crate::ids::ImageRef,
    /// When the campaign journalled it (RFC 3339).
    pub at: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunLine {
    pub short: Short,
    pub variant: Variant,
    pub run_id: RunId,
    /// `running`, `ok`, or the failure's category.
    pub word: String,
    /// Launch to end, once it ended.
    pub seconds: Option<i64>,
    pub launched: String,
    /// Where a run in flight runs, from its launch record (the reader fills it in).
    pub placed: Option<Placed>,
}

impl RunLine {
    /// Launched and not seen to end.
    pub fn in_flight(&self) -> bool {
        self.seconds.is_none() && self.word == "running"
    }
}

/// A run's image and host as its launch record says.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub image: crate::ids::ImageRef,
    /// A `[[hosts]]` name; `None`: the driver's machine.
    pub host: Option<String>,
}

impl CampaignState {
    pub fn snapshot(&self) -> Snapshot {
        let cells = self.spec.cells().filter_map(|key| {
            let cell = self.cells.get(&key)?;
            Some(CellLine {
                standing: standing(cell),
                runs: cell.attempts.len(),
                short: key.0,
                variant: key.1,
            })
        });
        let mut runs: Vec<RunLine> = self.cells.iter().flat_map(|(key, cell)| run_lines(key, cell)).collect();
        runs.sort_by(|a, b| a.launched.cmp(&b.launched));
        let fixes = self.cells.iter().flat_map(|((short, variant), cell)| {
            cell.fixes.iter().filter_map(|f| {
                let (recipe, image, at) = (f.recipe.clone(), f.image.clone()?, f.at.clone());
                Some(FixLine { short: short.clone(), variant: *variant, recipe, image, at })
            })
        });
        let (liveness, perftriage) = (super::Liveness::Unknown, "perftriage".into());
        Snapshot {
            headline: self.headline(),
            cells: cells.collect(),
            runs,
            fixes: fixes.collect(),
            liveness,
            perftriage,
        }
    }
}

impl Snapshot {
    /// How many variants each commit's line has (the cells are commit by commit).
    pub fn variants_asked(&self) -> usize {
        let first = self.cells.first().map(|c| &c.short);
        self.cells.iter().take_while(|c| Some(&c.short) == first).count()
    }

    /// With its driver's liveness: a campaign not ended, paused or cancelled whose process is gone
    /// says so in its headline, with the command that goes on (`perftriage`, the reader's command
    /// and flags, in it), and its in-flight cells say nothing runs them.
    pub fn with_liveness(mut self, liveness: super::Liveness, perftriage: &str) -> Snapshot {
        self.perftriage = perftriage.to_string();
        let resume = self.command(super::Verb::Resume);
        let h = &mut self.headline;
        let unfinished = h.state.is_empty() && h.progress.ended < h.progress.total;
        if unfinished && matches!(liveness, super::Liveness::Gone(_)) {
            h.stopped = Some(super::stopped_line(&resume));
            for cell in self.cells.iter_mut().filter(|c| c.standing == RUNNING) {
                cell.standing = format!("{STOPPED_MID_RUN}: its process is gone");
            }
        }
        self.liveness = liveness;
        self
    }
}

impl Snapshot {
    /// The runs in flight, as `placed_of` (their launch records) says where they run.
    pub fn with_placed(mut self, placed_of: impl Fn(&RunId) -> Option<Placed>) -> Snapshot {
        // A launch record is read back: what it says is shown cleaned.
        let cleaned = |p: Placed| Placed {
            image: crate::logs::display_text(p.image.as_str()).into(),
            host: p.host.map(|h| crate::logs::display_text(&h)),
        };
        for run in self.runs.iter_mut().filter(|r| r.in_flight()) {
            run.placed = placed_of(&run.run_id).map(cleaned);
        }
        self
    }

    /// The runs in flight whose cells say `stopped mid-run` (their driver is gone).
    pub fn stopped_mid_run(&self) -> Vec<RunId> {
        let stopped = |c: &CellLine| c.standing.starts_with(STOPPED_MID_RUN);
        let cells: Vec<(&Short, Variant)> =
            self.cells.iter().filter(|c| stopped(c)).map(|c| (&c.short, c.variant)).collect();
        let in_flight = self.runs.iter().filter(|r| r.in_flight());
        in_flight.filter(|r| cells.contains(&(&r.short, r.variant))).map(|r| r.run_id.clone()).collect()
    }

    /// Those cells with what their run's container is doing (`words` by run).
    pub fn with_containers(mut self, words: &std::collections::HashMap<RunId, String>) -> Snapshot {
        for run in self.runs.iter().filter(|r| r.in_flight()) {
            let Some(word) = words.get(&run.run_id) else { continue };
            let cell = self.cells.iter_mut().find(|c| c.short == run.short && c.variant == run.variant);
            if let Some(cell) = cell.filter(|c| c.standing.starts_with(STOPPED_MID_RUN)) {
                cell.standing = format!("{STOPPED_MID_RUN}: {word}");
            }
        }
        self
    }

    /// The run in flight of `short`, if the campaign has one.
    pub fn running_of(&self, short: &Short) -> Option<&RunLine> {
        self.runs.iter().rev().find(|r| &r.short == short && r.in_flight())
    }

    /// `perftriage … campaign <verb> <name>`, as it pastes.
    pub fn command(&self, verb: super::Verb) -> String {
        format!("{} campaign {} {}", self.perftriage, verb.word(), self.headline.name)
    }
}

const RUNNING: &str = "◷ running";
const STOPPED_MID_RUN: &str = "◌ stopped mid-run";

fn standing(cell: &Cell) -> String {
    if cell.in_flight().is_some() {
        return RUNNING.into();
    }
    let Some(finish) = cell.last_finish() else { return "· queued".into() };
    let category = finish.category.as_ref().map_or(crate::classify::UNCLASSIFIED, |k| k.name());
    let fixed = cell.fixes.iter().rev().find(|f| f.verified);
    match (finish.status, &cell.decided) {
        (RunStatus::Success, _) => match fixed {
            Some(fix) => format!("✓ fixed: {}", crate::logs::display_text(&fix.recipe)),
            None => "✓ ok".into(),
        },
        // A retry's wait is a decision too; a leave is the cell's standing.
        (_, Some(super::Decision::Leave { reason })) => format!("✗ {}", crate::logs::display_text(reason)),
        _ => format!("↻ {category}"),
    }
}

fn run_lines<'a>(
    (short, variant): &'a (Short, Variant),
    cell: &'a Cell,
) -> impl Iterator<Item = RunLine> + 'a {
    cell.attempts.iter().map(move |a| RunLine {
        short: short.clone(),
        variant: *variant,
        run_id: a.run_id.clone(),
        word: match &a.finish {
            None => "running".into(),
            Some(f) if f.status == RunStatus::Success => "ok".into(),
            Some(f) => f.category.as_ref().map_or(crate::classify::UNCLASSIFIED, |k| k.name()).to_string(),
        },
        seconds: a.seconds(),
        launched: a.launched.clone(),
        placed: None,
    })
}

#[cfg(test)]
mod tests {
    use crate::campaigns::CampaignState;
    use crate::campaigns::Event;
    use crate::campaigns::state::tests::{finished, launched, two_commits};
    use crate::dataset::{RunStatus, Variant};

    /// Two commits: the second's baseline failed (r3) and was left with `reason`, its human runs (r4).
    fn left_with(reason: &str) -> Vec<Event> {
        let leave = crate::campaigns::Decision::Leave { reason: reason.into() };
        two_commits(&[
            launched("aaaa0002", Variant::Baseline, "r3"),
            finished("r3", RunStatus::Error, Some("patch_fail")),
            Event::decided("aaaa0002".into(), Variant::Baseline, leave, "t".into()),
            launched("aaaa0002", Variant::Human, "r4"),
        ])
    }

    #[test]
    fn each_cell_says_its_standing_and_every_run_is_listed_in_launch_order() {
        let events = left_with("patch_fail: the same on every run, not retried");
        let snapshot = CampaignState::fold(&events).unwrap().snapshot();
        let standings: Vec<&str> = snapshot.cells.iter().map(|c| c.standing.as_str()).collect();
        assert_eq!(
            standings,
            ["✓ ok", "↻ aimv2", "✗ patch_fail: the same on every run, not retried", "◷ running"],
            "commit by commit, variants as asked"
        );
        let runs: Vec<(&str, &str)> =
            snapshot.runs.iter().map(|r| (r.run_id.as_str(), r.word.as_str())).collect();
        assert_eq!(runs, [("r1", "ok"), ("r2", "aimv2"), ("r3", "patch_fail"), ("r4", "running")]);
    }

    /// A journal's words reach the `O` view: a decision's reason and a launch record's image and
    /// host with an OSC 52 write or a bidi override are shown cleaned.
    #[test]
    fn a_journals_reason_and_a_launch_records_placing_are_shown_cleaned() {
        let events = left_with("left \u{202e}exe.txt \u{1b}]52;c;aGk=\u{7}for a look");
        let placed = |_: &crate::ids::RunId| {
            let (image, host) = ("img\u{1b}[2J:1".into(), Some("h\u{202e}ost".to_string()));
            Some(crate::campaigns::Placed { image, host })
        };
        let snapshot = CampaignState::fold(&events).unwrap().snapshot().with_placed(placed);
        let hostile = |t: &str| t.contains(['\u{1b}', '\u{7}', '\u{202e}']);
        assert!(snapshot.cells.iter().all(|c| !hostile(&c.standing)), "{:?}", snapshot.cells);
        let run = snapshot.runs.iter().find(|r| r.run_id == "r4").unwrap();
        let placed = run.placed.as_ref().unwrap();
        assert!(!hostile(placed.image.as_str()) && !hostile(placed.host.as_deref().unwrap()), "{placed:?}");
    }
}
