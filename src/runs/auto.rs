//! `--repeat auto[:MAX]`: after the minimum runs against one server start, keep adding runs
//! while the pair's verdict is undecided at either band (±2 %, ±5 %: `Interval::decided`), up to MAX;
//! the other side of the pair is its newest recorded samples. Warm-up runs come first and do
//! not count.

use crate::dataset::{Entry, Variant};
use crate::metrics::interval;

/// The runs `auto` starts with: the fewest an interval is worth having over.
pub const AUTO_MIN: u32 = 3;
/// `auto` without a MAX.
pub const AUTO_MAX: u32 = 10;

/// What `--repeat`, `[runs] repeat` and the run confirm's `+` ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "RepeatValue")]
pub enum Repeat {
    Times(u32),
    Auto { max: u32 },
}

/// `[runs] repeat` as written: `5` or `"auto"`, `"auto:6"`, `"5"`.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum RepeatValue {
    Number(u64),
    Text(String),
}

impl TryFrom<RepeatValue> for Repeat {
    type Error = RepeatError;

    fn try_from(value: RepeatValue) -> Result<Repeat, RepeatError> {
        match value {
            RepeatValue::Number(n) => n.to_string().parse(),
            RepeatValue::Text(text) => text.parse(),
        }
    }
}

/// As `--repeat` takes it back: `5`, `auto:10`.
impl std::fmt::Display for Repeat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Repeat::Times(n) => write!(f, "{n}"),
            Repeat::Auto { max } => write!(f, "auto:{max}"),
        }
    }
}

impl Repeat {
    /// Decided for a run of `entry`'s `variant`: `auto` takes its question from the entry.
    pub fn plan_for(self, entry: &Entry, variant: Variant) -> RepeatPlan {
        match self {
            Repeat::Times(n) => RepeatPlan::Times(n),
            Repeat::Auto { max } => RepeatPlan::Auto(AutoRepeat::for_entry(entry, variant, max)),
        }
    }
}

/// A run's repeats once decided: a count, or `auto` with what it is measured against.
#[derive(Debug, Clone, PartialEq)]
pub enum RepeatPlan {
    Times(u32),
    Auto(AutoRepeat),
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("--repeat `{0}`: give a number of runs from 1 to 100, `auto` or `auto:MAX` (MAX from 3 to 100)")]
pub struct RepeatError(String);

impl std::str::FromStr for Repeat {
    type Err = RepeatError;

    fn from_str(text: &str) -> Result<Repeat, RepeatError> {
        let bad = || RepeatError(text.to_string());
        let in_range = |n: u32, low: u32| (low..=100).contains(&n).then_some(n);
        match text.strip_prefix("auto") {
            Some("") => Ok(Repeat::Auto { max: AUTO_MAX }),
            Some(rest) => {
                let max =
                    rest.strip_prefix(':').and_then(|m| m.parse().ok()).and_then(|m| in_range(m, AUTO_MIN));
                max.map(|max| Repeat::Auto { max }).ok_or_else(bad)
            }
            None => text.parse().ok().and_then(|n| in_range(n, 1)).map(Repeat::Times).ok_or_else(bad),
        }
    }
}

impl serde::Serialize for Repeat {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// An `auto` run's question: its variant against `partner`'s recorded samples of `metric`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AutoRepeat {
    pub max: u32,
    pub metric: String,
    pub partner: Variant,
    /// The partner's newest recorded samples (fewer than two: nothing to compare against).
    pub against: Vec<f64>,
}

/// Whether to run again after the runs so far gave `samples`.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    Again,
    /// Stop, and why: `clear at 3 runs`, `unresolved after 6 runs`, …
    Stop(String),
}

impl AutoRepeat {
    /// `variant` of `entry` against its pair partner's newest recorded samples of the commit's
    /// primary metric.
    pub fn for_entry(entry: &Entry, variant: Variant, max: u32) -> AutoRepeat {
        let partner = AutoRepeat::partner_of(variant);
        let first = entry.commit.kind().primary_candidates().first().copied().unwrap_or("tpot_mean");
        let metric = entry.primary_metric().unwrap_or(first).to_string();
        let against = entry.variant(partner).outcome.samples.get(&metric).cloned().unwrap_or_default();
        AutoRepeat { max, metric, partner, against }
    }

    /// The partner for a variant: the baseline for the human and the agent, the human for it.
    pub fn partner_of(variant: Variant) -> Variant {
        if variant == Variant::Baseline { Variant::Human } else { Variant::Baseline }
    }

