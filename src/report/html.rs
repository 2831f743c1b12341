//! `report --format html`: one self-contained page (no script, no file or font from elsewhere) —
//! the summary, each pair's forest plot as inline SVG, the 3-way table with verdicts at both bands,
//! the campaign's morning table, and every failure with its evidence line. All text from records
//! is escaped (hostile text stays text), cleaned of terminal escapes and redacted.

use super::compare::{Comparison, PAIRS, compare};
use super::forest::{forest, pair_label, verdict_words};
use super::markup::esc;
use super::{MorningRow, Report};
use crate::dataset::{Entry, Variant};
use crate::logs::{Redactor, display_text};
use crate::metrics::format_value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

const STYLE: &str = "body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;margin:1em 0}\
th,td{border:1px solid #999;padding:2px 6px;text-align:left;vertical-align:top}td.n{text-align:right}\
code{white-space:pre-wrap;word-break:break-all}figure{margin:1em 0}";

/// Text a record carries (evidence, reasons): terminal escapes dropped, secrets redacted, escaped.
fn shown(text: &str) -> String {
    esc(&Redactor::process().text(&display_text(text)))
}

pub fn render(r: &Report, entries: &[Entry]) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>perftriage report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>perftriage report</h1>\n"
    );
    summary(&mut out, r);
    plots(&mut out, entries);
    three_way(&mut out, entries);
    campaign(&mut out, r);
    failures(&mut out, entries);
    out.push_str("</body>\n</html>\n");
    out
}

fn counts_table(out: &mut String, title: &str, counts: &BTreeMap<String, usize>) {
    let _ = write!(
        out,
        "<table class=\"counts\"><caption>{}</caption>\n<tr><th>{}</th><th>commits</th></tr>\n",
        esc(title),
        esc(&title.to_lowercase())
    );
    let mut rows: Vec<_> = counts.iter().collect();
    rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (key, n) in rows {
        let _ = writeln!(out, "<tr><td>{}</td><td class=\"n\">{n}</td></tr>", shown(key));
    }
    out.push_str("</table>\n");
}

fn summary(out: &mut String, r: &Report) {
    let _ = writeln!(out, "<h2>Summary</h2>\n<p>{} commits.</p>", r.commits);
    counts_table(out, "Status", &r.by_status);
    counts_table(out, "Category", &r.by_category);
    out.push_str("<table class=\"outcomes\"><caption>Agent vs human (primary metric)</caption>\n<tr><th>band</th><th>human wins</th><th>agent wins</th><th>similar</th><th>undecided</th><th>no interval</th></tr>\n");
    for (band, o) in [("±2%", &r.three_way_2pct), ("±5%", &r.three_way_5pct)] {
        let cells = [o.human_wins, o.agent_wins, o.similar, o.undecided, o.no_interval];
        let cells: Vec<String> = cells.iter().map(|n| format!("<td class=\"n\">{n}</td>")).collect();
        let _ = writeln!(out, "<tr><td>{band}</td>{}</tr>", cells.concat());
    }
    let _ = writeln!(
        out,
        "</table>\n<p>{} commits have no comparable human and agent values.</p>",
        r.not_comparable
    );
}

/// Each pair's forest plot, and the commits it could not place with why.
fn plots(out: &mut String, entries: &[Entry]) {
    out.push_str("<h2>Verdict plots</h2>\n<p>Each commit's relative difference on its primary metric (better is right), its 95% interval where both sides repeated (a bar; a hollow dot is a single run), against the ±2% (dark) and ±5% (light) bands.</p>\n");
    for i in 0..PAIRS.len() {
        let rows = forest(entries, i);
        let caption =
            format!("{}: {} placed", pair_label(i), rows.iter().filter(|r| r.pct.is_some()).count());
        let _ = writeln!(
            out,
            "<figure>\n{}\n<figcaption>{}</figcaption>\n</figure>",
            super::svg::forest(&rows, &caption),
            esc(&caption)
        );
        let unplaced: Vec<String> = rows
            .iter()
            .filter(|r| r.pct.is_none())
            .map(|r| format!("<li>{}: {}</li>", esc(r.short.as_str()), shown(r.why.as_deref().unwrap_or(""))))
            .collect();
        if !unplaced.is_empty() {
            let _ = writeln!(
                out,
                "<details><summary>{} not placed</summary><ul>\n{}\n</ul></details>",
                unplaced.len(),
                unplaced.join("\n")
            );
        }
    }
}

