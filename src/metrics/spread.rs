//! Repeated measurements: a mean per variant, and a delta between two variants with its 95 %
//! confidence interval (Welch's t on the difference of means, as a percentage of the reference
//! mean). A delta whose interval crosses zero is a tie, whatever its size.

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

impl Interval {
    pub fn verdict(&self) -> Verdict {
        match () {
            _ if self.low > 0.0 => Verdict::Better,
            _ if self.high < 0.0 => Verdict::Worse,
            _ => Verdict::Tie,
        }
    }
}

/// Student's t's 97.5 % quantile at exactly `df` (Welch–Satterthwaite's, fractional) degrees of
/// freedom, from statrs; 12.706 (one degree) where `df` is no positive number.
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

/// The delta of `candidate` over `reference` on `metric`, with its interval; `None` unless both
/// have two or more repeats and the reference mean is not zero.
pub fn interval(metric: &str, reference: &[f64], candidate: &[f64]) -> Option<Interval> {
    let (nr, nc) = (reference.len(), candidate.len());
    let (mr, mc) = (mean(reference), mean(candidate));
    if nr < 2 || nc < 2 || mr == 0.0 {
        return None;
    }
    let (vr, vc) = (variance(reference) / nr as f64, variance(candidate) / nc as f64);
    let se = (vr + vc).sqrt();
    // Welch–Satterthwaite degrees of freedom.
    let df = if se == 0.0 {
        1.0
    } else {
        (vr + vc).powi(2) / (vr.powi(2) / (nr - 1) as f64 + vc.powi(2) / (nc - 1) as f64)
    };
    let t = t_975(df);
    let sign = match definition(metric)?.direction {
        Direction::HigherIsBetter => 1.0,
        Direction::LowerIsBetter => -1.0,
    };
    let scale = |d: f64| sign * d / mr.abs() * 100.0;
    let (a, b) = (scale(mc - mr - t * se), scale(mc - mr + t * se));
    let mann_whitney_p = super::rank::mann_whitney_p(reference, candidate);
    Some(Interval { pct: scale(mc - mr), low: a.min(b), high: a.max(b), runs: (nr, nc), mann_whitney_p })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clear_improvement_is_better_and_noise_is_a_tie() {
        // Throughput up 10 % with 1 % noise: better, the interval well above zero.
        let up = interval("output_throughput", &[100.0, 101.0, 99.0], &[110.0, 111.0, 109.0]).unwrap();
        assert!((up.pct - 10.0).abs() < 1e-9 && up.low > 5.0 && up.verdict() == Verdict::Better, "{up:?}");
        // Latency (lower is better) 3 % up inside 5 % noise: a tie, though past the ±2 % band.
        let noisy = interval("tpot_mean", &[10.0, 10.5, 9.5], &[10.3, 10.8, 9.8]).unwrap();
        assert!(noisy.pct < -2.0 && noisy.low < 0.0 && noisy.high > 0.0, "{noisy:?}");
        assert_eq!(noisy.verdict(), Verdict::Tie);
        assert_eq!(interval("tpot_mean", &[10.0], &[11.0, 12.0]), None, "one run has no interval");
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
