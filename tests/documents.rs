//! The board's documents at the state level: `d` and `t` ask for the right document laid out for
//! the terminal's width, take the board's place and toggle; Tab and S-Tab go between a
//! document's files (and stay the board's view keys in a log without files); a resize lays a
//! diff out again; the detail pane asks once for its `patches:` line and shows it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{decoded, enter, press, screen_of, state};
use perftriage::agents::document::{self, Layout};
use perftriage::agents::{Patch, diff};
use perftriage::app::{AppState, Document, Effect, Key, KeyCode, LogMsg, Msg, update};
use perftriage::dataset::Variant;

fn patch(text: &str) -> Patch {
    Patch {
        variant: Variant::Agent,
        source: "p.diff".into(),
        text: text.into(),
        stats: diff::parse(text).unwrap(),
    }
}

/// Three files of ten lines each: enough for Tab to put each head on top of a 24-row pane.
fn three_files() -> String {
    let file = |name: &str| {
        let body: String = (0..10).map(|i| format!("+line {i}\n")).collect();
        format!("--- a/{name}\n+++ b/{name}\n@@ -0,0 +1,10 @@\n{body}")
    };
    [file("a.py"), file("b.py"), file("c.py")].concat()
}

/// `d` at this size: the effect it asks for, and the state with the document's text fed in.
fn open_diff(w: u16, h: u16) -> (AppState, Vec<Effect>) {
    let mut s = state();
    update(&mut s, Msg::Resize(w, h));
    let effects = press(&mut s, Key::ch('d'));
    let Some(Effect::OpenDocument { key, .. }) = effects.first() else { panic!("{effects:?}") };
    let (human, agent) = (patch(&three_files()), patch(&three_files()));
    let text = document::patches(Ok(&human), Ok(&agent), Layout::Stacked);
    let msg = LogMsg::Lines { key: key.clone(), lines: decoded(&text), skipped: 0, finished: true };
    update(&mut s, Msg::Log(msg));
    (s, effects)
}

fn document_of(effects: &[Effect]) -> Document {
    match effects.first() {
        Some(Effect::OpenDocument { document, .. }) => document.clone(),
        other => panic!("{other:?}"),
    }
}

fn top(s: &AppState) -> usize {
    s.logs.recorded.as_ref().unwrap().top
}

#[test]
fn d_asks_for_the_diff_stacked_below_140_columns_and_side_by_side_from_there() {
    let (_, narrow) = open_diff(139, 40);
    assert_eq!(document_of(&narrow), Document::Patches(Layout::Stacked));
    let (_, wide) = open_diff(160, 48);
    assert_eq!(document_of(&wide), Document::Patches(Layout::SideBySide(73)), "(160 − 2 − 8 − 3) / 2");
}

#[test]
fn the_diff_takes_the_boards_place_and_d_again_gives_it_back() {
    let (mut s, _) = open_diff(160, 48);
    let screen = screen_of(&s, 160, 48);
    assert!(screen.contains("human and agent patches") && !screen.contains("All 96/96"), "{screen}");
    assert!(press(&mut s, Key::ch('d')).is_empty());
    assert!(s.logs.recorded.is_none());
    assert!(screen_of(&s, 160, 48).contains("All 96/96"));
}

#[test]
fn tab_and_shift_tab_go_from_file_to_file_and_stop_at_the_ends() {
    let (mut s, _) = open_diff(100, 24);
    let heads = s.logs.recorded.as_ref().unwrap().sections.clone();
    assert_eq!(heads.len(), 3, "a.py, b.py, c.py");
    press(&mut s, Key::plain(KeyCode::Tab));
    assert_eq!(top(&s), heads[0]);
    press(&mut s, Key::plain(KeyCode::Tab));
    assert_eq!(top(&s), heads[1]);
    press(&mut s, Key::plain(KeyCode::BackTab));
    assert_eq!(top(&s), heads[0]);
    press(&mut s, Key::plain(KeyCode::BackTab));
    assert_eq!(top(&s), heads[0], "nothing before the first file: it stays");
}

#[test]
fn tab_in_a_log_without_files_still_switches_the_boards_view() {
    let mut s = state();
    press(&mut s, Key::ch('L'));
    let view = s.board.view;
    press(&mut s, Key::plain(KeyCode::Tab));
    assert_ne!(s.board.view, view, "Tab is the board's next view there, as before");
}

#[test]
fn a_resize_across_140_columns_lays_the_diff_out_again_at_the_same_line() {
    let (mut s, _) = open_diff(100, 24);
    press(&mut s, Key::plain(KeyCode::Tab));
    let at = top(&s);
    let effects = update(&mut s, Msg::Resize(150, 40));
    assert_eq!(document_of(&effects), Document::Patches(Layout::SideBySide(68)));
    assert_eq!(top(&s), at);
    assert!(update(&mut s, Msg::Resize(150, 40)).is_empty(), "the same width: nothing to do");
}

#[test]
fn the_detail_pane_asks_once_for_its_patches_line_and_shows_it() {
    let mut s = state();
    update(&mut s, Msg::Resize(160, 48));
    assert!(!update(&mut s, Msg::Tick(common::NOW.into())).iter().any(|e| matches!(e, Effect::PatchLine(_))));
    press(&mut s, enter());
    let short = s.board.entries[s.board.selected_entry().unwrap()].commit.short.clone();
    let asked = update(&mut s, Msg::Tick(common::NOW.into()));
    assert!(asked.contains(&Effect::PatchLine(short.clone())), "{asked:?}");
    assert!(!update(&mut s, Msg::Tick(common::NOW.into())).contains(&Effect::PatchLine(short.clone())));
    let line = "human +3 −2 in 2 files · agent +2 −1 in 2 files (1 shared)".to_string();
    update(&mut s, Msg::PatchLine { short, line });
    let screen = screen_of(&s, 160, 48);
    assert!(
        screen.contains("patches  human +3 −2 in 2 files · agent +2 −1 in 2 files (1 shared)"),
        "{screen}"
    );
}