    /// After `samples` (this run's, in order): again, or stop with the reason.
    pub fn next(&self, samples: &[f64]) -> Next {
        let n = samples.len();
        if n < AUTO_MIN as usize {
            return Next::Again;
        }
        if self.against.len() < 2 {
            let why = format!("no {} samples of {} to compare", self.partner.name(), self.metric);
            return Next::Stop(format!("{why}: {n} runs"));
        }
        let spread = match interval(&self.metric, &self.against, samples) {
            Ok(spread) => spread,
            Err(why) => return Next::Stop(format!("{why}: {n} runs")),
        };
        if spread.decided() {
            Next::Stop(format!("clear at {n} runs"))
        } else if n >= self.max as usize {
            Next::Stop(format!("unresolved after {n} runs"))
        } else {
            Next::Again
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(against: &[f64]) -> AutoRepeat {
        let (metric, partner) = ("output_throughput".to_string(), Variant::Baseline);
        AutoRepeat { max: 6, metric, partner, against: against.to_vec() }
    }

    #[test]
    fn repeat_reads_numbers_auto_and_auto_with_a_max_and_names_a_typo() {
        assert_eq!("5".parse(), Ok(Repeat::Times(5)));
        assert_eq!("auto".parse(), Ok(Repeat::Auto { max: AUTO_MAX }));
        assert_eq!("auto:6".parse(), Ok(Repeat::Auto { max: 6 }));
        for bad in ["0", "101", "auto:2", "auto6", "aut", "auto:x"] {
            let e = bad.parse::<Repeat>().unwrap_err().to_string();
            assert!(e.contains(&format!("`{bad}`")), "{e}");
        }
        for back in [Repeat::Times(5), Repeat::Auto { max: 6 }] {
            assert_eq!(back.to_string().parse(), Ok(back), "what a payload is given reads back");
        }
    }

    #[test]
    fn the_config_takes_a_number_or_auto_and_names_a_typo() {
        #[derive(serde::Deserialize, Debug)]
        struct Runs {
            repeat: Repeat,
        }
        let read = |text: &str| toml::from_str::<Runs>(text).map(|r| r.repeat);
        assert_eq!(read("repeat = 5").unwrap(), Repeat::Times(5));
        assert_eq!(read("repeat = \"auto\"").unwrap(), Repeat::Auto { max: AUTO_MAX });
        assert_eq!(read("repeat = \"auto:4\"").unwrap(), Repeat::Auto { max: 4 });
        let typo = read("repeat = \"atuo\"").unwrap_err().to_string();
        assert!(typo.contains("`atuo`") && typo.contains("line 1"), "{typo}");
        assert!(read("repeat = 0").is_err() && read("repeat = -3").is_err());
    }

    #[test]
    fn a_clear_difference_stops_at_three_and_a_noisy_tie_runs_to_the_max() {
        let q = question(&[100.0, 101.0, 99.0]);
        assert_eq!(q.next(&[150.0, 151.0]), Next::Again, "fewer than three");
        assert_eq!(q.next(&[150.0, 151.0, 149.0]), Next::Stop("clear at 3 runs".into()));
        let noisy = [95.0, 106.0, 99.0, 104.0, 97.0];
        assert_eq!(q.next(&noisy[..3]), Next::Again);
        assert_eq!(
            q.next(&[noisy.as_slice(), &[101.0]].concat()),
            Next::Stop("unresolved after 6 runs".into())
        );
    }

    #[test]
    fn it_stops_exactly_when_the_verdict_is_decided_at_both_bands() {
        // Candidates from 12 % worse to 12 % better, tight to noisy: "clear" is said exactly
        // where the pair's interval gives a verdict at ±2 % and at ±5 % (none undecided).
        let q = question(&[100.0, 101.0, 99.0, 100.5, 99.5]);
        let mut seen = (0, 0);
        for shift in -24..=24 {
            for noise in [0.1, 0.5, 1.0, 2.0, 4.0] {
                let centre = 100.0 + f64::from(shift) / 2.0;
                let samples = [centre - noise, centre + noise, centre, centre + noise / 2.0];
                let spread = interval(&q.metric, &q.against, &samples).unwrap();
                let decided = crate::metrics::BANDS
                    .iter()
                    .all(|&b| spread.verdict_at(b) != crate::metrics::Verdict::Undecided);
                let clear = q.next(&samples) == Next::Stop("clear at 4 runs".into());
                assert_eq!(clear, decided, "{samples:?}: {spread:?}");
                if decided { seen.0 += 1 } else { seen.1 += 1 }
            }
        }
        assert!(seen.0 > 50 && seen.1 > 50, "both kinds of case: {seen:?}");
    }

    #[test]
    fn samples_that_give_no_interval_stop_it_with_the_reason() {
        let q = question(&[100.0, 100.0, 100.0]);
        let Next::Stop(why) = q.next(&[90.0, 90.0, 90.0]) else { panic!() };
        assert_eq!(why, "no interval: both sides constant (6 runs, zero spread): 3 runs");
    }

    #[test]
    fn without_the_partners_samples_it_stops_at_three_and_says_why() {
        let q = question(&[100.0]);
        let Next::Stop(why) = q.next(&[1.0, 2.0, 3.0]) else { panic!() };
        assert_eq!(why, "no baseline samples of output_throughput to compare: 3 runs");
    }
}
