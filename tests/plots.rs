//! The verdict plot (`v`) and the detail pane's strip plot, on the embedded board with repeats
//! given to three commits: intervals drawn as bars over the ±2/±5 % bands, single runs as points,
//! rows without an estimate saying why, sorted by the estimate; Tab takes the next pair, Enter
//! jumps to the commit; colour by verdict, glyphs that keep their meaning without colour.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::cast_possible_truncation)]

mod common;

use common::{enter, press};
use perftriage::app::{AppState, Key, KeyCode, KeyMap, Mode, Msg, update};
use perftriage::dataset::{Entry, Variant};
use perftriage::metrics::Verdict;
use perftriage::report::compare;
use perftriage::triage::TriageBook;
use perftriage::ui::{Theme, view};
use ratatui::buffer::Buffer;

/// The shorts of the commits given repeats, and the factor their human's runs have over the baseline's.
const REPEATED: [f64; 3] = [1.12, 1.002, 1.035];

/// Five runs around `value`: ±1 % noise, their mean `value`.
fn five(value: f64) -> Vec<f64> {
    [0.99, 0.995, 1.0, 1.005, 1.01].iter().map(|f| value * f).collect()
}

fn give_runs(entry: &mut Entry, v: Variant, metric: &str, value: f64) {
    let outcome = &mut entry.variants[v as usize].outcome;
    outcome.metrics.insert(metric.to_string(), value);
    outcome.samples.insert(metric.to_string(), five(value));
}

/// The embedded board, the first three commits whose human and baseline compare given five runs
/// each (their shorts returned).
fn repeated() -> (AppState, Vec<String>) {
    let mut entries = common::entries();
    let mut shorts = Vec::new();
    let comparable = |e: &Entry| compare(e).filter(|c| c.pairs[0].pct.is_some()).map(|c| c.metric);
    for (entry, factor) in entries.iter_mut().filter(|e| comparable(e).is_some()).zip(REPEATED) {
        let metric = comparable(entry).unwrap();
        let base = entry.variant(Variant::Baseline).outcome.metrics.get(metric).copied().unwrap();
        give_runs(entry, Variant::Baseline, metric, base);
        give_runs(entry, Variant::Human, metric, base * factor);
        shorts.push(entry.commit.short.to_string());
    }
    let mut s = AppState::new(entries, TriageBook::new(), KeyMap::default());
    update(&mut s, Msg::Tick(common::NOW.into()));
    (s, shorts)
}

fn render(s: &mut AppState, w: u16, h: u16, theme: &str) -> Buffer {
    update(s, Msg::Resize(w, h));
    let theme = Theme::load(theme).unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    term.draw(|f| view(f, s, &theme)).unwrap();
    term.backend().buffer().clone()
}

fn text(buf: &Buffer) -> String {
    let w = usize::from(buf.area.width);
    let symbols: Vec<&str> = buf.content.iter().map(|c| c.symbol()).collect();
    symbols.chunks(w).map(|row| row.concat().trim_end().to_string()).collect::<Vec<_>>().join("\n")
}

fn plot_rows(s: &AppState) -> Vec<perftriage::report::ForestRow> {
    let Mode::Plot(plot) = &s.mode else { panic!("the plot is not open") };
    plot.rows.clone()
}

#[test]
fn the_plot_draws_intervals_points_and_reasons_sorted_by_the_estimate() {
    let (mut s, shorts) = repeated();
    press(&mut s, Key::ch('v'));
    let rows = plot_rows(&s);
    let placed: Vec<f64> = rows.iter().filter_map(|r| r.pct).collect();
    assert!(placed.windows(2).all(|w| w[0] >= w[1]), "sorted by the estimate: {placed:?}");
    let first_unplaced = rows.iter().position(|r| r.pct.is_none()).unwrap();
    assert!(rows[first_unplaced..].iter().all(|r| r.pct.is_none() && r.why.is_some()), "the rest say why");
    let with_interval: Vec<&str> =
        rows.iter().filter(|r| r.interval.is_some()).map(|r| r.short.as_str()).collect();
    assert_eq!(with_interval.len(), 3, "{with_interval:?} of {shorts:?}");
    let screen = text(&render(&mut s, 160, 48, "default"));
    let line = |short: &str| {
        screen
            .lines()
            .find(|l| l.trim_start_matches('│').trim_start().starts_with(short))
            .unwrap()
            .to_string()
    };
    for short in &shorts {
        let row = line(short);
        assert!(row.contains('━') && row.contains('●') && row.contains("] "), "{short} has its bar:\n{row}");
    }
    let single = rows.iter().find(|r| r.pct.is_some_and(|p| p.abs() < 5.0) && r.interval.is_none()).unwrap();
    let row = line(single.short.as_str());
    assert!(row.contains('●') && !row.contains('━') && row.contains("single run"), "a point:\n{row}");
    let unplaced = line(rows[first_unplaced].short.as_str());
    assert!(unplaced.contains("not measured") || unplaced.contains("not comparable"), "{unplaced}");
    assert!(
        screen.contains('░') && screen.contains('·') && screen.contains("-5") && screen.contains("+2"),
        "bands:\n{screen}"
    );
}

