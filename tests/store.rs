//! The triage store on a real filesystem: atomic saves, interrupted writes, corrupt files, locking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use perftriage::triage::{Change, Mark, StoreError, TriageBook, TriageStore};

fn book_with(reason: &str) -> TriageBook {
    let mut book = TriageBook::new();
    book.apply("7c01f706", Change::Unfixable { reason: reason.into() }, "2026-11-22T01:00:00Z".into())
        .unwrap();
    book
}

/// Open again after a drop. A child another test is spawning can hold the old lock for the
/// instant between its fork and exec, so wait a little, as headless writers do.
fn reopen(dir: &std::path::Path) -> Result<TriageStore, StoreError> {
    TriageStore::open_waiting(dir, std::time::Duration::from_secs(2))
}

#[test]
fn marks_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = TriageStore::open(dir.path()).unwrap();
        store.save(&book_with("RoPE")).unwrap();
    }
    let store = reopen(dir.path()).unwrap();
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
    assert!(reopen(dir.path()).is_ok(), "the lock goes with the first instance");
}

#[test]
fn a_file_that_is_not_utf8_is_moved_aside_byte_for_byte_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let original = b"{\"schema_version\": 1, \"commits\": {\xff\xfe}}".to_vec();
    std::fs::write(dir.path().join("triage.json"), &original).unwrap();
    let store = TriageStore::open(dir.path()).unwrap();
    let (_, report) = store.load("20261122T010000Z");
    assert!(
        report.messages[0].contains("not UTF-8") && report.messages[0].contains("moved aside"),
        "{report:?}"
    );
    store.save(&book_with("new")).unwrap();
    let aside = dir.path().join("triage.json.corrupt-20261122T010000Z");
    assert_eq!(std::fs::read(aside).unwrap(), original, "the history is kept as it was");
}

#[test]
fn an_unreadable_triage_path_is_moved_aside_too() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("triage.json")).unwrap();
    std::fs::write(dir.path().join("triage.json/keep"), "x").unwrap();
    let store = TriageStore::open(dir.path()).unwrap();
    let (_, report) = store.load("t1");
    assert!(report.messages[0].contains("unreadable"), "{report:?}");
    assert!(dir.path().join("triage.json.corrupt-t1/keep").exists());
    store.save(&book_with("new")).unwrap();
}

/// A triage file that is a FIFO hung the load (a read waits for a writer): it is not opened, and
/// is moved aside as any unreadable one.
#[test]
fn a_triage_file_that_is_a_fifo_is_moved_aside_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("triage.json");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let store = TriageStore::open(dir.path()).unwrap();
    let (_, report) = store.load("t1");
    assert!(report.messages[0].contains("not a regular file"), "{report:?}");
    assert!(dir.path().join("triage.json.corrupt-t1").exists());
}

#[test]
fn two_corruptions_in_one_second_keep_both_copies() {
    let dir = tempfile::tempdir().unwrap();
    let store = TriageStore::open(dir.path()).unwrap();
    for body in ["first {", "second {"] {
        std::fs::write(dir.path().join("triage.json"), body).unwrap();
        store.load("20261122T010000Z");
    }
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    assert_eq!(read("triage.json.corrupt-20261122T010000Z"), "first {");
    assert_eq!(read("triage.json.corrupt-20261122T010000Z-2"), "second {");
}

#[test]
fn the_lock_is_the_workspace_folder_s_so_deleting_files_cannot_lift_it() {
    let dir = tempfile::tempdir().unwrap();
    let first = TriageStore::open(dir.path()).unwrap();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        std::fs::remove_file(entry.unwrap().path()).unwrap();
    }
    assert!(matches!(TriageStore::open(dir.path()), Err(StoreError::Locked { .. })));
    drop(first);
}

#[test]
fn twenty_parallel_marks_wait_their_turn_and_all_land() {
    let ws = tempfile::tempdir().unwrap();
    let children: Vec<_> = (0..20)
        .map(|i| {
            std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
                .arg("--workspace")
                .arg(ws.path())
                .args(["mark", "7c01f706", "--note", &format!("note {i}")])
                .env("XDG_CONFIG_HOME", ws.path().join("no-config"))
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let (book, _) = TriageStore::open_read_only(ws.path()).load("t");
    assert_eq!(book.commits["7c01f706"].len(), 20, "every acknowledged mark is kept");
}

#[test]
fn a_save_takes_in_what_the_file_has_that_the_book_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let store = TriageStore::open(dir.path()).unwrap();
    store.save(&book_with("written by an earlier holder")).unwrap();
    let mut stale = TriageBook::new();
    stale.apply("22dd9c27", perftriage::triage::Change::Skip, "2026-11-22T03:00:00Z".into()).unwrap();
    store.save(&stale).unwrap();
    let (book, _) = store.load("t");
    assert_eq!(
        book.mark("7c01f706"),
        Some(Mark::Unfixable { reason: "written by an earlier holder".into() })
    );
    assert_eq!(book.mark("22dd9c27"), Some(Mark::Skip));
}
