//! The detail pane's strip plot: each variant's runs of the primary metric on one shared axis
//! (`•` a run, `●` two or more in one cell, `┃` the mean), so a noisy side is seen, not inferred.

use crate::dataset::{Entry, Variant};
use crate::metrics;
use crate::ui::Theme;
use ratatui::text::{Line, Span};

/// Cells of the axis.
const WIDTH: usize = 32;

/// Each variant's runs: its repeats' values, else its one value.
fn runs(entry: &Entry, metric: &str, v: Variant) -> Vec<f64> {
    let outcome = &entry.variant(v).outcome;
    match outcome.samples.get(metric) {
        Some(samples) if !samples.is_empty() => samples.iter().copied().filter(|x| x.is_finite()).collect(),
        _ => outcome.metrics.get(metric).copied().filter(|x| x.is_finite()).into_iter().collect(),
    }
}

/// The strip's lines, where some variant repeated its benchmark (else the table says it all).
pub fn lines<'a>(entry: &Entry, metric: &str, theme: &Theme) -> Vec<Line<'a>> {
    let all: Vec<(Variant, Vec<f64>)> = Variant::ALL.iter().map(|&v| (v, runs(entry, metric, v))).collect();
    if all.iter().all(|(_, r)| r.len() < 2) {
        return Vec::new();
    }
    let values = all.iter().flat_map(|(_, r)| r.iter().copied());
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| (l.min(x), h.max(x)));
    let label = metrics::definition(metric).map_or(metric, |d| d.label);
    let mut out = vec![Line::styled(format!("Runs of {label} (• a run, ● several, ┃ mean):"), theme.header)];
    for (v, r) in &all {
        let cells = cells(r, (low, high));
        out.push(Line::from(vec![
            Span::styled(format!("  {:<9}", v.name()), theme.dim),
            Span::styled(cells, theme.text),
            Span::styled(format!(" {}", count(r)), theme.dim),
        ]));
    }
    let (low, high) = (metrics::format_value(metric, low), metrics::format_value(metric, high));
    out.push(Line::styled(
        format!("{:<11}{low:<w$}{high}", "", w = (WIDTH + 2).saturating_sub(high.len())),
        theme.dim,
    ));
    out
}

/// `├ • ●  ┃ • ┤`: the runs placed between `low` and `high`.
fn cells(runs: &[f64], (low, high): (f64, f64)) -> String {
    let mut counts = [0usize; WIDTH];
    // A cell in 0..WIDTH: the fraction is clamped to [0, 1] before the cast.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let place = |x: f64| {
        let span = high - low;
        let at = if span > 0.0 { ((x - low) / span).clamp(0.0, 1.0) } else { 0.5 };
        (at * (WIDTH - 1) as f64).round() as usize
    };
    for &x in runs {
        counts[place(x).min(WIDTH - 1)] += 1;
    }
    let mean = (!runs.is_empty()).then(|| place(runs.iter().sum::<f64>() / runs.len() as f64).min(WIDTH - 1));
    let glyph = |(i, n): (usize, &usize)| match n {
        0 if Some(i) == mean => '┃',
        0 => '─',
        1 => '•',
        _ => '●',
    };
    format!("├{}┤", counts.iter().enumerate().map(glyph).collect::<String>())
}

/// `5 runs`, `1 run`, or `no run`.
fn count(runs: &[f64]) -> String {
    match runs.len() {
        0 => "no run".to_string(),
        1 => "1 run".to_string(),
        n => format!("{n} runs"),
    }
}
