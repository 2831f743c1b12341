//! The Mann–Whitney U test: whether two samples come from one distribution, by their ranks
//! alone (no normality assumed, unlike Welch's interval). Two-sided p-value: exact for small
//! samples without ties, else the normal approximation with tie and continuity corrections.

/// Above this many values a side, the normal approximation is used.
const EXACT_UP_TO: usize = 25;

/// U of `a` against `b`: pairs where `a`'s value is larger, ties counting a half.
pub fn u_statistic(a: &[f64], b: &[f64]) -> f64 {
    let pairs = a.iter().flat_map(|x| b.iter().map(move |y| (x, y)));
    pairs
        .map(|(x, y)| {
            if x > y {
                1.0
            } else if x == y {
                0.5
            } else {
                0.0
            }
        })
        .sum()
}

/// The two-sided p-value; `None` unless both sides have two or more values.
pub fn mann_whitney_p(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let tied = has_ties(a, b);
    let p = if !tied && a.len() <= EXACT_UP_TO && b.len() <= EXACT_UP_TO {
        // Without ties U is a whole count of pairs.
        let u = a.iter().map(|x| b.iter().filter(|y| x > *y).count()).sum();
        exact_p(a.len(), b.len(), u)
    } else {
        normal_p(a, b, u_statistic(a, b))
    };
    Some(p.min(1.0))
}

fn has_ties(a: &[f64], b: &[f64]) -> bool {
    let mut all: Vec<f64> = a.iter().chain(b).copied().collect();
    all.sort_by(f64::total_cmp);
    all.windows(2).any(|w| w[0] == w[1])
}

/// 2 × the smaller tail of U's exact distribution under no difference.
fn exact_p(m: usize, n: usize, u: usize) -> f64 {
    let counts = arrangements(m, n);
    let total: f64 = counts.iter().sum();
    let below: f64 = counts[..=u].iter().sum();
    let above: f64 = counts[u..].iter().sum();
    2.0 * below.min(above) / total
}

/// How many orderings of `m` and `n` values give each U (`0..=m·n`).
fn arrangements(m: usize, n: usize) -> Vec<f64> {
    // by_size[j] holds the counts for i values of one side and j of the other, i growing.
    let mut by_size: Vec<Vec<f64>> = (0..=n).map(|_| vec![1.0]).collect();
    for i in 1..=m {
        let mut next: Vec<Vec<f64>> = vec![vec![1.0]];
        for j in 1..=n {
            // The largest value is from the first side (above all j of the other: U + j) or not.
            let mut counts = vec![0.0; i * j + 1];
            for (u, c) in by_size[j].iter().enumerate() {
                counts[u + j] += c;
            }
            for (u, c) in next[j - 1].iter().enumerate() {
                counts[u] += c;
            }
            next.push(counts);
        }
        by_size = next;
    }
    by_size.pop().unwrap_or_default()
}

/// The normal approximation, its variance corrected for ties, with a continuity correction.
fn normal_p(a: &[f64], b: &[f64], u: f64) -> f64 {
    let (m, n) = (a.len() as f64, b.len() as f64);
    let total = m + n;
    let mut all: Vec<f64> = a.iter().chain(b).copied().collect();
    all.sort_by(f64::total_cmp);
    let ties: f64 = all.chunk_by(|x, y| x == y).map(|g| (g.len() as f64).powi(3) - g.len() as f64).sum();
    let variance = m * n / 12.0 * ((total + 1.0) - ties / (total * (total - 1.0)));
    if variance <= 0.0 {
        return 1.0;
    }
    let z = ((u - m * n / 2.0).abs() - 0.5).max(0.0) / variance.sqrt();
    2.0 * standard_normal_sf(z)
}

/// The standard normal's upper tail, 1 − Φ(z), from statrs (exact in the far tail too).
fn standard_normal_sf(z: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    Normal::standard().sf(z)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-4
    }

    #[test]
    fn separated_samples_have_the_smallest_exact_p_by_hand() {
        // 3+3 apart: one ordering of C(6,3) = 20 gives U = 0; two-sided 2/20.
        assert!(close(mann_whitney_p(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap(), 0.1));
        // 5+5 apart: 2/C(10,5) = 2/252.
        let (a, b) = ([1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0]);
        assert!(close(mann_whitney_p(&a, &b).unwrap(), 2.0 / 252.0));
        assert!(close(mann_whitney_p(&b, &a).unwrap(), 2.0 / 252.0), "either way round");
    }

    #[test]
    fn interleaved_samples_are_no_evidence_of_a_difference() {
        // U = 2 of 4 (the middle): each tail is at least half, so p is 1.
        assert!(close(mann_whitney_p(&[1.0, 4.0], &[2.0, 3.0]).unwrap(), 1.0));
        // 3+3, U = 1: orderings with U <= 1 are 2 of 20; two-sided 4/20.
        assert_eq!(u_statistic(&[1.0, 2.0, 4.0], &[3.0, 5.0, 6.0]), 1.0);
        assert!(close(mann_whitney_p(&[1.0, 2.0, 4.0], &[3.0, 5.0, 6.0]).unwrap(), 0.2));
    }

    #[test]
    fn ties_use_the_corrected_normal_approximation() {
        // a = [1,2,2], b = [2,3,3]: U = 0 + 0.5·1 + 0.5·1 = 1 … by hand: pairs (2,2) twice → 1.0.
        let (a, b) = ([1.0, 2.0, 2.0], [2.0, 3.0, 3.0]);
        assert_eq!(u_statistic(&a, &b), 1.0);
        // Ties 2×3 and 2×2: Σ(t³−t) = 24 + 6 = 30; var = 9/12·(7 − 30/30) = 4.5;
        // z = (|1 − 4.5| − 0.5)/√4.5 = 1.4142; p = 2·(1 − Φ(1.4142)) = 0.1573.
        assert!(close(mann_whitney_p(&a, &b).unwrap(), 0.1573), "{:?}", mann_whitney_p(&a, &b));
    }

    #[test]
    fn one_value_a_side_gives_no_test() {
        assert_eq!(mann_whitney_p(&[1.0], &[2.0, 3.0]), None);
    }
}
