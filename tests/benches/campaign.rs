//! A 96 × 3 campaign on the real engine with the mock vLLM, four runs at once (issue 39):
//! perftriage's own overhead per run — the time from a run's `launched` line in the journal to
//! its `finished` line, less the time its container ran (Docker's `start` to `die`, to the
//! nanosecond) — and the board's frame time while the campaign runs: this thread reads the
//! journal as the board's job service does (every fifth frame, off the frame), hands the board's
//! model its snapshots and each new result, and times each update + draw of a 160x48 frame with
//! the campaign view open half the time. Drawn into ratatui's test backend: the terminal's own
//! write is not in the number. Then the overhead per run of ten commits × three run one at a
//! time, as a sequential `docker run --rm` is: Docker's part without four runs at once.
//! `cargo bench --bench campaign` (the mock images are built first, as the tests build them).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    clippy::cast_sign_loss
)]

#[path = "../common/mod.rs"]
mod common;

use common::timings::{Seen, container_events, now_s, overheads, quantiles, read_new};

use perftriage::app::{AppState, Key, KeyMap, Msg, update};
use perftriage::classify::Classifier;
use perftriage::ui::{Theme, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const COMMITS: usize = 96;

/// Every tenth commit fails as the mock's aimv2 image does, every tenth numpy 2: fixed and re-run.
fn flavours() -> Vec<&'static str> {
    (0..COMMITS)
        .map(|i| match i % 10 {
            1 => "aimv2",
            3 => "numpy2",
            _ => "ok",
        })
        .collect()
}

/// The board's model over the campaign's dataset, 160x48.
fn board(dataset: &Path) -> AppState {
    let classifier = Classifier::embedded().unwrap();
    let commits = perftriage::dataset::load_jsonl(dataset).unwrap().commits;
    let (entries, _) = perftriage::dataset::join(commits, Default::default(), &classifier);
    let mut state = AppState::new(entries, perftriage::triage::TriageBook::new(), KeyMap::default());
    update(&mut state, Msg::Resize(160, 48));
    state
}

/// Frames every 16 ms until the campaign's process ends; each update + draw time. Every fifth
/// frame the journal's new lines are timed and its snapshot and new results handed to the model.
fn frames(state: &mut AppState, journal: &Path, campaign: &mut std::process::Child) -> (Vec<Duration>, Seen) {
    let (theme, classifier) = (Theme::load("default").unwrap(), Classifier::embedded().unwrap());
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let (mut times, mut seen, mut handed) = (Vec::new(), Seen::new(), HashSet::new());
    for frame in 0u64.. {
        let mut msgs = Vec::new();
        if frame % 5 == 0 {
            msgs = read_journal(journal, &mut seen, &mut handed, &classifier);
        }
        // The campaign view opens at 300 frames of every 600 and closes at 0.
        match frame % 600 {
            300 => msgs.push(Msg::Key(Key::ch('O'))),
            0 => msgs.push(Msg::Key(common::esc())),
            _ => {}
        }
        let started = std::time::Instant::now();
        msgs.into_iter().for_each(|m| drop(update(state, m)));
        term.draw(|f| view(f, state, &theme)).unwrap();
        times.push(started.elapsed());
        if campaign.try_wait().unwrap().is_some() {
            let last = read_journal(journal, &mut seen, &mut handed, &classifier);
            last.into_iter().for_each(|m| drop(update(state, m)));
            return (times, seen);
        }
        // pacing: one frame every 16 ms, as the board draws at most
        std::thread::sleep(Duration::from_millis(16).saturating_sub(started.elapsed()));
    }
    unreachable!()
}

/// New journal lines timed; the snapshot and each result not handed before, as messages.
fn read_journal(journal: &Path, seen: &mut Seen, handed: &mut HashSet<String>, c: &Classifier) -> Vec<Msg> {
    let lines = read_new(journal, seen);
    let events: Vec<perftriage::campaigns::Event> =
        lines.iter().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let Some(state) = perftriage::campaigns::CampaignState::fold(&events) else { return Vec::new() };
    let mut msgs = vec![Msg::Campaign(Some(state.snapshot()))];
    for (_, e) in seen.iter().filter(|(_, e)| e["event"] == "finished" && e["result"].is_string()) {
        if handed.insert(e["run_id"].as_str().unwrap().to_string()) {
            let set =
                perftriage::dataset::results::read_file(Path::new(e["result"].as_str().unwrap())).unwrap();
            msgs.extend(set.records.into_iter().map(|r| Msg::CampaignResult(Box::new(r.digest(c)))));
        }
    }
    msgs
}

/// `campaign start --auto-fix` of `shorts` named `name`, `concurrency` runs at once.
fn start(s: &common::engine::Setup, name: &str, concurrency: &str, shorts: &[String]) -> std::process::Child {
    let list = shorts.join(",");
    let args =
        ["campaign", "start", "--name", name, "--auto-fix", "--concurrency", concurrency, "--commits", &list];
    Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--config")
        .arg(&s.config)
        .arg("--workspace")
        .arg(s.root.join("ws"))
        .args(args)
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Commits of the campaign run one at a time after the main one.
const ONE_AT_A_TIME: usize = 10;

/// The overhead per run of a campaign of `ONE_AT_A_TIME` commits run one at a time, as
/// `docker run --rm` is timed: Docker makes and removes one container at once. The journal is
/// read every 5 ms (no board beside it).
fn one_at_a_time() -> Vec<f64> {
    let (s, shorts) = common::campaign::campaign_setup(&["ok"; ONE_AT_A_TIME]);
    let events_file = s.root.join("container-events.txt");
    let mut events = container_events(&events_file).spawn().unwrap();
    let mut campaign = start(&s, "alone", "1", &shorts);
    let (journal, mut seen) = (s.root.join("ws/campaigns/alone/journal.jsonl"), Seen::new());
    while campaign.try_wait().unwrap().is_none() {
        read_new(&journal, &mut seen);
        // pacing: the journal read every 5 ms, its lines stamped when seen
        std::thread::sleep(Duration::from_millis(5));
    }
    read_new(&journal, &mut seen);
    let _ = events.kill();
    let _ = events.wait();
    overheads(&seen, &events_file).0
}

fn main() {
    let rt = common::engine::runtime();
    let engine = common::engine::engine(&rt).expect("a Docker engine");
    common::engine::ensure_images(&rt, &engine);
    let (s, shorts) = common::campaign::campaign_setup(&flavours());
    let events_file = s.root.join("container-events.txt");
    let mut events = container_events(&events_file).spawn().unwrap();
    let mut campaign = start(&s, "bench", "4", &shorts);
    let started = now_s();
    let mut state = board(&s.root.join("dataset.jsonl"));
    let journal = s.root.join("ws/campaigns/bench/journal.jsonl");
    let (times, seen) = frames(&mut state, &journal, &mut campaign);
    let took = now_s() - started;
    let _ = events.kill();
    let _ = events.wait();
    println!(
        "campaign {COMMITS} × 3, concurrency 4: {took:.0} s, {}",
        state.session.campaign.unwrap().headline
    );
    quantiles(
        "perftriage's overhead per run (launch to end, less the container's start to die)",
        overheads(&seen, &events_file).0,
        "ms",
    );
    let ms: Vec<f64> = times.iter().map(|t| t.as_secs_f64() * 1000.0).collect();
    quantiles("board frame (update + draw, 160x48) while it runs", ms, "ms");
    quantiles(
        &format!(
            "perftriage's overhead per run, {ONE_AT_A_TIME} × 3 one at a time (launch to end, less start to die)"
        ),
        one_at_a_time(),
        "ms",
    );
}
