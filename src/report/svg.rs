//! The forest plot as inline SVG for the HTML report: each placed row's estimate (a dot) and 95 %
//! interval (a bar) against the shaded ±2 % and ±5 % bands, coloured by verdict and said in words
//! beside it, so it reads without colour too.

use super::forest::{ForestRow, axis_half_width};
use super::markup::esc;
use crate::metrics::{BANDS, Verdict};
use std::fmt::Write as _;

const ROW_H: f64 = 18.0;
const LEFT: f64 = 90.0;
const PLOT_W: f64 = 420.0;
const WIDTH: f64 = 860.0;

/// A verdict's colour (words carry the meaning; the colour repeats it).
fn colour(verdict: Option<Verdict>) -> &'static str {
    match verdict {
        Some(Verdict::Beats) => "#1a7f37",
        Some(Verdict::Worse) => "#cf222e",
        Some(Verdict::Similar) => "#57606a",
        Some(Verdict::Undecided) | None => "#9a6700",
    }
}

/// The plot of the placed rows (the others are listed beside it by the page).
pub fn forest(rows: &[ForestRow], caption: &str) -> String {
    let placed: Vec<&ForestRow> = rows.iter().filter(|r| r.pct.is_some()).collect();
    let half = axis_half_width(rows);
    let x = |pct: f64| LEFT + (pct.clamp(-half, half) + half) / (2.0 * half) * PLOT_W;
    let height = (placed.len() as f64 + 2.0) * ROW_H + 10.0;
    let mut out = format!(
        "<svg class=\"forest\" role=\"img\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\"><title>{}</title>\n",
        esc(caption)
    );
    bands(&mut out, &x, height);
    for (i, row) in placed.iter().enumerate() {
        row_marks(&mut out, row, (i as f64 + 1.0) * ROW_H, &x);
    }
    ticks(&mut out, half, height - 6.0, &x);
    out.push_str("</svg>");
    out
}

fn bands(out: &mut String, x: &dyn Fn(f64) -> f64, height: f64) {
    let bottom = height - 20.0;
    for (band, fill) in [(BANDS[1], "#f2f2f2"), (BANDS[0], "#dcdcdc")] {
        let (from, to) = (x(-band), x(band));
        let _ = writeln!(
            out,
            "<rect class=\"band\" x=\"{from:.1}\" y=\"4\" width=\"{:.1}\" height=\"{bottom:.1}\" fill=\"{fill}\"/>",
            to - from
        );
    }
    let zero = x(0.0);
    let _ = writeln!(
        out,
        "<line x1=\"{zero:.1}\" y1=\"4\" x2=\"{zero:.1}\" y2=\"{bottom:.1}\" stroke=\"#444\"/>"
    );
}

fn row_marks(out: &mut String, row: &ForestRow, y: f64, x: &dyn Fn(f64) -> f64) {
    let (pct, c) = (row.pct.unwrap_or(0.0), colour(row.verdict()));
    let _ = writeln!(
        out,
        "<g class=\"row\"><text x=\"4\" y=\"{:.1}\" font-family=\"monospace\" font-size=\"12\">{}</text>",
        y + 4.0,
        esc(row.short.as_str())
    );
    if let Some((low, high)) = row.interval {
        let _ = writeln!(
            out,
            "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{c}\" stroke-width=\"3\"/>",
            x(low),
            x(high)
        );
    }
    let fill = if row.interval.is_some() { c } else { "white" };
    let _ = writeln!(
        out,
        "<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"{fill}\" stroke=\"{c}\" stroke-width=\"2\"/>",
        x(pct)
    );
    let words = esc(&row.words());
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\">{words}</text></g>",
        LEFT + PLOT_W + 10.0,
        y + 4.0
    );
}

fn ticks(out: &mut String, half: f64, y: f64, x: &dyn Fn(f64) -> f64) {
    for tick in [-half, -BANDS[1], -BANDS[0], 0.0, BANDS[0], BANDS[1], half] {
        let label = if tick == 0.0 { "0".to_string() } else { format!("{tick:+.0}%") };
        let _ = writeln!(
            out,
            "<text class=\"tick\" x=\"{:.1}\" y=\"{y:.1}\" font-size=\"10\" text-anchor=\"middle\">{label}</text>",
            x(tick)
        );
    }
}