/// Every commit with a comparison: the three values and each pair at both bands.
fn three_way(out: &mut String, entries: &[Entry]) {
    out.push_str("<h2>3-way</h2>\n<table class=\"three-way\">\n<tr><th>commit</th><th>metric</th><th>baseline</th><th>human</th><th>agent</th>");
    for i in 0..PAIRS.len() {
        let _ = write!(out, "<th>{}</th>", pair_label(i));
    }
    out.push_str("</tr>\n");
    for (entry, cmp) in entries.iter().filter_map(|e| Some((e, compare(e)?))) {
        let value = |v: Option<f64>| v.map_or("—".to_string(), |x| format_value(cmp.metric, x));
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>",
            esc(entry.commit.short.as_str()),
            esc(cmp.metric),
            esc(&value(cmp.baseline)),
            esc(&value(cmp.human)),
            esc(&value(cmp.agent))
        );
        let _ = writeln!(out, "{}</tr>", pair_cells(&cmp));
    }
    out.push_str("</table>\n");
}

fn pair_cells(cmp: &Comparison) -> String {
    let cell = |p: &super::Pair| match p.pct {
        Some(pct) => {
            let interval =
                p.interval.as_ref().map_or(String::new(), |i| format!(" [{:+.1}, {:+.1}]", i.low, i.high));
            format!("{pct:+.1}%{interval} {}", verdict_words([p.verdict_2pct, p.verdict_5pct]))
        }
        None if p.measured => "not comparable".to_string(),
        None => "n/a".to_string(),
    };
    cmp.pairs.iter().map(|p| format!("<td>{}</td>", esc(&cell(p)))).collect()
}

fn campaign(out: &mut String, r: &Report) {
    let Some((name, outcome)) = &r.campaign else { return };
    let _ = writeln!(out, "<h2>Campaign {}</h2>\n<ul>", shown(name));
    for line in outcome.lines() {
        let _ = writeln!(out, "<li>{}</li>", shown(&line));
    }
    out.push_str("</ul>\n");
    if r.campaign_cells.is_empty() {
        return;
    }
    out.push_str("<table class=\"morning\">\n<tr><th>commit</th><th>variant</th><th>state</th><th>image (fixes)</th><th>runs</th><th>time</th><th>result</th><th>why</th><th>next step</th></tr>\n");
    for row in &r.campaign_cells {
        morning_row(out, row);
    }
    out.push_str("</table>\n");
}

fn morning_row(out: &mut String, c: &MorningRow) {
    let cells = [
        c.short.to_string(),
        c.variant.name().to_string(),
        c.state.to_string(),
        c.image_cell(),
        c.runs.len().to_string(),
        super::duration(c.run_s),
        c.result.clone().unwrap_or_default(),
        c.why.clone().unwrap_or_default(),
        c.next.clone().unwrap_or_default(),
    ];
    let cells: Vec<String> = cells.iter().map(|t| format!("<td>{}</td>", shown(t))).collect();
    let _ = writeln!(out, "<tr>{}</tr>", cells.concat());
}

/// A failure's category and evidence line, as the board shows them: the classifier's, else
/// `unclassified` and the record's own error text.
fn failure_of(state: &crate::dataset::VariantState) -> (String, String) {
    match &state.verdict {
        Some(v) => (v.category.clone(), format!("line {}: {}", v.line, v.evidence)),
        None => ("unclassified".to_string(), state.outcome.error.clone().unwrap_or_default()),
    }
}

/// Every failed variant: its status, category and evidence line.
fn failures(out: &mut String, entries: &[Entry]) {
    out.push_str("<h2>Failures</h2>\n<table class=\"failures\">\n<tr><th>commit</th><th>variant</th><th>status</th><th>category</th><th>evidence</th></tr>\n");
    for entry in entries {
        for v in Variant::ALL {
            let state = entry.variant(v);
            if !state.outcome.status.is_failure() {
                continue;
            }
            let (category, evidence) = failure_of(state);
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
                esc(entry.commit.short.as_str()),
                v.name(),
                state.outcome.status.word(),
                shown(&category),
                shown(&evidence)
            );
        }
    }
    out.push_str("</table>\n");
}
