//! The triage store on a real filesystem: atomic saves, interrupted writes, corrupt files, locking.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use perftriage::triage::{Change, Mark, StoreError, TriageBook, TriageStore};

fn book_with(reason: &str) -> TriageBook {
    let mut book = TriageBook::new();
    book.apply("7c01f706", Change::Unfixable { reason: reason.into() }, "2026-11-22T01:00:00Z".into())
        .unwrap();
    book
}

#[test]
fn marks_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = TriageStore::open(dir.path()).unwrap();
        store.save(&book_with("RoPE")).unwrap();
    }
    let store = TriageStore::open(dir.path()).unwrap();
    let (book, report) = store.load("t");
    assert!(report.messages.is_empty());
    assert_eq!(book.mark("7c01f706"), Some(Mark::Unfixable { reason: "RoPE".into() }));
}

#[test]
fn an_interrupted_write_leaves_the_previous_state_readable() {
    let dir = tempfile::tempdir().unwrap();
    let store = TriageStore::open(dir.path()).unwrap();
    store.save(&book_with("first")).unwrap();
    // A crash mid-write leaves a torn temp file behind; the real file must be untouched.
    std::fs::write(dir.path().join("triage.json.tmp"), b"{\"schema_version\": 1, \"commits\": {\"7c01")
        .unwrap();
    let (book, report) = store.load("t");
    assert!(report.messages.is_empty());
    assert_eq!(book.mark("7c01f706"), Some(Mark::Unfixable { reason: "first".into() }));
    // A write that fails part-way (here: the temp path cannot be created) reports and changes nothing.
    std::fs::remove_file(dir.path().join("triage.json.tmp")).unwrap();
    std::fs::create_dir(dir.path().join("triage.json.tmp")).unwrap();
    let err = store.save(&book_with("second")).unwrap_err();
    assert!(matches!(err, StoreError::Write { .. }), "{err}");
    assert!(err.to_string().contains("previous file is untouched"));
    let (book, _) = store.load("t");
    assert_eq!(book.mark("7c01f706"), Some(Mark::Unfixable { reason: "first".into() }));
}

#[test]
fn a_corrupt_file_is_moved_aside_kept_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("triage.json"), b"{ not json").unwrap();
    let store = TriageStore::open(dir.path()).unwrap();
    let (book, report) = store.load("20261122T010000Z");
    assert_eq!(book, TriageBook::new());
    assert_eq!(report.messages.len(), 1);
    assert!(
        report.messages[0].contains("corrupt") && report.messages[0].contains("moved aside"),
        "{:?}",
        report.messages
    );
    let aside = dir.path().join("triage.json.corrupt-20261122T010000Z");
    assert_eq!(std::fs::read(aside).unwrap(), b"{ not json");
    store.save(&book_with("after")).unwrap();
    assert_eq!(store.load("t").0.mark("7c01f706"), Some(Mark::Unfixable { reason: "after".into() }));
}

#[test]
fn a_future_schema_is_not_silently_dropped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("triage.json"), br#"{"schema_version": 9, "commits": {}}"#).unwrap();
    let (_, report) = TriageStore::open(dir.path()).unwrap().load("x");
    assert!(report.messages[0].contains("schema_version 9"));
    assert!(dir.path().join("triage.json.corrupt-x").exists());
}

#[test]
fn a_second_instance_is_locked_out_or_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let first = TriageStore::open(dir.path()).unwrap();
    first.save(&book_with("mine")).unwrap();
    let second = TriageStore::open(dir.path()).unwrap_err();
    assert!(matches!(second, StoreError::Locked { .. }));
    assert!(second.to_string().contains("in use by another perftriage"));
    let viewer = TriageStore::open_read_only(dir.path());
    assert_eq!(viewer.load("t").0.mark("7c01f706"), Some(Mark::Unfixable { reason: "mine".into() }));
    assert!(matches!(viewer.save(&TriageBook::new()), Err(StoreError::ReadOnly)));
    drop(first);
    assert!(TriageStore::open(dir.path()).is_ok(), "the lock goes with the first instance");
}
