//! The detail pane for the selected commit: identity, commands with provenance, images, per-variant
//! outcomes and metrics with 3-way deltas, the evidence, triage history and upstream notes.

use super::status_style;
use crate::app::AppState;
use crate::dataset::results::Stamp;
use crate::dataset::{Entry, Variant};
use crate::metrics;
use crate::report::compare;
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use std::collections::BTreeSet;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border)
        .title(Span::styled(" Detail ", theme.header));
    let Some(index) = state.board.selected_entry() else {
        frame.render_widget(Paragraph::new("No commit selected.").block(block), area);
        return;
    };
    let lines = lines(&state.board.entries[index], state, theme);
    let paragraph = Paragraph::new(lines).wrap(Wrap { trim: false });
    let scroll = state.board.detail_scroll.min(last_top(&paragraph, area));
    frame.render_widget(paragraph.block(block).scroll((scroll, 0)), area);
}

/// The furthest the detail can scroll in `area`: its last line at the bottom.
fn last_top(paragraph: &Paragraph, area: Rect) -> u16 {
    let inner = (area.width.saturating_sub(2), area.height.saturating_sub(2));
    let total = u16::try_from(paragraph.line_count(inner.0)).unwrap_or(u16::MAX);
    total.saturating_sub(inner.1)
}

/// How far the selected commit's detail can scroll in a pane of `area`: the runtime tells
/// `update`, so `J` stops at the end.
pub fn scroll_limit(area: Rect, state: &AppState, theme: &Theme) -> u16 {
    let Some(index) = state.board.selected_entry() else { return 0 };
    let paragraph =
        Paragraph::new(lines(&state.board.entries[index], state, theme)).wrap(Wrap { trim: false });
    last_top(&paragraph, area)
}

fn field<'a>(name: &'a str, value: String, theme: &Theme) -> Line<'a> {
    Line::from(vec![Span::styled(format!("{name:<9}"), theme.dim), Span::styled(value, theme.text)])
}

fn section<'a>(title: &'a str, theme: &Theme) -> Line<'a> {
    Line::styled(format!("── {title} ──"), theme.header)
}

fn lines<'a>(entry: &'a Entry, state: &'a AppState, theme: &Theme) -> Vec<Line<'a>> {
    let c = &entry.commit;
    let or_dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "—".into());
    let mut out = vec![
        Line::from(vec![
            Span::styled(format!("{}  ", c.short), theme.accent),
            Span::styled(c.subject.as_str(), theme.text),
        ]),
        field("full", c.full.clone(), theme),
        field("parent", or_dash(&c.parent), theme),
        field("PR", or_dash(&c.pr_url), theme),
        field("date", format!("{}   item {}", or_dash(&c.date), or_dash(&c.item_id)), theme),
        field("model", model_line(entry), theme),
        field("kind", format!("{}   GPU {}", c.kind().name(), or_dash(&c.gpu)), theme),
    ];
    if !c.vllm_versions.is_empty() {
        let v: Vec<String> = c.vllm_versions.iter().map(|(k, v)| format!("{} {v}", k.letter())).collect();
        out.push(field("vLLM", v.join("   "), theme));
    }
    if let Some(Some(patches)) = state.board.patch_lines.get(&c.short) {
        out.push(field("patches", patches.clone(), theme));
    }
    out.extend(command_lines(entry, theme));
    out.extend(image_lines(entry, state, theme));
    out.push(section("Variants", theme));
    for v in Variant::ALL {
        out.extend(variant_lines(entry, v, entry.hint.as_ref().map(|h| h.category.as_str()), theme));
    }
    out.extend(overridden_lines(entry, theme));
    out.extend(evidence_lines(entry, theme));
    out.extend(metric_lines(entry, theme));
    out.extend(triage_lines(entry, state, theme));
    out.extend(upstream_lines(entry, theme));
    out
}

fn model_line(entry: &Entry) -> String {
    let c = &entry.commit;
    let model = c.model.clone().unwrap_or_else(|| "—".into());
    match &c.model_mapping {
        Some(m) if Some(m) != c.model.as_ref() => format!("{model}   (mapping says {m})"),
        _ => model,
    }
}

