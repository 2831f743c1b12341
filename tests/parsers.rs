//! The metric parser over every fixture: it must yield exactly MANIFEST.tsv's
//! `reference_parser_metrics` (including 61b8cea3, which the upstream parser missed).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use perftriage::metrics::canonical_name;
use perftriage::metrics::parse::{ParsedKind, parse};
use std::collections::BTreeMap;

fn rows() -> Vec<(String, String)> {
    let text = std::fs::read_to_string("fixtures/results/isobench/MANIFEST.tsv").unwrap();
    let mut out = Vec::new();
    let mut reader = text.lines().skip(1).peekable();
    let mut record = String::new();
    while let Some(line) = reader.next() {
        record.push_str(line);
        let next_starts =
            reader.peek().is_none_or(|n| n.split('\t').next().is_some_and(|f| f.ends_with(".json")));
        if !next_starts {
            record.push('\n');
            continue;
        }
        let fields: Vec<&str> = record.split('\t').collect();
        out.push((fields[0].to_string(), fields[9].trim_matches('"').replace("\"\"", "\"")));
        record.clear();
    }
    out
}

#[test]
fn every_fixture_parses_as_the_manifest_says() {
    let rows = rows();
    assert_eq!(rows.len(), 24);
    let mut checked = 0;
    for (file, reference) in rows.into_iter().filter(|(_, r)| !r.is_empty()) {
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(format!("fixtures/results/isobench/{file}")).unwrap(),
        )
        .or_else(|_| {
            let text = std::fs::read_to_string(format!("fixtures/results/isobench/{file}")).unwrap();
            serde_json::Deserializer::from_str(&text).into_iter().next().unwrap()
        })
        .unwrap();
        let raw = json["raw_output"].as_str().unwrap_or("");
        let expected: BTreeMap<String, serde_json::Value> = serde_json::from_str(&reference).unwrap();
        let parsed = parse(raw);
        if expected.is_empty() {
            assert!(parsed.is_err(), "{file}: expected no metrics, got {parsed:?}");
        } else {
            let parsed = parsed.unwrap_or_else(|why| panic!("{file}: {why:?}"));
            let kind = match expected["_kind"].as_str().unwrap() {
                "serving" => ParsedKind::Serving,
                "latency" => ParsedKind::Latency,
                "throughput" => ParsedKind::Throughput,
                "prefix_caching" => ParsedKind::PrefixCaching,
                other => panic!("{other}"),
            };
            assert_eq!(parsed.kind, kind, "{file}");
            let want: BTreeMap<String, f64> = expected
                .iter()
                .filter(|(k, _)| *k != "_kind")
                .map(|(k, v)| (canonical_name(k).unwrap().to_string(), v.as_f64().unwrap()))
                .collect();
            let got: BTreeMap<String, f64> = parsed.metrics.into_iter().collect();
            assert_eq!(got, want, "{file}");
        }
        checked += 1;
    }
    assert_eq!(checked, 17, "rows with a reference");
}
