//! Shared test helpers: the embedded board in a known state.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

pub mod engine;

use perftriage::app::KeyMap;
use perftriage::app::{AppState, DockerMsg, Key, KeyCode, Msg, update};
use perftriage::classify::Classifier;
use perftriage::dataset::{self, Entry};
use perftriage::triage::TriageBook;

pub const NOW: &str = "2026-11-22T02:00:00Z";

pub fn entries() -> Vec<Entry> {
    let classifier = Classifier::embedded().unwrap();
    let (entries, _) =
        dataset::join(dataset::load_embedded().unwrap().commits, Default::default(), &classifier);
    entries
}

/// The embedded board with the 24 real ISO-Bench fixture files loaded over it.
pub fn state_with_fixtures() -> AppState {
    let classifier = Classifier::embedded().unwrap();
    let set = dataset::results::read_dirs(&["fixtures/results/isobench".into()]);
    let (entries, _) = dataset::join(dataset::load_embedded().unwrap().commits, set, &classifier);
    let mut s = AppState::new(entries, TriageBook::new(), KeyMap::default());
    update(&mut s, Msg::Tick(NOW.into()));
    s
}

pub fn state() -> AppState {
    let mut s = AppState::new(entries(), TriageBook::new(), KeyMap::default());
    update(&mut s, Msg::Tick(NOW.into()));
    s
}

pub fn press(s: &mut AppState, key: Key) -> Vec<perftriage::app::Effect> {
    update(s, Msg::Key(key))
}

pub fn chars(s: &mut AppState, text: &str) {
    for c in text.chars() {
        press(s, Key::ch(c));
    }
}

pub fn enter() -> Key {
    Key::plain(KeyCode::Enter)
}

pub fn esc() -> Key {
    Key::plain(KeyCode::Esc)
}

/// Docker answers: queued runs may start.
pub fn docker_up(s: &mut AppState) -> Vec<perftriage::app::Effect> {
    update(s, Msg::Docker(DockerMsg::Connected("Docker 27.0 (test)".into())))
}

/// The binary on a workspace (and no user config), as scripts run it.
pub fn cli(workspace: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--workspace")
        .arg(workspace)
        .args(args)
        .env("XDG_CONFIG_HOME", workspace.join("no-config"))
        .output()
        .unwrap()
}
