//! What the board loads from the digest cache is what reading the files gives, the lines around
//! each verdict's evidence included (its detail pane shows them); a load for a headless command
//! keeps none of a result file's, from the cache or not. Over copies of the real verdict fixtures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use perftriage::classify::Classifier;
use perftriage::dataset::digests::CacheFile;
use perftriage::dataset::{self, Entry, Progress, Sources};
use std::path::Path;
use std::time::Duration;

fn load(dir: &Path, cache: Option<CacheFile>, contexts: bool) -> (Vec<Entry>, Progress) {
    let classifier = Classifier::embedded().unwrap();
    let commits = dataset::load_embedded().unwrap().commits;
    let mut heard = Progress::default();
    let sources = Sources { dirs: &[dir.to_path_buf()], cache, contexts, found: None };
    let (entries, _) = dataset::load_results(|| commits, sources, &classifier, &mut |p| heard = p);
    (entries, heard)
}

/// Verdicts of records read from result files that keep context lines.
fn contexts(entries: &[Entry]) -> usize {
    let loaded = entries.iter().flat_map(|e| e.variants.iter().filter(|v| v.loaded));
    let verdicts = loaded.filter_map(|v| v.verdict.as_deref());
    verdicts.filter(|v| v.context.lines().next().is_some()).count()
}

#[test]
fn the_board_gets_contexts_from_the_cache_and_a_headless_load_keeps_none() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    common::copy_tree(Path::new("fixtures/results/verdicts"), &results);
    // Files are cached however young they are.
    let cache = Some(CacheFile { path: dir.path().join("cache/digests.jsonl"), settle: Duration::ZERO });
    let (read, _) = load(&results, None, true);
    assert!(contexts(&read) >= 5, "the fixtures' failures have context lines");
    let (first, heard) = load(&results, cache.clone(), true);
    assert_eq!((first == read, heard.cached), (true, 0));
    let (board, heard) = load(&results, cache.clone(), true);
    assert!(heard.cached > 0 && heard.cached == heard.total, "{heard:?}");
    assert!(board == read, "from the cache, the board gets what reading the files gives");
    for cache in [None, cache] {
        let (headless, _) = load(&results, cache, false);
        assert_eq!(contexts(&headless), 0);
    }
}
