//! Every embedded theme reads: each role the board draws text in has a WCAG contrast ratio of at
//! least 4.5 on its cell, and on the selected row (whose cells are drawn in the selected style).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use perftriage::ui::Theme;
use perftriage::ui::contrast::ratio;

#[test]
fn every_role_of_every_theme_has_contrast_of_at_least_4_5() {
    let mut failures = Vec::new();
    for name in Theme::names() {
        let theme = Theme::load(name).unwrap();
        for (role, style) in theme.roles() {
            let r = ratio(style, theme.background);
            if r < 4.5 {
                failures.push(format!("{name}.{role}: {r:.2}"));
            }
        }
    }
    assert!(failures.is_empty(), "below 4.5: {failures:?}");
}

/// The text of the selected row as drawn: every cell of it, in every theme, reads on its cell.
#[test]
fn the_selected_row_shows_its_commit_and_cells_in_every_theme() {
    use perftriage::app::{AppState, KeyMap, Msg, update};
    for name in Theme::names() {
        let theme = Theme::load(name).unwrap();
        let mut s =
            AppState::new(common::entries(), perftriage::triage::TriageBook::new(), KeyMap::default());
        update(&mut s, Msg::Resize(160, 48));
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
        term.draw(|f| perftriage::ui::view(f, &s, &theme)).unwrap();
        let buf = term.backend().buffer().clone();
        // Row 3: top line, border, column header, then the first (selected) commit.
        let y = 3;
        let line: String = (1..159).map(|x| buf[(x, y)].symbol().to_string()).collect();
        assert!(line.contains(s.board.rows[s.board.visible[0]].short.as_str()), "{name}: {line}");
        for x in 1..159 {
            let c = &buf[(x, y)];
            if c.symbol().trim().is_empty() {
                continue;
            }
            let style = ratatui::style::Style::default().fg(c.fg).bg(c.bg).add_modifier(c.modifier);
            let r = ratio(style, theme.background);
            assert!(
                r >= 4.5,
                "{name}: `{}` at column {x} of the selected row has contrast {r:.2}",
                c.symbol()
            );
        }
    }
}
