//! What the board's edges say, at 80×24 and 160×48: the footer offers the keys of the selected
//! row's state, as many as fit whole; the header leaves out what does not fit, never cutting a
//! word; a prompt longer than the line scrolls; a picked commit keeps all eight digits.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{chars, docker_up, enter, press, screen_of, state};
use perftriage::app::{Action, AppState, Key};

fn select(s: &mut AppState, short: &str) {
    press(s, Key::ch('/'));
    chars(s, short);
    press(s, enter());
}

fn last_line(screen: &str) -> String {
    screen.lines().last().unwrap_or_default().to_string()
}

/// Every `key label` pair of a footer, each checked to be a whole label of the key map.
fn footer_pairs(footer: &str) -> Vec<String> {
    let labels: Vec<&str> = Action::all().filter_map(Action::footer_label).collect();
    let pairs: Vec<String> = footer.split("  ").filter(|p| !p.is_empty()).map(str::to_string).collect();
    for pair in &pairs {
        let label = pair.split_once(' ').map_or("", |(_, l)| l);
        assert!(labels.contains(&label), "`{pair}` is not a whole key and label: {footer}");
    }
    pairs
}

/// A failed row puts its fix, log, run and unfixable keys first, and at 80 columns the footer
/// ends on a whole label (it offered `q quit … s sort R runs m menu u unfi` for every row).
#[test]
fn the_footer_offers_the_selected_rows_keys_first_as_many_as_fit_whole() {
    let mut s = state();
    select(&mut s, "7c01f706");
    let narrow = footer_pairs(&last_line(&screen_of(&s, 80, 24)));
    assert_eq!(narrow[..5], ["? help", "f fix", "L log", "r run", "u unfixable"], "{narrow:?}");
    let wide = footer_pairs(&last_line(&screen_of(&s, 160, 48)));
    for key in ["f fix", "F bulk fix", "d", "t", "I images"] {
        assert!(wide.iter().any(|p| p == key || p.starts_with(&format!("{key} "))), "{key} in {wide:?}");
    }
    // A done commit offers its detail and a run first.
    press(&mut s, Key::plain(perftriage::app::KeyCode::Esc));
    select(&mut s, "015069b0");
    let done = footer_pairs(&last_line(&screen_of(&s, 80, 24)));
    assert_eq!(done[1..3], ["Enter detail", "r run"], "{done:?}");
    assert_ne!(narrow, done, "the keys follow the row");
}

/// The GPU reason at 160 columns ends on a whole word (it read `NVML: a libl`), and at 80 the
/// header is made of whole words of the wide one: what did not fit is left out, not cut.
#[test]
fn the_header_leaves_out_what_does_not_fit_and_never_cuts_a_word() {
    let mut s = state();
    docker_up(&mut s);
    let why = "NVML: a library could not be loaded (libnvidia-ml.so.1: cannot open shared object file: No such file or directory)";
    s.gpu.unavailable = Some(why.into());
    let full = screen_of(&s, 400, 48).lines().next().unwrap().to_string();
    assert!(full.ends_with(why), "with room, the whole reason: {full}");
    let words: Vec<&str> = full.split_whitespace().collect();
    let at_160 = screen_of(&s, 160, 48).lines().next().unwrap().to_string();
    assert!(at_160.contains("GPU: unavailable — NVML: a library"), "{at_160}");
    let last = at_160.split_whitespace().last().unwrap();
    let cut = last.strip_suffix('…').unwrap_or(last);
    assert!(words.contains(&cut), "the reason stops after a whole word: {at_160}");
    for width in [80, 100, 120] {
        let header = screen_of(&s, width, 24).lines().next().unwrap().to_string();
        for word in header.split_whitespace() {
            let word = word.strip_suffix('…').unwrap_or(word);
            assert!(words.contains(&word), "`{word}` is cut at {width} columns: {header}");
        }
    }
}

/// A note longer than the line: its end, where typing goes on, stays in view (what was typed
/// past the edge was invisible).
#[test]
fn a_prompt_longer_than_the_line_scrolls_to_what_is_typed() {
    let mut s = state();
    select(&mut s, "7c01f706");
    press(&mut s, Key::ch('n'));
    let typed = format!("{}THE-END", "the server died after the warm-up ".repeat(3));
    chars(&mut s, &typed);
    for (w, h) in [(80, 24), (160, 48)] {
        let footer = last_line(&screen_of(&s, w, h));
        assert!(footer.starts_with("Note for 7c01f706"), "{footer}");
        assert!(footer.ends_with("THE-END█"), "at {w}: {footer}");
        if w == 80 {
            assert!(footer.contains('…'), "the start is cut, and said to be: {footer}");
        }
    }
}

/// A picked commit's row shows its eight digits and the pick marker after them (the marker took
/// the place of the last digit).
#[test]
fn a_picked_commit_keeps_its_whole_short_hash() {
    let mut s = state();
    select(&mut s, "7c01f706");
    press(&mut s, Key::ch(' '));
    for (w, h) in [(80, 24), (160, 48)] {
        let screen = screen_of(&s, w, h);
        assert!(screen.contains("│7c01f706• "), "at {w}:\n{screen}");
    }
}
