//! Frame time while a 1 GB log is ingested, then searched, in the background (issue 17: p99 < 16 ms).
//! The board's own model and view on the embedded dataset with the log pane open: a thread runs
//! the real line path (decode, redact, spool, classify) over the file and sends its lines as the
//! board's log reader does, then the real spool search streams its hits; this thread takes what
//! arrived, updates and draws a 160x48 frame every 16 ms, and times each update + draw. Drawn
//! into ratatui's test backend: the terminal's own write is not in the number.
//! `cargo bench --bench frames -- [LOG]` (default /tmp/perftriage-vs-lnav/big.log, made by
//! tests/benches/vs_lnav.sh or `perftriage synth-log`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::needless_pass_by_value
)]

use perftriage::app::{AppState, Effect, Key, KeyMap, LogKey, LogMsg, Msg, update};
use perftriage::classify::Classifier;
use perftriage::dataset;
use perftriage::jobs::lines::LinePath;
use perftriage::logs::{DEFAULT_RING, Redactor, SpoolSearch, Stream};
use perftriage::triage::TriageBook;
use perftriage::ui::{Theme, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::io::Read;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A rare word and a line every eighth line has.
const QUERY: &str = "aimv2|Loading weights";

/// The board with a log pane open; the key its lines arrive under.
fn board() -> (AppState, LogKey) {
    let classifier = Classifier::embedded().unwrap();
    let (entries, _) =
        dataset::join(dataset::load_embedded().unwrap().commits, Default::default(), &classifier);
    let mut state = AppState::new(entries, TriageBook::new(), KeyMap::default());
    update(&mut state, Msg::Resize(160, 48));
    let Some(Effect::OpenLog { key, .. }) = update(&mut state, Msg::Key(Key::ch('L'))).pop() else {
        panic!("no log opened")
    };
    (state, key)
}

/// Ingest `log` through the line path, its lines sent as the board's reader sends them.
fn ingest(
    log: &str,
    spool: &std::path::Path,
    key: LogKey,
    tx: mpsc::Sender<Msg>,
) -> perftriage::logs::SpoolReader {
    let classifier = std::sync::Arc::new(Classifier::embedded().unwrap());
    let mut path = LinePath::create(spool, Redactor::from_env(), classifier).unwrap().keeping(DEFAULT_RING);
    let mut file = std::fs::File::open(log).expect("the log (run tests/benches/vs_lnav.sh first)");
    let mut chunk = vec![0u8; 64 << 10];
    let mut sent = Instant::now();
    loop {
        let n = file.read(&mut chunk).unwrap();
        let batch = match n {
            0 => path.finish_batch().unwrap(),
            n => {
                path.push(Stream::Stdout, &chunk[..n]).unwrap();
                if sent.elapsed() < Duration::from_millis(50) {
                    continue;
                }
                sent = Instant::now();
                path.take_newest(perftriage::logs::SCREENFUL)
            }
        };
        let (lines, skipped) = (batch.lines, batch.skipped);
        let _ = tx.send(Msg::Log(LogMsg::Lines { key: key.clone(), lines, skipped, finished: n == 0 }));
        if n == 0 {
            return path.reader().unwrap();
        }
    }
}

/// Frames every 16 ms until `done` is set; each update + draw time.
fn frames(state: &mut AppState, rx: &mpsc::Receiver<Msg>, done: &AtomicBool) -> Vec<Duration> {
    let theme = Theme::load("default").unwrap();
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let mut times = Vec::new();
    while !done.load(std::sync::atomic::Ordering::Relaxed) {
        let started = Instant::now();
        for msg in rx.try_iter() {
            update(state, msg);
        }
        term.draw(|f| view(f, state, &theme)).unwrap();
        let took = started.elapsed();
        times.push(took);
        // pacing: one frame every 16 ms, as the board draws at most
        std::thread::sleep(Duration::from_millis(16).saturating_sub(took));
    }
    times
}

fn report(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q) as usize].as_secs_f64() * 1000.0;
    println!(
        "{what}: {} frames, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        times.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

fn main() {
    let log = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or("/tmp/perftriage-vs-lnav/big.log".into());
    let dir = tempfile::tempdir().unwrap();
    let (mut state, key) = board();
    let (tx, rx) = mpsc::channel();
    let done = AtomicBool::new(false);
    let (ingesting, reader) = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let reader = ingest(&log, &dir.path().join("spool.log"), key.clone(), tx.clone());
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            reader
        });
        let times = frames(&mut state, &rx, &done);
        (times, worker.join().unwrap())
    });
    report(&format!("while ingesting {log}"), ingesting);
    done.store(false, std::sync::atomic::Ordering::Relaxed);
    // The pane searches too, so the hits are merged and drawn as on the board.
    update(&mut state, Msg::Key(Key::ch('/')));
    for ch in QUERY.chars() {
        update(&mut state, Msg::Key(Key::ch(ch)));
    }
    update(&mut state, Msg::Key(Key::plain(perftriage::app::KeyCode::Enter)));
    let search = SpoolSearch::new(QUERY).unwrap();
    let searching = std::thread::scope(|scope| {
        scope.spawn(|| {
            let send = |hits| {
                let (key, query) = (key.clone(), QUERY.to_string());
                let _ = tx.send(Msg::Log(LogMsg::SearchHits { key, query, hits, done: false }));
            };
            search.run(&reader, reader.lines(), &AtomicBool::new(false), &send).unwrap();
            done.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        frames(&mut state, &rx, &done)
    });
    report("while searching the whole spool", searching);
}
