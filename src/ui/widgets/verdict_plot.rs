//! The `v` overlay: a forest plot of one pair over the commits the filter shows — each estimate
//! (`●`) with its 95 % interval (`━`) against the ±2 % (`░`) and ±5 % (`·`) bands around 0 (`│`),
//! coloured by its ±2 % verdict, sorted by the estimate; rows with no estimate say why.

use super::verdict_style;
use crate::app::{Action, AppState, KeyMode, PlotView};
use crate::metrics::{BANDS, Verdict};
use crate::report::{ForestRow, axis_half_width, pair_label};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The plot's columns for a screen width: the commit, the axis, the words.
struct Columns {
    axis: usize,
    half: f64,
}

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, plot: &PlotView, theme: &Theme) {
    let inner = usize::from(area.width.saturating_sub(2));
    // An odd width puts 0 in a column of its own, the bands alike on both sides.
    let axis = (inner.saturating_sub(10) * 9 / 20).clamp(21, 81) | 1;
    let cols = Columns { axis, half: axis_half_width(&plot.rows) };
    let room = usize::from(area.height.saturating_sub(5)).max(1);
    let first = plot.selected.saturating_sub(room - 1);
    let mut lines = vec![axis_line(&cols, theme)];
    for (i, row) in plot.rows.iter().enumerate().skip(first).take(room) {
        lines.push(row_line(row, &cols, i == plot.selected, theme));
    }
    if plot.rows.is_empty() {
        lines.push(Line::styled("No commits shown: Esc, then clear the filter.", theme.dim));
    }
    lines.push(legend(theme));
    let title = Span::styled(title(state, plot), theme.header);
    super::popup(frame, area, (area.width, area.height), title, theme.border, Paragraph::new(lines));
}

fn title(state: &AppState, plot: &PlotView) -> String {
    let key = |action| super::hints::key(&state.session.keymap, KeyMode::Plot, action);
    let placed = plot.rows.iter().filter(|r| r.pct.is_some()).count();
    format!(
        " Verdict plot: {} on each commit's primary metric — {placed} placed, {} without an estimate · {} next pair · {} jump · {} close ",
        pair_label(plot.pair),
        plot.rows.len() - placed,
        key(Action::NextPair),
        key(Action::Choose),
        key(Action::Close),
    )
}

/// The column of `x` percent on the axis, `None` beyond either edge.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // checked in 0..=span first
fn column(x: f64, cols: &Columns) -> Option<usize> {
    let span = (cols.axis - 1) as f64;
    let at = ((x + cols.half) / (2.0 * cols.half) * span).round();
    (0.0..=span).contains(&at).then_some(at as usize)
}

/// The percent at the middle of column `c`.
fn percent_at(c: usize, cols: &Columns) -> f64 {
    c as f64 / (cols.axis - 1) as f64 * 2.0 * cols.half - cols.half
}

/// `-12%   -5 -2 0 +2 +5   +12%` over the axis, each tick where its column is, none overlapping.
fn axis_line(cols: &Columns, theme: &Theme) -> Line<'static> {
    let mut text = vec![' '; cols.axis];
    let ticks = [-cols.half, -BANDS[1], -BANDS[0], 0.0, BANDS[0], BANDS[1], cols.half];
    let mut free_from = 0;
    for tick in ticks {
        let label = if tick == 0.0 { "0".to_string() } else { format!("{tick:+.0}") };
        let Some(at) = column(tick, cols) else { continue };
        let start = at.saturating_sub(label.len() / 2).min(cols.axis.saturating_sub(label.len()));
        if start < free_from {
            continue;
        }
        for (i, ch) in label.chars().enumerate() {
            text[start + i] = ch;
        }
        free_from = start + label.len() + 1;
    }
    let axis: String = text.into_iter().collect();
    Line::styled(format!("{:<9} {axis} %", "commit"), theme.header)
}

/// The background of column `c`: the zero line, the ±2 % band, the ±5 % band, or nothing.
fn band_glyph(c: usize, cols: &Columns) -> char {
    match percent_at(c, cols).abs() {
        _ if Some(c) == column(0.0, cols) => '│',
        a if a <= BANDS[0] => '░',
        a if a <= BANDS[1] => '·',
        _ => ' ',
    }
}

fn row_line(row: &ForestRow, cols: &Columns, selected: bool, theme: &Theme) -> Line<'static> {
    let style = row
        .verdict()
        .map_or(if row.pct.is_some() { theme.warn } else { theme.dim }, |v| verdict_style(v, theme).0);
    let name = if selected { theme.selected } else { theme.text };
    let mut spans = vec![Span::styled(format!("{:<9}", row.short), name), Span::raw(" ")];
    spans.extend(drawn(row, cols, style, theme));
    spans.push(Span::styled(format!(" {}", row.words()), if selected { theme.selected } else { style }));
    Line::from(spans)
}

/// The axis cells of a row: the bands, the interval over them, the estimate on top; an estimate
/// beyond the axis is an arrow at its edge.
fn drawn(row: &ForestRow, cols: &Columns, style: Style, theme: &Theme) -> Vec<Span<'static>> {
    let Some(pct) = row.pct else {
        return vec![Span::raw(" ".repeat(cols.axis))];
    };
    let (low, high) = row.interval.unwrap_or((pct, pct));
    let clamp = |x: f64| column(x.clamp(-cols.half, cols.half), cols).unwrap_or(0);
    let (from, to, at) = (clamp(low), clamp(high), clamp(pct));
    let edge = if pct > cols.half {
        Some('▶')
    } else if pct < -cols.half {
        Some('◀')
    } else {
        None
    };
    (0..cols.axis)
        .map(|c| match c {
            c if c == at => Span::styled(edge.unwrap_or('●').to_string(), style),
            c if c >= from && c <= to && from != to => Span::styled("━", style),
            c => Span::styled(band_glyph(c, cols).to_string(), theme.dim),
        })
        .collect()
}

fn legend(theme: &Theme) -> Line<'static> {
    let verdicts = [Verdict::Beats, Verdict::Similar, Verdict::Worse, Verdict::Undecided];
    let mut spans = vec![Span::styled("│ 0 ░ ±2% · ±5% ━ 95% interval ● estimate ◀▶ beyond  ", theme.dim)];
    for v in verdicts {
        let (style, word) = verdict_style(v, theme);
        spans.push(Span::styled(format!("● {word} "), style));
    }
    Line::from(spans)
}
