//! The tool's own log: records reach the debug pane (toggled, with a level filter) and
//! `<workspace>/perftriage.log`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::{press, state};
use perftriage::app::{Key, Msg, update};

fn screen(s: &mut perftriage::app::AppState) -> String {
    update(s, Msg::Resize(140, 40));
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(140, 40)).unwrap();
    term.draw(|f| perftriage::ui::view(f, s, &theme)).unwrap();
    let buf = term.backend().buffer().clone();
    let cells: Vec<&str> = buf.content.iter().map(|c| c.symbol()).collect();
    cells.chunks(140).map(|r| r.concat().trim_end().to_string()).collect::<Vec<_>>().join("\n")
}

#[test]
fn records_reach_the_debug_pane_and_the_workspace_file() {
    let ws = tempfile::tempdir().unwrap();
    perftriage::runtime::own_log::start(ws.path()).unwrap();
    log::info!("Docker connected: engine test");
    log::debug!("a detail only the debug level shows");
    log::debug!(target: "bollard::docker", "unix://…/containers/json: a request the client logs");
    log::info!(target: "bollard::docker", "a client's record at info");
    perftriage::runtime::own_log::collect();
    let mut s = state();
    assert!(!screen(&mut s).contains("Docker connected: engine test"), "hidden until asked for");
    press(&mut s, Key::ch('D'));
    let shown = screen(&mut s);
    assert!(shown.contains("perftriage log") && shown.contains("Docker connected: engine test"), "{shown}");
    assert!(!shown.contains("only the debug level"), "info and up by default");
    for _ in 0..3 {
        press(&mut s, Key::ch('V'));
    }
    assert!(screen(&mut s).contains("only the debug level"), "V cycles round to debug");
    let file = std::fs::read_to_string(ws.path().join("perftriage.log")).unwrap();
    assert!(file.contains("Docker connected: engine test"), "{file}");
    assert!(file.contains("only the debug level"), "its own debug records are kept: {file}");
    // The Docker client's requests at debug, every two seconds, buried the tool's own records.
    assert!(!file.contains("a request the client logs"), "{file}");
    assert!(file.contains("a client's record at info"), "{file}");
}

/// The workspace log once it holds `what`.
fn log_holding(ws: &std::path::Path, what: &str) -> String {
    common::wait::until(what, std::time::Duration::from_secs(30), || {
        let log = std::fs::read_to_string(ws.join("perftriage.log")).unwrap_or_default();
        if log.contains(what) { Ok(log) } else { Err(log) }
    })
}

#[test]
#[cfg_attr(not(has_tmux), ignore = "needs tmux")]
fn the_board_logs_where_its_start_went_and_reads_once_the_terminal_showed_the_first_frame() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let board = common::tmux_board::Board::start(&config, dir.path(), "startlog", 160);
    board.until("the first screen", 30, |s| s.contains("All 96"));
    let log = log_holding(dir.path(), "reading the results");
    let phases = log.lines().find(|l| l.contains("first frame: ")).unwrap_or_else(|| panic!("{log}"));
    for phase in ["config ", "dataset head read ", "head ", "workspace ", "terminal ", "drawn "] {
        assert!(phases.contains(phase), "{phase}in {phases}");
    }
    assert!(phases.contains(" ms from main"), "{phases}");
    let answered = log.find("the terminal showed the first frame ").unwrap_or_else(|| panic!("{log}"));
    let reading = log.find("reading the results once the terminal showed the first frame").expect("after it");
    assert!(answered < reading, "the reading waited for the terminal's answer:\n{log}");
}
