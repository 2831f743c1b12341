//! Shared test helpers: the embedded board in a known state.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

pub mod build_env;
pub mod campaign;
pub mod checkout;
pub mod engine;
pub mod mock_images;
pub mod night;
pub mod real;
pub mod registry;
pub mod scenarios;
pub mod second_daemon;
pub mod slurm_cluster;
pub mod timings;
pub mod tmux_board;
pub mod wait;

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

/// Text decoded as a container's stdout is: lines with their SGR styles.
pub fn decoded(text: &str) -> Vec<perftriage::logs::Line> {
    use perftriage::logs::{Decoder, Output, Stream};
    let mut d = Decoder::new(Stream::Stdout);
    let mut out = Output::default();
    d.feed(text.as_bytes(), &mut out);
    d.finish(&mut out);
    out.lines
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

/// `status --json --verbose` with `args` before it, on a workspace (and no user config), result
/// files cached once they are `settle_ms` old: stdout and stderr; the run must succeed. The
/// status cache a run before wrote is removed first: these are the tests of the caches below it
/// (tests/status_cache.rs has its own).
pub fn verbose_status(
    workspace: &std::path::Path,
    settle_ms: &str,
    args: &[&std::ffi::OsStr],
) -> (String, String) {
    let _ = std::fs::remove_file(workspace.join("cache/status.jsonl"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--workspace")
        .arg(workspace)
        .args(args)
        .args(["status", "--json", "--verbose"])
        .env("XDG_CONFIG_HOME", workspace.join("no-config"))
        .env("PERFTRIAGE_DIGEST_SETTLE_MS", settle_ms)
        .output()
        .unwrap();
    let (stdout, stderr) =
        (String::from_utf8(out.stdout).unwrap(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "{stderr}");
    (stdout, stderr)
}

/// A job service's setup as the board makes it, with no hosts, registry or Slurm.
pub fn job_setup(
    workspace: std::path::PathBuf,
    config: perftriage::runs::RunConfig,
    images: perftriage::dataset::ImageTemplates,
    fixed_repo: String,
) -> perftriage::jobs::service::JobSetup {
    let classifier = std::sync::Arc::new(Classifier::embedded().unwrap());
    let mut exec = perftriage::jobs::executor::Executor::local(
        workspace,
        classifier,
        perftriage::logs::Redactor::from_env(),
    );
    exec.vllm_repo.clone_from(&config.vllm_repo);
    perftriage::jobs::service::JobSetup {
        exec,
        config,
        images,
        recipes: perftriage::fixes::RecipeBook::embedded().unwrap(),
        fixed_repo,
        registry: Default::default(),
        build: Default::default(),
        recording: Default::default(),
    }
}

/// Answers the board's `PlanRuns` effects as the runtime does: a real job service plans each run
/// (default config, agent patches from a temporary folder) and its `Planned` message goes back in.
pub struct Planner {
    jobs: perftriage::jobs::service::JobService,
    rx: tokio::sync::mpsc::UnboundedReceiver<Msg>,
    _dir: tempfile::TempDir,
}

impl Planner {
    pub fn new() -> Planner {
        Planner::with_config(perftriage::runs::RunConfig::default())
    }

    pub fn with_config(mut config: perftriage::runs::RunConfig) -> Planner {
        let dir = tempfile::tempdir().unwrap();
        let patches = dir.path().join("patches");
        std::fs::create_dir_all(&patches).unwrap();
        for short in ["7c01f706", "22dd9c27", "015069b0", "3a243095"] {
            std::fs::write(patches.join(format!("{short}.patch")), "").unwrap();
        }
        config.patches.get_or_insert(patches);
        let setup = job_setup(dir.path().join("ws"), config, Default::default(), "perftriage-fixed".into());
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let commits = dataset::load_embedded().unwrap().commits.iter().collect();
        Planner { jobs: perftriage::jobs::service::JobService::new(setup, commits, tx), rx, _dir: dir }
    }

    /// Press a key; a `PlanRuns` it asks for is planned and answered. The other effects are returned.
    pub fn press(&mut self, s: &mut AppState, key: Key) -> Vec<perftriage::app::Effect> {
        let mut rest = Vec::new();
        for effect in update(s, Msg::Key(key)) {
            match effect {
                perftriage::app::Effect::PlanRuns { short, requests } => {
                    self.jobs.preview(&short, &requests);
                    let answer = self.rx.try_recv().unwrap();
                    rest.extend(update(s, answer));
                }
                other => rest.push(other),
            }
        }
        rest
    }
}

/// The whole screen as text, drawn by the real view in the default theme.
pub fn screen_of(s: &AppState, w: u16, h: u16) -> String {
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    term.draw(|f| perftriage::ui::view(f, s, &theme)).unwrap();
    let buf = term.backend().buffer().clone();
    let cells: Vec<&str> = buf.content.iter().map(|c| c.symbol()).collect();
    cells.chunks(usize::from(w)).map(|r| r.concat().trim_end().to_string()).collect::<Vec<_>>().join("\n")
}

/// Copy the folder `from` to `to`, recursively (files and folders only).
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
