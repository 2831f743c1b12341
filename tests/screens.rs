//! Whole-screen snapshots at 80×24 and 160×48, plus one style check per colour role that carries meaning.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::{chars, enter, press, state};
use perftriage::app::{AppState, Key, KeyCode, Msg, update};
use perftriage::ui::{Theme, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

fn render(s: &mut AppState, w: u16, h: u16, theme: &str) -> Buffer {
    update(s, Msg::Resize(w, h));
    let theme = Theme::load(theme).unwrap();
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| view(f, s, &theme)).unwrap();
    term.backend().buffer().clone()
}

fn text(buf: &Buffer) -> String {
    let w = buf.area.width as usize;
    let symbols: Vec<&str> = buf.content.iter().map(|c| c.symbol()).collect();
    symbols.chunks(w).map(|row| row.concat().trim_end().to_string()).collect::<Vec<_>>().join("\n")
}

fn snap(s: &mut AppState, w: u16, h: u16) -> String {
    text(&render(s, w, h, "default"))
}

#[test]
fn board_80x24() {
    insta::assert_snapshot!(snap(&mut state(), 80, 24));
}

#[test]
fn board_160x48() {
    insta::assert_snapshot!(snap(&mut state(), 160, 48));
}

#[test]
fn detail_80x24_and_160x48() {
    let mut s = state();
    press(&mut s, Key::ch('/'));
    chars(&mut s, "22dd9c27");
    press(&mut s, enter());
    press(&mut s, enter());
    insta::assert_snapshot!("detail_80x24", snap(&mut s, 80, 24));
    insta::assert_snapshot!("detail_160x48", snap(&mut s, 160, 48));
}

#[test]
fn filter_prompt_and_failed_view_160x48() {
    let mut s = state();
    press(&mut s, Key::plain(perftriage::app::KeyCode::Tab));
    press(&mut s, Key::ch('/'));
    chars(&mut s, "!cat:unclassified");
    insta::assert_snapshot!(snap(&mut s, 160, 48));
}

/// A filter naming no field says so as it is typed, beside its empty result: before Enter, in the
/// board and on the prompt line, at both sizes.
#[test]
fn a_filter_naming_no_field_says_so_beside_its_result_before_enter() {
    for (w, h) in [(80, 24), (160, 48)] {
        let mut s = state();
        press(&mut s, Key::ch('/'));
        chars(&mut s, "foo:bar");
        let screen = snap(&mut s, w, h);
        let said = |line: &&str| line.contains("No commits match: no field `foo:`");
        assert!(screen.lines().any(|l| said(&l)), "{w}x{h}: the empty board names the field:\n{screen}");
        let prompt = screen.lines().last().unwrap();
        assert!(prompt.starts_with("/foo:bar█  no field `foo:`"), "{w}x{h}: prompt line {prompt:?}");
    }
}

#[test]
fn confirm_unfixable_80x24() {
    let mut s = state();
    press(&mut s, Key::ch('/'));
    chars(&mut s, "cf2f084d");
    press(&mut s, enter());
    press(&mut s, Key::ch('u'));
    press(&mut s, enter());
    insta::assert_snapshot!(snap(&mut s, 80, 24));
}

#[test]
fn help_160x48_lists_the_live_key_map() {
    let mut s = state();
    press(&mut s, Key::ch('?'));
    let screen = snap(&mut s, 160, 48);
    assert!(screen.contains("mark unfixable (reason, confirm)"));
    insta::assert_snapshot!(screen);
}

#[test]
fn too_small() {
    insta::assert_snapshot!(snap(&mut state(), 50, 10));
}

/// Find the first cell whose row contains `needle` at `col` and return its style.
fn style_of(buf: &Buffer, needle: &str) -> ratatui::style::Style {
    let screen = text(buf);
    let (y, line) =
        screen.lines().enumerate().find(|(_, l)| l.contains(needle)).unwrap_or_else(|| panic!("{needle}"));
    let col = line[..line.find(needle).unwrap()].chars().count();
    buf[(col as u16, y as u16)].style()
}

