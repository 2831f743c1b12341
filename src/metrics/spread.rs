//! Repeated measurements: a mean per variant, and a delta between two variants with its 95 %
//! confidence interval (Welch's t on the difference of means, as a percentage of the reference
//! mean), judged at the benchmark's bands: beats, similar, worse, or undecided while the interval
//! reaches over a band's edge. Samples that give no interval say why, and are not judged.

use super::{Direction, Verdict, definition};
use serde::Serialize;

/// A delta in percent (positive = better) with its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub pct: f64,
    pub low: f64,
    pub high: f64,
    /// Repeats behind the reference and the candidate.
    pub runs: (usize, usize),
    /// The Mann–Whitney U test's two-sided p-value on the same samples (ranks only).
    pub mann_whitney_p: Option<f64>,
}

/// The bands ISO-Bench judges a delta at, in percent: ±2 % and ±5 %.
pub const BANDS: [f64; 2] = [2.0, 5.0];

impl Interval {
    /// At band `band_pct`: beats if the whole interval is above it, worse if wholly below its
    /// negative, similar if wholly within, else undecided (more runs needed).
    pub fn verdict_at(&self, band_pct: f64) -> Verdict {
        match () {
            _ if self.low > band_pct => Verdict::Beats,
            _ if self.high < -band_pct => Verdict::Worse,
            _ if -band_pct <= self.low && self.high <= band_pct => Verdict::Similar,
            _ => Verdict::Undecided,
        }
    }

    /// A verdict at every one of the `BANDS`.
    pub fn decided(&self) -> bool {
        BANDS.iter().all(|&band| self.verdict_at(band) != Verdict::Undecided)
    }
}

/// Why two sets of repeats give no interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NoInterval {
    #[error("no interval: fewer than 2 samples ({reference} and {candidate})")]
    TooFewSamples { reference: usize, candidate: usize },
    #[error("no interval: both sides constant ({runs} runs, zero spread)", runs = .0)]
    NoSpread(usize),
    #[error("no interval: a sample is not a finite number")]
    NonFinite,
    #[error("no interval: the reference mean is 0")]
    ZeroReference,
    #[error("no interval: no direction is known for the metric")]
    UnknownMetric,
}

