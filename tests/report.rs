//! Report counts against a hand-counted dataset (fixtures/dataset/handcount.jsonl), and
//! `status --json` agreeing with the board on the embedded data.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use perftriage::classify::Classifier;
use perftriage::dataset::{self, ImageTemplates};
use perftriage::report::{self, Outcomes, ReportFormat};
use perftriage::triage::{Change, TriageBook};
use std::collections::BTreeMap;
use std::path::Path;

fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn hand_counted() -> (Vec<dataset::Entry>, TriageBook) {
    let commits = dataset::load_jsonl(Path::new("fixtures/dataset/handcount.jsonl")).unwrap().commits;
    let (entries, _) = dataset::join(commits, Default::default(), &Classifier::embedded().unwrap());
    let mut book = TriageBook::new();
    book.apply("aaaa0004", Change::Unfixable { reason: "needs 2 GPUs".into() }, "t".into()).unwrap();
    book.apply("aaaa0005", Change::Skip, "t".into()).unwrap();
    (entries, book)
}

#[test]
fn report_counts_match_the_hand_count() {
    let (entries, book) = hand_counted();
    let r = report::build(&entries, &book);
    assert_eq!(r.commits, 7);
    assert_eq!(r.by_status, counts(&[("done", 4), ("failed", 2), ("skipped", 1)]));
    assert_eq!(r.by_category, counts(&[("aimv2", 1), ("timeout", 1), ("port_bug", 1)]));
    assert_eq!(r.by_kind, counts(&[("serving", 4), ("latency", 1), ("throughput", 1), ("none", 1)]));
    assert_eq!(r.by_gpu, counts(&[("H100:1", 4), ("H100:2", 1), ("H100:4", 1), ("unknown", 1)]));
    assert_eq!(r.by_variant["baseline"], counts(&[("ok", 4), ("fail", 2), ("skip", 1)]));
    assert_eq!(r.by_variant["human"], counts(&[("ok", 4), ("fail", 1), ("skip", 1), ("not run", 1)]));
    assert_eq!(r.by_variant["agent"], counts(&[("ok", 4), ("skip", 1), ("not run", 2)]));
    // 0001 tie (agent 1.1% slower), 0002 agent 6% faster, 0003 agent 7.8% slower, 0007 tie (+1.25%).
    assert_eq!(
        r.three_way_2pct,
        Outcomes { human_wins: 1, agent_wins: 1, similar: 2, ..Outcomes::default() }
    );
    assert_eq!(
        r.three_way_5pct,
        Outcomes { human_wins: 1, agent_wins: 1, similar: 2, ..Outcomes::default() }
    );
    assert_eq!(r.not_comparable, 3);
    assert_eq!(r.unfixable, vec![("aaaa0004".into(), "needs 2 GPUs".to_string())]);
    assert_eq!(r.skipped, vec!["aaaa0005".to_string()]);
}

#[test]
fn the_5pct_band_turns_a_small_win_into_a_tie() {
    let (mut entries, book) = hand_counted();
    let agent = &mut entries[1].variants[2].outcome.metrics;
    agent.insert("tpot_mean".into(), 9.7); // 3% better than human: a win at ±2%, a tie at ±5%
    let r = report::build(&entries, &book);
    assert_eq!(r.three_way_2pct.agent_wins, 1);
    assert_eq!(r.three_way_5pct.agent_wins, 0);
    assert_eq!(r.three_way_5pct.similar, 3);
}

#[test]
fn every_format_carries_the_same_numbers() {
    let (entries, book) = hand_counted();
    let r = report::build(&entries, &book);
    let md = report::render(&r, &[], ReportFormat::Md);
    assert!(md.contains("| failed | 2 |") && md.contains("| aaaa0004 | needs 2 GPUs |"), "{md}");
    assert!(md.contains("| ±2% | 1 | 1 | 2 |"));
    let csv = report::render(&r, &[], ReportFormat::Csv);
    assert!(csv.contains("status,failed,2\n") && csv.contains("three_way_5pct,similar,2\n"), "{csv}");
    let json: serde_json::Value = serde_json::from_str(&report::render(&r, &[], ReportFormat::Json)).unwrap();
    assert_eq!(json["by_category"]["aimv2"], 1);
    assert_eq!(json["schema_version"], 1);
}

#[test]
fn status_records_agree_with_the_board_rows() {
    let s = common::state();
    for (entry, row) in s.board.entries.iter().zip(&s.board.rows) {
        let rec = report::status_record(entry, &s.board.book, &ImageTemplates::default());
        assert_eq!(rec.schema_version, 1);
        assert_eq!(rec.status, row.status.name(), "{}", rec.short);
        assert_eq!(rec.category, row.category, "{}", rec.short);
        assert_eq!(rec.disposition, row.disposition.map(|d| d.name()), "{}", rec.short);
        let json = serde_json::to_value(&rec).unwrap();
        assert_eq!(json["variants"]["baseline"]["status"], row.cells[0].status.word());
    }
    let report = report::build(&s.board.entries, &s.board.book);
    assert_eq!(report.by_status.get("failed").copied().unwrap_or(0), s.board.view_counts[1]);
    assert_eq!(report.by_status.get("done").copied().unwrap_or(0), s.board.view_counts[4]);
}

#[test]
fn only_runs_that_measured_are_listed_as_measured_in_modified_environments() {
    let (mut entries, book) = hand_counted();
    let failed = entries
        .iter()
        .position(|e| e.variant(dataset::Variant::Baseline).outcome.status == dataset::RunStatus::Error)
        .unwrap();
    let measured = entries
        .iter()
        .position(|e| e.variant(dataset::Variant::Human).outcome.status == dataset::RunStatus::Success)
        .unwrap();
    entries[failed].variants[dataset::Variant::Baseline as usize].outcome.fixes = vec!["numpy2".into()];
    entries[measured].variants[dataset::Variant::Human as usize].outcome.fixes = vec!["aimv2".into()];
    let r = report::build(&entries, &book);
    let listed: Vec<(String, String)> =
        r.modified.iter().map(|(s, v, _)| (s.to_string(), v.clone())).collect();
    assert_eq!(
        listed,
        [(entries[measured].commit.short.to_string(), "human".to_string())],
        "the failed baseline is not there"
    );
}