/// `:verdict_plot` opens it as `v` does.
#[test]
fn the_command_line_opens_the_plot() {
    let (mut s, _) = repeated();
    press(&mut s, Key::ch(':'));
    common::chars(&mut s, "verdict_plot");
    press(&mut s, enter());
    assert!(matches!(&s.mode, Mode::Plot(p) if p.pair == 0 && !p.rows.is_empty()), "{:?}", s.mode);
}

#[test]
fn tab_takes_the_next_pair_and_enter_jumps_to_the_commit_with_its_runs_shown() {
    let (mut s, shorts) = repeated();
    press(&mut s, Key::ch('v'));
    press(&mut s, Key::plain(KeyCode::Tab));
    let Mode::Plot(plot) = &s.mode else { panic!() };
    assert_eq!(plot.pair, 1, "agent vs baseline");
    assert!(text(&render(&mut s, 160, 48, "default")).contains("Verdict plot: A vs B"));
    press(&mut s, Key::plain(KeyCode::Tab));
    press(&mut s, Key::plain(KeyCode::Tab));
    let rows = plot_rows(&s);
    let target = rows.iter().position(|r| r.short.as_str() == shorts[0]).unwrap();
    for _ in 0..target {
        press(&mut s, Key::ch('j'));
    }
    press(&mut s, enter());
    assert!(matches!(s.mode, Mode::Normal));
    assert_eq!(s.board.selected_short().map(|x| x.to_string()), Some(shorts[0].clone()));
    assert!(s.board.detail_open);
    // The strip is below the 3-way lines: the detail scrolls to it.
    let mut screen = text(&render(&mut s, 160, 48, "default"));
    for _ in 0..20 {
        if screen.contains(&format!("{:<9}├", "agent")) {
            break;
        }
        press(&mut s, Key::ch('J'));
        screen = text(&render(&mut s, 160, 48, "default"));
    }
    assert!(screen.contains("• a run, ● several, ┃ mean"), "the strip plot:\n{screen}");
    let strip = |v: &str| {
        let line = screen.lines().find(|l| l.contains(&format!("{v:<9}├"))).unwrap();
        line[line.find(&format!("{v:<9}├")).unwrap()..].to_string()
    };
    for variant in ["baseline", "human"] {
        assert!(strip(variant).contains("5 runs"), "{}", strip(variant));
    }
    assert!(strip("agent").contains("1 run") || strip("agent").contains("no run"), "{}", strip("agent"));
}

#[test]
fn the_plot_colours_by_verdict_and_keeps_its_meaning_in_monochrome() {
    let (mut s, _) = repeated();
    press(&mut s, Key::ch('v'));
    let rows = plot_rows(&s);
    let decided = rows.iter().find(|r| r.verdict().is_some() && r.interval.is_some()).unwrap();
    let theme = Theme::load("default").unwrap();
    let buf = render(&mut s, 160, 48, "default");
    let screen = text(&buf);
    let (y, line) = screen.lines().enumerate().find(|(_, l)| l.contains(decided.short.as_str())).unwrap();
    let x = line.chars().position(|c| c == '●').unwrap();
    let style = match decided.verdict().unwrap() {
        Verdict::Beats => theme.better,
        Verdict::Worse => theme.worse,
        Verdict::Similar => theme.tie,
        Verdict::Undecided => theme.warn,
    };
    assert_eq!(buf[(x as u16, y as u16)].style().fg, style.fg, "the estimate in its verdict's colour");
    let mono = render(&mut s, 160, 48, "monochrome");
    assert!(mono.content.iter().all(|c| c.fg == ratatui::style::Color::Reset));
    let words = text(&mono);
    for glyph in ["░ ±2%", "· ±5%", "━ 95% interval", "● beats", "● worse"] {
        assert!(words.contains(glyph), "{glyph}:\n{words}");
    }
}

#[test]
fn plot_screens_160x48_and_80x24() {
    let (mut s, _) = repeated();
    press(&mut s, Key::ch('v'));
    insta::assert_snapshot!("plot_160x48", text(&render(&mut s, 160, 48, "default")));
    insta::assert_snapshot!("plot_80x24", text(&render(&mut s, 80, 24, "default")));
    let repeated = plot_rows(&s).iter().position(|r| r.interval.is_some()).unwrap();
    (0..repeated).for_each(|_| drop(press(&mut s, Key::ch('j'))));
    press(&mut s, enter());
    (0..4).for_each(|_| drop(press(&mut s, Key::ch('J'))));
    insta::assert_snapshot!("strip_160x48", text(&render(&mut s, 160, 48, "default")));
}
