//! Focus and per-mode keys: the log pane takes its own keys, board actions still work from it,
//! focus cycles with a key, and remaps that clash are named.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::{chars, enter, press, state};
use perftriage::app::{Action, AppState, Effect, Focus, Key, KeyMap, KeyMode, Mode, PromptPurpose};
use perftriage::config::KeyEntry;

fn with_log_open() -> AppState {
    let mut s = state();
    press(&mut s, Key::ch('/'));
    chars(&mut s, "7c01f706");
    press(&mut s, enter());
    let effects = press(&mut s, Key::ch('L'));
    assert!(matches!(effects.as_slice(), [Effect::OpenLog { .. }]));
    s
}

#[test]
fn an_opened_log_takes_the_focus_and_a_key_moves_it_back_and_forth() {
    let mut s = with_log_open();
    assert_eq!((s.focus, s.key_mode()), (Focus::Log, KeyMode::Log));
    press(&mut s, Key::ctrl('w'));
    assert_eq!((s.focus, s.key_mode()), (Focus::Board, KeyMode::Board));
    press(&mut s, Key::ch('j'));
    assert!(s.logs.recorded.as_ref().unwrap().follow, "j moved the board, not the log");
    press(&mut s, Key::ctrl('w'));
    press(&mut s, Key::ch('k'));
    assert!(!s.logs.recorded.as_ref().unwrap().follow, "with the focus back, k scrolls the log");
}

#[test]
fn board_actions_work_from_the_log_pane() {
    let mut s = with_log_open();
    assert!(
        matches!(press(&mut s, Key::ch('f')).as_slice(), [Effect::ProbeFixes { .. }]),
        "f is the fix menu"
    );
    assert!(matches!(s.mode, Mode::Fix(_)));
    press(&mut s, Key::ch('q'));
    press(&mut s, Key::ch('r'));
    assert!(matches!(s.mode, Mode::Choose(_)), "r opens the run chooser: {:?}", s.mode);
    press(&mut s, Key::ch('q'));
    press(&mut s, Key::ch('u'));
    assert!(matches!(&s.mode, Mode::Prompt(p) if p.purpose == PromptPurpose::UnfixableReason));
    press(&mut s, Key::plain(perftriage::app::KeyCode::Esc));
    press(&mut s, Key::ch('x'));
    assert!(s.session.message.as_ref().unwrap().1.contains("has no live run"), "x is cancel, not expand");
    assert_eq!(s.focus, Focus::Log);
}

#[test]
fn the_footer_shows_the_keys_of_the_mode_in_front() {
    let s = with_log_open();
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let hints = |mode| {
        let line = perftriage::ui::hint_line(&s.session.keymap, mode, &theme);
        line.spans.iter().map(|sp| sp.content.to_string()).collect::<String>()
    };
    let log = hints(KeyMode::Log);
    assert!(log.contains("/ search") && log.contains("f fix") && !log.contains("/ filter"), "{log}");
    assert!(hints(KeyMode::Confirm).contains("y yes"));
    assert!(hints(KeyMode::FixMenu).contains("Enter apply") && hints(KeyMode::FixMenu).contains("c commit"));
}

fn remapped(entries: &[(&str, KeyEntry)]) -> KeyMap {
    KeyMap::from_config(&entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()).unwrap()
}

fn keys(list: &[&str]) -> KeyEntry {
    KeyEntry::Keys(list.iter().map(|k| k.to_string()).collect())
}

#[test]
fn every_mode_is_remappable_and_clashes_are_warnings_naming_both() {
    let mode = KeyEntry::Mode([("yes".to_string(), vec!["u".to_string()])].into_iter().collect());
    let map = remapped(&[("confirm", mode)]);
    assert_eq!(map.action(KeyMode::Confirm, Key::ch('u')), Some(Action::Yes));
    assert_eq!(map.action(KeyMode::Confirm, Key::ch('y')), None);
    assert!(map.warnings.is_empty(), "{:?}", map.warnings);
    let map = remapped(&[("quit", keys(&["j"]))]);
    assert!(map.warnings.iter().any(|w| w.contains("`j`") && w.contains("quit") && w.contains("down")));
    let map = remapped(&[("cancel_run", keys(&["k", "up"]))]);
    assert!(map.warnings.iter().any(|w| w.contains("`up` has no key left")), "{:?}", map.warnings);
    let map = remapped(&[("toggle_wrap", keys(&["f"]))]);
    assert!(
        map.warnings
            .iter()
            .any(|w| w.contains("toggle_wrap") && w.contains("fix_menu") && w.contains("twice")),
        "{:?}",
        map.warnings
    );
}