#[test]
fn colour_roles_that_carry_meaning() {
    let theme = Theme::load("default").unwrap();
    let mut s = state();
    let buf = render(&mut s, 160, 48, "default");
    assert_eq!(style_of(&buf, "✗ fail").fg, theme.fail.fg, "failures are red");
    assert_eq!(style_of(&buf, "◷ timeout").fg, theme.timeout.fg);
    assert_eq!(style_of(&buf, "⊘ skip").fg, theme.skip.fg);
    assert_eq!(style_of(&buf, "rope_llama3").fg, theme.unfixable.fg, "unfixable-here categories");
    assert_eq!(style_of(&buf, "server_timeout").fg, theme.fixable.fg, "retryable categories");
    assert_eq!(style_of(&buf, "015069b0").bg, theme.selected.bg, "selection");
    assert_eq!(style_of(&buf, " All 96 ").bg, theme.tab_active.bg, "active tab");
    // Not the selected row: that one is drawn all in the selected style.
    let selected = s.board.visible[s.board.selected];
    let row = (0..s.board.rows.len())
        .find(|&i| {
            let text = &s.board.rows[i].cells[0].text;
            i != selected && text.starts_with('✓') && text.contains("ms")
        })
        .unwrap();
    let ok_text = s.board.rows[row].cells[0].text.clone();
    let buf = render(&mut s, 160, 48, "default");
    assert_eq!(style_of(&buf, &ok_text).fg, theme.ok.fg);
}

#[test]
fn monochrome_keeps_meaning_in_glyphs_and_words() {
    let mut s = state();
    let buf = render(&mut s, 160, 48, "monochrome");
    assert!(
        buf.content
            .iter()
            .all(|c| c.fg == ratatui::style::Color::Reset && c.bg == ratatui::style::Color::Reset)
    );
    let screen = text(&buf);
    for word in ["✓", "✗ fail", "⊘ skip", "· not run", "◷ timeout"] {
        assert!(screen.contains(word), "{word}");
    }
}