impl Serialize for NoInterval {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Student's t's 97.5 % quantile at exactly `df` (Welch–Satterthwaite's, fractional) degrees of
/// freedom, from statrs; 12.706 (one degree) where `df` is no positive number (not reached:
/// `usable` turns such samples away).
fn t_975(df: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    StudentsT::new(0.0, 1.0, df).map_or(12.706_204_736_174_7, |t| t.inverse_cdf(0.975))
}

pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

fn variance(values: &[f64]) -> f64 {
    let m = mean(values);
    values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (values.len().max(2) - 1) as f64
}

/// Below this fraction of the candidate's mean (or of its spread) a reference mean is as good as
/// 0: a delta relative to it says nothing (2e-300 against 5 would be +2.5e302 %).
const TINY_REFERENCE: f64 = 1e-9;

/// A spread below this fraction of the mean is float rounding, not spread: `[9.65; 10]` is as
/// constant as `[10.0; 10]`, though its computed variance is not exactly 0.
const ROUNDING: f64 = 1e-12;

/// Whether `values` hold no spread but rounding's.
fn constant(values: &[f64]) -> bool {
    variance(values).sqrt() <= ROUNDING * mean(values).abs()
}

/// Whether the samples can give an interval at all: two or more a side, every one finite, a
/// reference mean that is not 0 (or as good as 0), and some spread.
fn usable(reference: &[f64], candidate: &[f64]) -> Result<(), NoInterval> {
    let (nr, nc) = (reference.len(), candidate.len());
    if nr < 2 || nc < 2 {
        return Err(NoInterval::TooFewSamples { reference: nr, candidate: nc });
    }
    if !reference.iter().chain(candidate).all(|v| v.is_finite()) {
        return Err(NoInterval::NonFinite);
    }
    let scale = mean(candidate).abs().max(variance(candidate).sqrt());
    if mean(reference) == 0.0 || mean(reference).abs() < TINY_REFERENCE * scale {
        return Err(NoInterval::ZeroReference);
    }
    if constant(reference) && constant(candidate) {
        return Err(NoInterval::NoSpread(nr + nc));
    }
    Ok(())
}

/// The delta of `candidate` over `reference` on `metric`, with its interval, or why there is none.
pub fn interval(metric: &str, reference: &[f64], candidate: &[f64]) -> Result<Interval, NoInterval> {
    usable(reference, candidate)?;
    let (nr, nc) = (reference.len(), candidate.len());
    let (mr, mc) = (mean(reference), mean(candidate));
    let (vr, vc) = (variance(reference) / nr as f64, variance(candidate) / nc as f64);
    let se = (vr + vc).sqrt();
    // Welch–Satterthwaite degrees of freedom.
    let df = (vr + vc).powi(2) / (vr.powi(2) / (nr - 1) as f64 + vc.powi(2) / (nc - 1) as f64);
    let t = t_975(df);
    let sign = match definition(metric).ok_or(NoInterval::UnknownMetric)?.direction {
        Direction::HigherIsBetter => 1.0,
        Direction::LowerIsBetter => -1.0,
    };
    let scale = |d: f64| sign * d / mr.abs() * 100.0;
    let (a, b) = (scale(mc - mr - t * se), scale(mc - mr + t * se));
    let mann_whitney_p = super::rank::mann_whitney_p(reference, candidate);
    Ok(Interval { pct: scale(mc - mr), low: a.min(b), high: a.max(b), runs: (nr, nc), mann_whitney_p })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Constant samples are constant whatever their float rounding, and a reference mean a
    /// billion times below the candidate's gives no interval, as 0 does.
    #[test]
    fn constant_samples_and_a_vanishing_reference_give_no_interval() {
        let none = |r: &[f64], c: &[f64]| interval("tpot_mean", r, c).map(|_| ()).unwrap_err().to_string();
        let (rounded, whole) = (none(&[9.65; 10], &[9.0; 10]), none(&[10.0; 10], &[9.0; 10]));
        assert_eq!(rounded, whole, "the same answer for [9.65]*10 as for [10.0]*10");
        assert_eq!(none(&[2e-300, 2e-300], &[5.0, 5.1]), none(&[0.0, 0.0], &[5.0, 5.1]));
        assert!(interval("tpot_mean", &[1e-3, 1.1e-3], &[1.2e-3, 1.3e-3]).is_ok(), "small, not vanishing");
    }

    #[test]
    fn a_clear_improvement_beats_at_both_bands_and_noise_is_undecided() {
        // Throughput up 10 % with 1 % noise: beats, the interval well above +5 %.
        let up = interval("output_throughput", &[100.0, 101.0, 99.0], &[110.0, 111.0, 109.0]).unwrap();
        assert!((up.pct - 10.0).abs() < 1e-9 && up.low > 5.0, "{up:?}");
        assert_eq!(BANDS.map(|b| up.verdict_at(b)), [Verdict::Beats; 2]);
        // Latency (lower is better) 3 % up inside 5 % noise: undecided, though past the ±2 % band.
        let noisy = interval("tpot_mean", &[10.0, 10.5, 9.5], &[10.3, 10.8, 9.8]).unwrap();
        assert!(noisy.pct < -2.0 && noisy.low < -5.0 && noisy.high > 5.0, "{noisy:?}");
        assert_eq!(BANDS.map(|b| noisy.verdict_at(b)), [Verdict::Undecided; 2]);
        assert!(up.decided() && !noisy.decided());
    }

    #[test]
    fn each_band_judges_the_whole_interval() {
        let at =
            |low, high| Interval { pct: (low + high) / 2.0, low, high, runs: (3, 3), mann_whitney_p: None };
        // A tight +0.5 %: similar at both bands (it used to count as a win for excluding 0).
        assert_eq!(BANDS.map(|b| at(0.2, 0.8).verdict_at(b)), [Verdict::Similar; 2]);
        assert_eq!(BANDS.map(|b| at(2.5, 4.0).verdict_at(b)), [Verdict::Beats, Verdict::Similar]);
        assert_eq!(BANDS.map(|b| at(-9.0, -6.0).verdict_at(b)), [Verdict::Worse; 2]);
        assert_eq!(BANDS.map(|b| at(-3.0, -1.0).verdict_at(b)), [Verdict::Undecided, Verdict::Similar]);
        assert_eq!(at(2.0, 4.0).verdict_at(2.0), Verdict::Undecided, "an edge inside is not beyond it");
        assert!(at(-1.5, 1.5).decided() && at(6.0, 9.0).decided() && at(2.5, 4.0).decided());
        assert!(!at(1.0, 3.0).decided() && !at(-6.0, -4.0).decided() && !at(-1.0, 10.0).decided());
    }

    #[test]
    fn degenerate_samples_say_why_there_is_no_interval() {
        let none = |r: &[f64], c: &[f64]| interval("tpot_mean", r, c).unwrap_err().to_string();
        assert_eq!(none(&[10.0], &[11.0, 12.0]), "no interval: fewer than 2 samples (1 and 2)");
        assert_eq!(none(&[10.0; 3], &[11.0; 3]), "no interval: both sides constant (6 runs, zero spread)");
        assert_eq!(none(&[10.0, f64::NAN], &[11.0, 12.0]), "no interval: a sample is not a finite number");
        assert_eq!(none(&[0.0, 0.0], &[1.0, 2.0]), "no interval: the reference mean is 0");
        assert!(interval("no_such_metric", &[1.0, 2.0], &[1.0, 2.0]).is_err());
        // One side constant still has an interval: the other side's spread.
        assert!(interval("tpot_mean", &[10.0; 3], &[10.5, 10.7, 10.6]).is_ok());
    }

    #[test]
    fn the_interval_matches_welch_by_hand() {
        // Means 10 and 12, variances 1 and 4, n = 3 each: se² = 1/3 + 4/3, df = (5/3)² / ((1/3)² / 2 +
        // (4/3)² / 2) = 2.9412 → t = 3.2187586145 (scipy's t.ppf(0.975, 2.9411764705882346)).
        let i = interval("output_throughput", &[9.0, 10.0, 11.0], &[10.0, 12.0, 14.0]).unwrap();
        let half = 3.218_758_614_532_883_5 * (5.0f64 / 3.0).sqrt() / 10.0 * 100.0;
        assert!((i.pct - 20.0).abs() < 1e-9 && (i.high - i.pct - half).abs() < 1e-6, "{i:?}");
    }
}
