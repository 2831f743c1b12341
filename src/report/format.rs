//! Report output as Markdown, JSON, CSV or HTML (`html`).

use super::{Outcomes, Report};
use std::collections::BTreeMap;
use std::fmt::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Md,
    Json,
    Csv,
    /// One self-contained page with the verdict plots (inline SVG).
    Html,
}

/// The report in a format; the HTML page also draws each commit's pair from `entries`.
pub fn render(report: &Report, entries: &[crate::dataset::Entry], format: ReportFormat) -> String {
    match format {
        ReportFormat::Html => super::html::render(report, entries),
        ReportFormat::Json => serde_json::to_string_pretty(report).unwrap_or_default() + "\n",
        ReportFormat::Md => markdown(report),
        ReportFormat::Csv => csv(report),
    }
}

fn table(out: &mut String, title: &str, counts: &BTreeMap<String, usize>) {
    let _ = writeln!(out, "## {title}\n\n| {} | commits |\n|---|---:|", title.to_lowercase());
    let mut rows: Vec<_> = counts.iter().collect();
    rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (key, n) in rows {
        let _ = writeln!(out, "| {} | {n} |", cell(key));
    }
    out.push('\n');
}

fn markdown(r: &Report) -> String {
    let mut out = format!("# perftriage report\n\n{} commits.\n\n", r.commits);
    table(&mut out, "Status", &r.by_status);
    table(&mut out, "Category", &r.by_category);
    table(&mut out, "Kind", &r.by_kind);
    table(&mut out, "GPU", &r.by_gpu);
    out.push_str(
        "## Variants\n\n| variant | ok | fail | timeout | skip | not run |\n|---|---:|---:|---:|---:|---:|\n",
    );
    for (variant, counts) in &r.by_variant {
        let n = |w: &str| counts.get(w).copied().unwrap_or(0);
        let _ = writeln!(
            out,
            "| {variant} | {} | {} | {} | {} | {} |",
            n("ok"),
            n("fail"),
            n("timeout"),
            n("skip"),
            n("not run")
        );
    }
    out.push_str("\n## 3-way outcome (agent vs human, primary metric)\n\n| band | human wins | agent wins | similar | undecided | no interval |\n|---|---:|---:|---:|---:|---:|\n");
    for (band, o) in [("±2%", &r.three_way_2pct), ("±5%", &r.three_way_5pct)] {
        let _ = writeln!(out, "| {band} | {} |", counts(o));
    }
    let _ = writeln!(
        out,
        "\n{} commits have no human and agent values of one workload to compare.\n",
        r.not_comparable
    );
    comparability_table(&mut out, r);
    agent_table(&mut out, r);
    patch_table(&mut out, r);
    invalid_table(&mut out, r);
    campaign_section(&mut out, r);
    if !r.modified.is_empty() {
        let _ = writeln!(
            out,
            "## Measured in modified environments ({})\n\nThese numbers come from images changed by fixes; compare them with care.\n\n| commit | variant | fixes |\n|---|---|---|",
            r.modified.len()
        );
        for (short, variant, fixes) in &r.modified {
            let _ = writeln!(out, "| {short} | {variant} | {} |", cell(&fixes.join(", ")));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "## Unfixable ({})\n\n| commit | reason |\n|---|---|", r.unfixable.len());
    for (short, reason) in &r.unfixable {
        let _ = writeln!(out, "| {short} | {} |", cell(reason));
    }
    out
}

/// The 3-way outcome per agent, each with its own results in the agent slot.
/// Per pair: how many had both values, how many measured one workload, and why the rest did not.
fn comparability_table(out: &mut String, r: &Report) {
    out.push_str("## Comparable pairs (one workload)\n\n| pair | with values | comparable | via older records | not comparable | why not (part: pairs) |\n|---|---:|---:|---:|---:|---|\n");
    for (name, c) in &r.comparability {
        let why: Vec<String> = c.reasons.iter().map(|(part, n)| format!("{part}: {n}")).collect();
        let (all, ok, older, not) = (c.with_values, c.comparable, c.comparable_older, c.not_comparable);
        let _ = writeln!(out, "| {name} | {all} | {ok} | {older} | {not} | {} |", cell(&why.join(", ")));
    }
    out.push('\n');
}

fn agent_table(out: &mut String, r: &Report) {
    if r.by_agent.is_empty() {
        return;
    }
    out.push_str("## 3-way outcome per agent (±2%)\n\n| agent | commits | human wins | agent wins | similar | undecided | no interval | not comparable |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (name, a) in &r.by_agent {
        let (name, o) = (cell(name), counts(&a.three_way_2pct));
        let _ = writeln!(out, "| {name} | {} | {o} | {} |", a.commits, a.not_comparable);
    }
    out.push('\n');
}

fn csv(r: &Report) -> String {
    let mut out = String::from("table,key,value\n");
    let mut push = |table: &str, key: &str, value: String| {
        let _ = writeln!(out, "{table},{},{}", csv_quote(key), csv_quote(&value));
    };
    push("total", "commits", r.commits.to_string());
    for (table, counts) in
        [("status", &r.by_status), ("category", &r.by_category), ("kind", &r.by_kind), ("gpu", &r.by_gpu)]
    {
        for (k, v) in counts {
            push(table, k, v.to_string());
        }
    }
    for (variant, counts) in &r.by_variant {
        for (k, v) in counts {
            push(&format!("variant_{variant}"), k, v.to_string());
        }
    }
    for (band, o) in [("three_way_2pct", &r.three_way_2pct), ("three_way_5pct", &r.three_way_5pct)] {
        outcome_rows(band, o).into_iter().for_each(|(k, v)| push(band, k, v.to_string()));
    }
    push("three_way", "not_comparable", r.not_comparable.to_string());
    for (name, c) in &r.comparability {
        let table = format!("comparable_{name}");
        push(&table, "with_values", c.with_values.to_string());
        push(&table, "comparable", c.comparable.to_string());
        push(&table, "comparable_older", c.comparable_older.to_string());
        push(&table, "not_comparable", c.not_comparable.to_string());
        c.reasons.iter().for_each(|(part, n)| push(&table, &format!("because_{part}"), n.to_string()));
    }
    for (name, a) in &r.by_agent {
        let table = format!("agent_{name}");
        push(&table, "commits", a.commits.to_string());
        outcome_rows("", &a.three_way_2pct).into_iter().for_each(|(k, v)| push(&table, k, v.to_string()));
        push(&table, "not_comparable", a.not_comparable.to_string());
    }
    for (short, reason) in &r.unfixable {
        push("unfixable", short, reason.clone());
    }
    for (short, variant, fixes) in &r.modified {
        push("modified", &format!("{short}/{variant}"), fixes.join(" "));
    }
    patch_file_rows(r).into_iter().for_each(|(commit, files)| push("patch_files", &commit, files));
    for (short, variant, gate) in &r.invalid_measurements {
        push("invalid_measurement", &format!("{short}/{variant}"), gate.clone());
    }
    if let Some((name, outcome)) = &r.campaign {
        campaign_rows(outcome).into_iter().for_each(|(k, v)| push(&format!("campaign_{name}"), &k, v));
        campaign_cell_rows(r).into_iter().for_each(|(k, v)| push(&format!("campaign_{name}_cell"), &k, v));
    }
    out
}

/// Each patch's files as (commit, `human=N agent=N shared=N`).
fn patch_file_rows(r: &Report) -> Vec<(String, String)> {
    let n = |v: Option<usize>| v.map_or_else(|| "unknown".to_string(), |n| n.to_string());
    let files = |row: &super::PatchRow| {
        format!("human={} agent={} shared={}", n(row.human_files), n(row.agent_files), n(row.shared_files))
    };
    r.patches.iter().map(|row| (row.commit.to_string(), files(row))).collect()
}

/// Each campaign cell as (`short variant`, `state; next step`).
fn campaign_cell_rows(r: &Report) -> Vec<(String, String)> {
    let row = |c: &super::MorningRow| {
        let value = [c.state, c.next.as_deref().unwrap_or("")].join("; ");
        (format!("{} {}", c.short, c.variant.name()), value.trim_end_matches("; ").to_string())
    };
    r.campaign_cells.iter().map(row).collect()
}

/// The workspace's newest campaign's outcome, one line each.
fn campaign_section(out: &mut String, r: &Report) {
    let Some((name, outcome)) = &r.campaign else { return };
    let _ = writeln!(out, "## Campaign {}\n", cell(name));
    for line in outcome.lines() {
        let _ = writeln!(out, "- {}", cell(&line));
    }
    out.push('\n');
    if r.campaign_cells.is_empty() {
        return;
    }
    out.push_str("| commit | variant | state | image (fixes) | runs | time | result | next step |\n");
    out.push_str("|---|---|---|---|---:|---:|---|---|\n");
    for c in &r.campaign_cells {
        let state = c.why.as_ref().map_or(c.state.to_string(), |w| format!("{}: {w}", c.state));
        let (result, next) = (c.result.as_deref().unwrap_or("—"), c.next.as_deref().unwrap_or(""));
        let row = [c.short.as_str(), c.variant.name(), &state, &c.image_cell(), &c.runs.len().to_string()];
        let row: Vec<String> = row.iter().map(|t| cell(t)).collect();
        let (time, result, next) = (super::duration(c.run_s), cell(result), cell(next));
        let _ = writeln!(out, "| {} | {time} | {result} | {next} |", row.join(" | "));
    }
    out.push('\n');
}

/// A campaign's outcome as (key, value) rows.
fn campaign_rows(o: &super::CampaignOutcome) -> Vec<(String, String)> {
    let mut rows = vec![
        ("usable_before".to_string(), o.usable_before.map_or(String::new(), |n| n.to_string())),
        ("usable_now".into(), o.usable_now.to_string()),
        ("commits".into(), o.commits.to_string()),
    ];
    rows.extend(o.left.iter().map(|(c, n)| (format!("left_{c}"), n.to_string())));
    rows.extend(o.fixes.iter().map(|(r, n)| (format!("fixed_{r}"), n.to_string())));
    rows.push(("retries".into(), o.retries.to_string()));
    rows.push(("run_seconds".into(), o.run_s.to_string()));
    rows.push(("started".into(), o.started.clone()));
    rows.push(("ended".into(), o.ended.clone().unwrap_or_default()));
    rows.push(("wall_seconds".into(), o.wall_s.map_or(String::new(), |s| s.to_string())));
    rows
}

/// Files changed per commit by the human and the agent, and by both.
fn patch_table(out: &mut String, r: &Report) {
    if r.patches.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Patches ({})\n", r.patches.len());
    out.push_str("| commit | human files | agent files | both |\n|---|---:|---:|---:|\n");
    let n = |v: Option<usize>| v.map_or_else(|| "?".to_string(), |n| n.to_string());
    for row in &r.patches {
        let (human, agent, both) = (n(row.human_files), n(row.agent_files), n(row.shared_files));
        let _ = writeln!(out, "| {} | {human} | {agent} | {both} |", row.commit);
    }
    out.push('\n');
}

fn invalid_table(out: &mut String, r: &Report) {
    if r.invalid_measurements.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Invalid measurements ({})\n", r.invalid_measurements.len());
    out.push_str("Results that say success but failed a validity gate: in no comparison.\n\n| commit | variant | gate |\n|---|---|---|\n");
    for (commit, variant, gate) in &r.invalid_measurements {
        let _ = writeln!(out, "| {commit} | {variant} | {gate} |");
    }
    out.push('\n');
}

fn outcome_rows(_band: &str, o: &Outcomes) -> [(&'static str, usize); 5] {
    [
        ("human_wins", o.human_wins),
        ("agent_wins", o.agent_wins),
        ("similar", o.similar),
        ("undecided", o.undecided),
        ("no_interval", o.no_interval),
    ]
}

/// A band's counts as the markdown tables' cells, in `outcome_rows` order.
fn counts(o: &Outcomes) -> String {
    outcome_rows("", o).map(|(_, n)| n.to_string()).join(" | ")
}

/// A CSV cell: quoted where it must be, and one a spreadsheet would take for a formula (`=`,
/// `@`, `+`, `-`, a tab or carriage return first) kept as text with a leading `'`.
pub(super) fn csv_quote(field: &str) -> String {
    let field = if field.starts_with(['=', '@', '+', '-', '\t', '\r']) {
        std::borrow::Cow::Owned(format!("'{field}"))
    } else {
        std::borrow::Cow::Borrowed(field)
    };
    if field.contains([',', '"', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.into_owned()
    }
}

/// A markdown table cell: a newline or a pipe in the text cannot end the row or the cell (a reason
/// with a newline would otherwise inject a heading into the report).
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\").replace('|', "\\|").replace(['\r', '\n'], " ")
}
