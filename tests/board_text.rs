//! Text from data on the board (a dataset subject, a recorded error) never reaches the terminal
//! as control data.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use perftriage::app::{Key, Msg, update};

#[test]
fn escape_sequences_in_data_are_not_drawn_as_control_characters() {
    let mut s = common::state();
    let hostile = "boom \u{1b}]52;c;aGFja2Vk\u{7}\u{1b}[2J\u{9b}31m\u{202e}txt";
    s.board.entries[0].commit.subject = hostile.into();
    s.board.entries[0].variants[1].outcome.error = Some(hostile.into());
    s.board.rebuild_row(0);
    common::press(&mut s, Key::plain(perftriage::app::KeyCode::Enter));
    update(&mut s, Msg::Resize(160, 48));
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    term.draw(|f| perftriage::ui::view(f, &s, &theme)).unwrap();
    let buf = term.backend().buffer();
    let bad: Vec<String> = buf
        .content
        .iter()
        .map(|c| c.symbol().to_string())
        .filter(|sym| {
            sym.chars()
                .any(|c| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
        })
        .collect();
    assert!(bad.is_empty(), "control characters in cells: {bad:?}");
    let screen: String = buf.content.iter().map(|c| c.symbol()).collect();
    assert!(screen.matches("boom").count() >= 2, "the subject and the error are on screen");
}