fn command_lines<'a>(entry: &Entry, theme: &Theme) -> Vec<Line<'a>> {
    let cmd = &entry.commit.perf_command;
    let mut out = vec![field(
        "command",
        cmd.dataset.clone().unwrap_or_else(|| "— (none in the dataset)".into()),
        theme,
    )];
    out[0].spans.push(Span::styled("  [dataset]", theme.dim));
    if let Some(executed) = &cmd.executed {
        out.push(Line::from(vec![
            Span::styled(format!("{:<9}", ""), theme.dim),
            Span::styled(executed.clone(), theme.warn),
            Span::styled("  [executed upstream; differs — re-runs use this]", theme.dim),
        ]));
    }
    out
}

/// The image each variant's next run uses: its fixed image (and the fixes that made it), else the
/// commit's override, else the template's.
fn image_lines<'a>(entry: &Entry, state: &AppState, theme: &Theme) -> Vec<Line<'a>> {
    let (c, book) = (&entry.commit, &state.board.book);
    let evidence = |e: &Option<String>| e.as_deref().map(|x| format!("  [{x}]")).unwrap_or_default();
    let planned = |v: Variant| match state.session.images.image_for(c, v) {
        None => "— (no parent)".to_string(),
        Some(image) if v == Variant::Human && c.images.human_override.is_some() => {
            format!("{image}  [override]{}", evidence(&c.images.human_evidence))
        }
        Some(image) if v == Variant::Human => format!("{image}{}", evidence(&c.images.human_evidence)),
        Some(image) => format!("{image}{}", evidence(&c.images.baseline_evidence)),
    };
    let line = |v: Variant| match book.fixed_image(&c.short, v.name()) {
        Some(fixed) => format!("{fixed}  [fixed: {}]", book.fixes(&c.short, v.name()).join(", ")),
        None if v == Variant::Agent => "baseline image + the agent patch".to_string(),
        None => planned(v),
    };
    [Variant::Human, Variant::Baseline, Variant::Agent].map(|v| field(v.name(), line(v), theme)).into()
}

fn variant_lines<'a>(entry: &Entry, v: Variant, hint: Option<&str>, theme: &Theme) -> Vec<Line<'a>> {
    let state = entry.variant(v);
    let o = &state.outcome;
    let mut out = vec![Line::from(vec![
        Span::styled(format!("{} {:<9}", v.letter(), v.name()), theme.accent),
        Span::styled(format!("{} {:<8}", o.status.glyph(), o.status.word()), status_style(o.status, theme)),
        Span::styled(provenance(state.agent.as_deref(), state.at, o.source.as_deref()), theme.dim),
    ])];
    if let Some(from) = o.metrics_from {
        out.push(Line::styled(format!("    numbers from {}", from.describe()), theme.dim));
    }
    if let Some(err) = &o.error {
        out.push(Line::from(vec![
            Span::styled("    error  ", theme.dim),
            Span::styled(err.clone(), theme.fail),
        ]));
    }
    match (&state.verdict, o.status.is_failure()) {
        (Some(verdict), _) => {
            let place = verdict.field.as_deref().map(|f| format!("{f} ")).unwrap_or_default();
            let (category, disposition) = (&verdict.category, verdict.disposition.name());
            let line = if verdict.line > 0 { format!("line {}: ", verdict.line) } else { String::new() };
            let head = format!("    {category} ({disposition}) {place}{line}");
            out.push(Line::from(vec![
                Span::styled(head, theme.fixable),
                Span::styled(verdict.evidence.clone(), theme.text),
            ]));
        }
        (None, true) => {
            let why = hint.map_or("no recorded error text to classify".to_string(), |h| {
                format!("no text of its own; upstream notes say {h}")
            });
            out.push(Line::styled(format!("    {why}"), theme.dim));
        }
        _ => {}
    }
    out.extend(state.warnings.iter().map(|w| warning_line(w, theme)));
    out
}

/// A line a rule matched in a variant that succeeded and measured: dim, never its category.
fn warning_line<'a>(w: &crate::classify::Warning, theme: &Theme) -> Line<'a> {
    let place = w.field.as_deref().map(|f| format!("{f} ")).unwrap_or_default();
    Line::styled(format!("    warning {} {place}line {}: {}", w.rule, w.line, w.text), theme.dim)
}

/// `agent · time · source`, each where known.
fn provenance(agent: Option<&str>, at: Option<Stamp>, source: Option<&str>) -> String {
    let at = at.map(|t| t.to_string());
    [agent, at.as_deref(), source].into_iter().flatten().collect::<Vec<_>>().join(" · ")
}

