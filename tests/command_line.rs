//! The `:` command line (names completed with Tab, words after the name fill the action's
//! prompt) and the per-row action menu (`m`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::{chars, enter, press, screen_of, state};
use perftriage::app::{Action, AppState, ConfirmAction, Key, KeyCode, Mode, PromptPurpose};
use perftriage::triage::Mark;

fn command(s: &mut AppState, line: &str) {
    press(s, Key::ch(':'));
    chars(s, line);
    press(s, enter());
}

fn select(s: &mut AppState, short: &str) {
    command(s, &format!("filter {short}"));
}

#[test]
fn tab_completes_a_name_and_enter_runs_its_action() {
    let mut s = state();
    press(&mut s, Key::ch(':'));
    chars(&mut s, "runs");
    press(&mut s, Key::plain(KeyCode::Tab));
    let Mode::Prompt(prompt) = &s.mode else { panic!("{:?}", s.mode) };
    assert_eq!((prompt.purpose, prompt.text.as_str()), (PromptPurpose::Command, "runs_view"));
    press(&mut s, enter());
    assert_eq!(s.mode, Mode::Runs(0));
}

#[test]
fn words_after_the_name_fill_the_prompt_it_opens() {
    let mut s = state();
    command(&mut s, "filter cat:server_timeout");
    assert_eq!(s.mode, Mode::Normal);
    assert_eq!(s.board.query.text, "cat:server_timeout");
    let shown: Vec<&str> = s.board.visible.iter().map(|i| s.board.rows[*i].category.as_str()).collect();
    assert!(!shown.is_empty() && shown.iter().all(|c| *c == "server_timeout"), "{shown:?}");
    command(&mut s, "mark-unfixable image predates the fix");
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    let ConfirmAction::MarkUnfixable { reason, .. } = &confirm.action else { panic!() };
    assert_eq!(reason, "image predates the fix");
}

#[test]
fn an_unknown_or_ambiguous_name_says_so_and_does_nothing() {
    let mut s = state();
    command(&mut s, "frobnicate");
    assert_eq!(s.mode, Mode::Normal);
    let (_, text) = s.session.message.clone().unwrap();
    assert!(text.contains("`:frobnicate` is not an action"), "{text}");
    command(&mut s, "mark");
    let (_, text) = s.session.message.clone().unwrap();
    assert!(text.contains("could be mark_unfixable, mark_skip"), "{text}");
    command(&mut s, "  ");
    assert_eq!(
        (s.mode.clone(), s.session.message.clone()),
        (Mode::Normal, None),
        "an empty line just closes"
    );
}

#[test]
fn the_completions_show_above_the_footer_with_their_keys() {
    let mut s = state();
    press(&mut s, Key::ch(':'));
    chars(&mut s, "mark");
    for (w, h) in [(80, 24), (160, 48)] {
        let shown = screen_of(&s, w, h);
        assert!(shown.contains("u  mark_unfixable") && shown.contains("z  mark_skip"), "{shown}");
        insta::assert_snapshot!(format!("completions_{w}x{h}"), shown);
    }
}

#[test]
fn the_action_menu_offers_what_the_commit_allows_and_runs_the_choice() {
    let mut s = state();
    select(&mut s, "7c01f706");
    press(&mut s, Key::ch('m'));
    let Mode::Actions(menu) = &s.mode else { panic!("{:?}", s.mode) };
    assert_eq!(menu.short, "7c01f706");
    assert!(menu.items.contains(&Action::FixMenu) && !menu.items.contains(&Action::CancelRun));
    for (w, h) in [(80, 24), (160, 48)] {
        insta::assert_snapshot!(format!("action_menu_{w}x{h}"), screen_of(&s, w, h));
    }
    let skip = menu.items.iter().position(|a| *a == Action::MarkSkip).unwrap();
    for _ in 0..skip {
        press(&mut s, Key::ch('j'));
    }
    press(&mut s, enter());
    assert_eq!(s.board.book.mark("7c01f706"), Some(Mark::Skip));
    press(&mut s, Key::ch('m'));
    let Mode::Actions(menu) = &s.mode else { panic!("{:?}", s.mode) };
    assert!(menu.items.contains(&Action::ClearMark) && !menu.items.contains(&Action::MarkSkip));
    press(&mut s, Key::plain(KeyCode::Esc));
    assert_eq!(s.mode, Mode::Normal);
}
