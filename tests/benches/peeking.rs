//! Peeking: what a 95 % interval read after every run means when nothing changed.
//!
//! `cargo bench --bench peeking` simulates `--repeat auto:MAX` against a partner's recorded runs
//! where both sides draw from one normal distribution (no true difference), with perftriage's own
//! stop rule (`AutoRepeat::next`) and verdicts (`Interval::verdict_at`), and prints a table:
//!
//! - `excl. 0 ever`: the interval excluded 0 at some look (3, 4, … MAX runs) — what a reader of
//!   the live pane would see as "a difference" at least once (the old rule's verdict);
//! - `excl. 0 last`: it excluded 0 at the last run only (one look, no peeking: about 5 %);
//! - `beats/worse ±2`, `±5`: the auto rule stopped on a wrong verdict at that band;
//! - `undecided`: it reached MAX still undecided at some band.
//!
//! Seeded (xorshift, Box–Muller), so the table is the same on every machine.

use perftriage::metrics::{BANDS, Verdict, interval};
use perftriage::runs::auto::{AUTO_MIN, AutoRepeat, Next};

const TRIALS: usize = 10_000;

/// xorshift64* and Box–Muller: normal draws without a dependency.
struct Normal(u64);

impl Normal {
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn draw(&mut self, mean: f64, sd: f64) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        mean + sd * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

#[derive(Default)]
struct Tally {
    ever: usize,
    last: usize,
    wrong: [usize; 2],
    undecided: usize,
}

/// One trial: the partner's `partner` runs, then runs until the auto rule stops.
fn trial(rng: &mut Normal, sd: f64, partner: usize, max: u32, tally: &mut Tally) {
    let against: Vec<f64> = (0..partner).map(|_| rng.draw(100.0, sd)).collect();
    let q = AutoRepeat {
        max,
        metric: "output_throughput".into(),
        partner: perftriage::dataset::Variant::Baseline,
        against,
    };
    let (mut samples, mut excluded) = (Vec::new(), false);
    loop {
        samples.push(rng.draw(100.0, sd));
        if samples.len() < AUTO_MIN as usize {
            continue;
        }
        let Ok(spread) = interval(&q.metric, &q.against, &samples) else { return };
        let excludes = spread.low > 0.0 || spread.high < 0.0;
        excluded |= excludes;
        if let Next::Stop(_) = q.next(&samples) {
            tally.ever += usize::from(excluded);
            tally.last += usize::from(excludes);
            for (i, &band) in BANDS.iter().enumerate() {
                let verdict = spread.verdict_at(band);
                tally.wrong[i] += usize::from(matches!(verdict, Verdict::Beats | Verdict::Worse));
            }
            tally.undecided += usize::from(!spread.decided());
            return;
        }
    }
}

fn pct(n: usize) -> String {
    format!("{:.1} %", n as f64 * 100.0 / TRIALS as f64)
}

fn main() {
    println!("{TRIALS} trials each; both sides from one normal distribution (mean 100, CV as given)\n");
    println!(
        "| CV | MAX | partner runs | excl. 0 ever | excl. 0 last | beats/worse ±2 | beats/worse ±5 | undecided |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut rng = Normal(0x9e37_79b9_7f4a_7c15);
    for cv in [1.0, 2.0, 5.0] {
        for (max, partner) in [(6, 3), (6, 6), (10, 3), (10, 10)] {
            let mut tally = Tally::default();
            for _ in 0..TRIALS {
                trial(&mut rng, cv, partner, max, &mut tally);
            }
            let [two, five] = tally.wrong.map(pct);
            let (ever, last, undecided) = (pct(tally.ever), pct(tally.last), pct(tally.undecided));
            println!("| {cv} % | {max} | {partner} | {ever} | {last} | {two} | {five} | {undecided} |");
        }
    }
}