/// Older records that a newer one replaced: where they came from, and what they said.
fn overridden_lines<'a>(entry: &Entry, theme: &Theme) -> Vec<Line<'a>> {
    if entry.overridden.is_empty() {
        return Vec::new();
    }
    let mut out = vec![section("Overridden by newer records", theme)];
    for o in &entry.overridden {
        let words = format!("{} {}", o.status.glyph(), o.status.word());
        let line = format!(
            "{} {words:<10}{}",
            o.variant.letter(),
            provenance(o.agent.as_deref(), o.at, o.source.as_deref())
        );
        out.push(Line::styled(line, theme.dim));
    }
    out
}

/// The deciding failure's evidence with its surrounding lines, and what to do about it.
fn evidence_lines<'a>(entry: &'a Entry, theme: &Theme) -> Vec<Line<'a>> {
    let Some(v) = entry.verdict() else { return Vec::new() };
    let mut out = vec![section("Evidence", theme)];
    out.push(Line::from(vec![
        Span::styled(format!("{} ({}): ", v.category, v.disposition.name()), theme.fixable),
        Span::styled(v.explain.as_str(), theme.text),
    ]));
    let fixes = if v.fixes.is_empty() { "none known".to_string() } else { v.fixes.join(", ") };
    out.push(field("fixes", fixes, theme));
    let first = v.line.saturating_sub(crate::classify::CONTEXT_LINES).max(1);
    for (i, line) in v.context.lines().enumerate() {
        let number = first + i;
        let style = if number == v.line { theme.fail } else { theme.dim };
        out.push(Line::from(vec![
            Span::styled(format!("{number:>5} "), theme.dim),
            Span::styled(line, style),
        ]));
    }
    out
}

fn metric_lines<'a>(entry: &Entry, theme: &Theme) -> Vec<Line<'a>> {
    let names: BTreeSet<&String> = entry.variants.iter().flat_map(|v| v.outcome.metrics.keys()).collect();
    if names.is_empty() {
        return vec![Line::styled("no metrics recorded", theme.dim)];
    }
    let mut out = vec![section("Metrics (B / H / A)", theme)];
    for name in names {
        let value = |v: Variant| {
            entry
                .variant(v)
                .outcome
                .metrics
                .get(name)
                .map_or("—".to_string(), |x| metrics::format_value(name, *x))
        };
        let label = metrics::definition(name).map_or(name.as_str(), |d| d.label);
        out.push(Line::from(vec![
            Span::styled(format!("{label:<24}"), theme.dim),
            Span::styled(
                format!(
                    "{:>14} {:>14} {:>14}",
                    value(Variant::Baseline),
                    value(Variant::Human),
                    value(Variant::Agent)
                ),
                theme.text,
            ),
        ]));
    }
    if let Some(cmp) = compare(entry) {
        out.extend(super::three_way::lines(entry, &cmp, theme));
        out.extend(super::strip::lines(entry, cmp.metric, theme));
    }
    out
}

fn triage_lines<'a>(entry: &Entry, state: &AppState, theme: &Theme) -> Vec<Line<'a>> {
    let short = &entry.commit.short;
    let mut out = vec![section("Triage", theme)];
    let mark = match state.board.book.mark(short) {
        Some(crate::triage::Mark::Unfixable { reason }) => format!("UNFIXABLE — {reason}"),
        Some(crate::triage::Mark::Skip) => "skip".into(),
        None => "none".into(),
    };
    out.push(field("mark", mark, theme));
    for h in state.board.book.history(short) {
        out.push(Line::from(vec![
            Span::styled(format!("  {}  ", h.at), theme.dim),
            Span::raw(h.change.describe()),
        ]));
    }
    out
}

fn upstream_lines<'a>(entry: &Entry, theme: &Theme) -> Vec<Line<'a>> {
    let u = &entry.commit.upstream;
    let mut out = vec![section("Upstream record", theme)];
    if let Some(s) = &u.modal_status {
        out.push(field("modal", format!("{s}: {}", u.modal_error.clone().unwrap_or_default()), theme));
    }
    if let Some(doc) = &u.category_doc {
        out.push(field("report", doc.clone(), theme));
    }
    if let Some(src) = &u.metrics_source {
        out.push(field("metrics", src.clone(), theme));
    }
    for note in u.notes.iter().chain(&entry.notes) {
        out.push(field("note", note.clone(), theme));
    }
    out
}
