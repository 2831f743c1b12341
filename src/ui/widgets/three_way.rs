//! The detail pane's 3-way section: each pair's delta, or `≠ not comparable` with its reasons,
//! and the three variants' workloads side by side.

use crate::dataset::{Entry, Variant, WORKLOAD_PARTS};
use crate::report::{Comparison, PAIR_LABELS, Pair, verdict_words};
use crate::ui::Theme;
use ratatui::text::{Line, Span};

pub fn lines<'a>(entry: &Entry, cmp: &Comparison, theme: &Theme) -> Vec<Line<'a>> {
    let repeated = cmp.pairs.iter().any(|p| p.interval.is_some() || p.no_interval.is_some());
    let band = "verdicts at ±2% and ±5%";
    let basis = if repeated {
        "repeats by the whole 95% CI, single runs by the point estimate"
    } else {
        "single runs"
    };
    let title = format!("3-way on {} ({band}; {basis}):", cmp.metric);
    let mut out = vec![Line::styled(title, theme.header)];
    out.push(Line::from(
        cmp.pairs.iter().zip(PAIR_LABELS).map(|(p, l)| delta_span(l, p, theme)).collect::<Vec<_>>(),
    ));
    out.extend(cmp.missing.iter().map(|m| Line::styled(format!("  primary metric: {m}"), theme.warn)));
    for (pair, label) in cmp.pairs.iter().zip(PAIR_LABELS).filter(|(p, _)| p.measured) {
        out.extend(pair_notes(label, pair, theme));
    }
    out.extend(workload_lines(entry, theme));
    out
}

fn delta_span<'a>(label: &str, pair: &Pair, theme: &Theme) -> Span<'a> {
    match pair.pct {
        None if pair.measured && !pair.comparable => {
            Span::styled(format!("{label} ≠ not comparable   "), theme.warn)
        }
        None => Span::styled(format!("{label} n/a   "), theme.dim),
        Some(p) => {
            let (style, word) = verdicts(pair, theme);
            let older = if pair.older.is_some() { " (older records)" } else { "" };
            let spread = pair.interval.map_or(String::new(), |i| {
                let p = i.mann_whitney_p.map_or(String::new(), |p| format!(", U p={p:.3}"));
                format!(" [{:+.1}, {:+.1}] over {}+{} runs{p}", i.low, i.high, i.runs.0, i.runs.1)
            });
            Span::styled(format!("{label} {p:+.1}%{spread} {word}{older}   "), style)
        }
    }
}

/// A pair's verdicts at the two bands (one word where they agree), or why it has none; styled
/// by the ±2 % one.
fn verdicts(pair: &Pair, theme: &Theme) -> (ratatui::style::Style, String) {
    match (pair.verdict_2pct, pair.verdict_5pct) {
        (Some(two), Some(five)) => {
            (super::verdict_style(two, theme).0, verdict_words([Some(two), Some(five)]))
        }
        _ => (theme.warn, pair.no_interval.map_or("no verdict".to_string(), |why| why.to_string())),
    }
}

/// Why a pair is not compared, which older records stand in, and what went unverified.
fn pair_notes<'a>(label: &str, pair: &Pair, theme: &Theme) -> Vec<Line<'a>> {
    let mut out = Vec::new();
    let (why, style) = if pair.comparable { ("newest differ", theme.dim) } else { ("≠", theme.warn) };
    for reason in pair.reasons.iter().take(4) {
        out.push(Line::styled(format!("  {label} {why}: {reason}"), style));
    }
    if pair.reasons.len() > 4 {
        out.push(Line::styled(format!("  {label}: {} more differences", pair.reasons.len() - 4), style));
    }
    if let Some(older) = &pair.older {
        out.push(Line::styled(format!("  {label} uses {older}"), theme.dim));
    }
    if !pair.unverified.is_empty() {
        let parts: Vec<&str> = pair.unverified.iter().map(|u| u.split(':').next().unwrap_or(u)).collect();
        out.push(Line::styled(
            format!("  {label} unverified (one harness): {}", parts.join(", ")),
            theme.dim,
        ));
    }
    out
}

/// The workloads of B, H and A side by side, a row per part any of them knows: one value
/// where all three agree, else each variant's, marked `≠`.
fn workload_lines<'a>(entry: &Entry, theme: &Theme) -> Vec<Line<'a>> {
    let mut out = vec![Line::styled("Workload (B / H / A):", theme.header)];
    let workloads = Variant::ALL.map(|v| &entry.variant(v).outcome.workload);
    for (part, label) in WORKLOAD_PARTS {
        let values = workloads.map(|w| w.get(part).unwrap_or("unknown"));
        if values.iter().all(|v| *v == "unknown") {
            continue;
        }
        let (mark, text, style) = if values.iter().all(|v| *v == values[0]) {
            (" ", values[0].to_string(), theme.text)
        } else {
            ("≠", format!("B {} │ H {} │ A {}", values[0], values[1], values[2]), theme.warn)
        };
        out.push(Line::from(vec![
            Span::styled(format!("{mark} {label:<15} "), theme.dim),
            Span::styled(text, style),
        ]));
    }
    out
}