#[test]
fn detail_shows_evidence_in_context_and_fixes_160x48() {
    let mut s = common::state_with_fixtures();
    press(&mut s, Key::ch('/'));
    chars(&mut s, "7c01f706");
    press(&mut s, enter());
    press(&mut s, enter());
    for _ in 0..16 {
        press(&mut s, Key::ch('J'));
    }
    let screen = snap(&mut s, 160, 48);
    assert!(screen.contains("   91 [rank0]: ValueError: Unknown RoPE scaling type llama3"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn help_80x24_has_a_section_per_mode_and_scrolls() {
    let mut s = state();
    press(&mut s, Key::ch('?'));
    let top = snap(&mut s, 80, 24);
    assert!(top.contains("Board") && top.contains("quit"), "{top}");
    insta::assert_snapshot!(top);
    let mut lower = String::new();
    for _ in 0..10 {
        press(&mut s, Key::plain(KeyCode::PageDown));
        lower = snap(&mut s, 80, 24);
        if lower.contains("yes: do it") {
            break;
        }
    }
    assert!(
        lower.contains("Confirm") && lower.contains("yes: do it"),
        "paging down reaches the confirm keys: {lower}"
    );
}

#[test]
fn a_confirm_never_clips_its_buttons_however_long_its_preview() {
    use perftriage::app::{Confirm, ConfirmAction, Mode};
    for (w, h) in [(80, 24), (160, 48)] {
        let mut s = state();
        let long =
            "pip install 'transformers==4.44.2' --no-deps --index-url https://pypi.org/simple ".repeat(2);
        let preview: Vec<String> = (0..40).map(|i| format!("step {i}: {long}")).collect();
        let action = ConfirmAction::MarkUnfixable { short: "7c01f706".into(), reason: "r".into() };
        s.mode = Mode::Confirm(Confirm::new("Apply?".into(), preview, action));
        let screen = snap(&mut s, w, h);
        assert!(screen.contains("] Yes") && screen.contains("] Cancel"), "{w}x{h}\n{screen}");
        assert!(screen.contains("more line(s): j scrolls down"), "{w}x{h}\n{screen}");
    }
    let mut s = state();
    let preview = vec![
        "x ".repeat(60),
        "B baseline: anonymous/vllm-baseline:baseline-0123456789ab  (fixed image: aimv2_exist_ok)".into(),
    ];
    let action = ConfirmAction::MarkUnfixable { short: "7c01f706".into(), reason: "r".into() };
    s.mode = Mode::Confirm(Confirm::new("Apply?".into(), preview, action));
    let screen = snap(&mut s, 80, 24);
    assert!(
        screen.contains("(fixed image:") && screen.contains("aimv2_exist_ok)") && screen.contains("] Cancel"),
        "{screen}"
    );
}

/// A preview longer than the screen scrolls with j/k; the buttons stay, and the last line can be
/// reached but not scrolled past.
#[test]
fn a_long_confirm_scrolls_to_its_last_line_and_no_further() {
    use perftriage::app::{Confirm, ConfirmAction, Key, Mode, Msg, update};
    let mut s = state();
    let preview: Vec<String> = (0..40).map(|i| format!("commit {i:02} of the bulk fix")).collect();
    let action = ConfirmAction::MarkUnfixable { short: "7c01f706".into(), reason: "r".into() };
    s.mode = Mode::Confirm(Confirm::new("Apply to 40 commits?".into(), preview, action));
    snap(&mut s, 80, 24);
    let limit = perftriage::ui::confirm_scroll_limit(&s).unwrap();
    update(&mut s, Msg::ConfirmLimit(limit));
    assert!(limit > 0 && limit < 39, "{limit}");
    for _ in 0..60 {
        update(&mut s, Msg::Key(Key::ch('j')));
    }
    let screen = snap(&mut s, 80, 24);
    assert!(screen.contains("commit 39") && screen.contains("line(s) above: k scrolls up"), "{screen}");
    assert!(!screen.contains("more line(s)") && screen.contains("] Cancel"), "{screen}");
    update(&mut s, Msg::Key(Key::ch('k')));
    let screen = snap(&mut s, 80, 24);
    assert!(
        screen.contains("more line(s)") && !screen.contains("commit 39"),
        "one up from the end: {screen}"
    );
    let Mode::Confirm(confirm) = &s.mode else { panic!() };
    assert_eq!(confirm.scroll, limit - 1);
}

#[test]
fn a_successful_variants_warning_is_a_dim_detail_line_not_a_category() {
    use perftriage::classify::Classifier;
    use perftriage::dataset;
    let set =
        dataset::results::read_dirs(
            &["fixtures/results/verdicts/2026-01/omniperf_results_3way_codex".into()],
        );
    let classifier = Classifier::embedded().unwrap();
    let (entries, _) = dataset::join(dataset::load_embedded().unwrap().commits, set, &classifier);
    let mut s =
        AppState::new(entries, perftriage::triage::TriageBook::new(), perftriage::app::KeyMap::default());
    update(&mut s, Msg::Tick(common::NOW.into()));
    press(&mut s, Key::ch('/'));
    chars(&mut s, "61b8cea3");
    press(&mut s, enter());
    press(&mut s, enter());
    let buf = render(&mut s, 160, 48, "default");
    let screen = text(&buf);
    let line = "warning no_metrics error line 1: No throughput metrics in agent";
    assert!(screen.contains(line), "{screen}");
    assert_eq!(style_of(&buf, "warning no_metrics").fg, Theme::load("default").unwrap().dim.fg);
    let agent_row = screen.lines().find(|l| l.contains("A agent")).unwrap();
    assert!(agent_row.contains("ok"), "{agent_row}");
}
