//! Criterion benchmarks for the budgets: first frame on the embedded dataset (< 100 ms),
//! a filter keystroke at 10,000 rows redrawn (< 16 ms), and loading + joining 10,000 commits.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use perftriage::app::KeyMap;
use perftriage::app::{AppState, Key, Msg, update};
use perftriage::classify::Classifier;
use perftriage::dataset;
use perftriage::triage::TriageBook;
use perftriage::ui::{Theme, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::hint::black_box;

fn draw(state: &AppState, theme: &Theme, term: &mut Terminal<TestBackend>) {
    term.draw(|f| view(f, state, theme)).unwrap();
}

fn first_frame(c: &mut Criterion) {
    let theme = Theme::load("default").unwrap();
    c.bench_function("first_frame_embedded_160x48", |b| {
        b.iter(|| {
            let classifier = Classifier::embedded().unwrap();
            let (entries, _) =
                dataset::join(dataset::load_embedded().unwrap().commits, Default::default(), &classifier);
            let mut state = AppState::new(entries, TriageBook::new(), KeyMap::default());
            update(&mut state, Msg::Resize(160, 48));
            let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
            draw(&state, &theme, &mut term);
            black_box(term);
        })
    });
}

fn state_10k() -> AppState {
    let classifier = Classifier::embedded().unwrap();
    let commits = perftriage::synthetic::commits(10_000).unwrap();
    let (entries, _) = dataset::join(commits, Default::default(), &classifier);
    let mut state = AppState::new(entries, TriageBook::new(), KeyMap::default());
    update(&mut state, Msg::Resize(160, 48));
    update(&mut state, Msg::Key(Key::ch('/')));
    for ch in "status:fail".chars() {
        update(&mut state, Msg::Key(Key::ch(ch)));
    }
    state
}

fn filter_keystroke(c: &mut Criterion) {
    let theme = Theme::load("default").unwrap();
    let base = state_10k();
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    c.bench_function("filter_keystroke_10k_rows_redraw", |b| {
        b.iter_batched(
            || base.clone(),
            |mut state| {
                update(&mut state, Msg::Key(Key::ch('e')));
                draw(&state, &theme, &mut term);
                state
            },
            BatchSize::LargeInput,
        )
    });
}

fn load_10k(c: &mut Criterion) {
    let classifier = Classifier::embedded().unwrap();
    let commits = perftriage::synthetic::commits(10_000).unwrap();
    c.bench_function("join_and_build_board_10k", |b| {
        b.iter_batched(
            || commits.clone(),
            |commits| {
                let (entries, _) = dataset::join(commits, Default::default(), &classifier);
                AppState::new(entries, TriageBook::new(), KeyMap::default())
            },
            BatchSize::LargeInput,
        )
    });
}

fn classify_throughput(c: &mut Criterion) {
    let classifier = Classifier::embedded().unwrap();
    let log = perftriage::synthetic::vllm_log(500_000);
    let mut group = c.benchmark_group("classify");
    group.throughput(criterion::Throughput::Bytes(log.len() as u64));
    group.bench_function("bulk_50MB_log", |b| b.iter(|| black_box(classifier.classify(&log))));
    group.bench_function("live_line_by_line_50MB_log", |b| {
        b.iter(|| {
            let mut live = perftriage::classify::LiveClassifier::new(std::sync::Arc::new(classifier.clone()));
            log.lines().for_each(|l| live.feed(l));
            black_box(live.verdict())
        })
    });
    group.finish();
}

/// A board with a full 50,000-line log ring open, searched; drawn following and paused.
fn log_pane_draw(c: &mut Criterion) {
    let theme = Theme::load("default").unwrap();
    let classifier = Classifier::embedded().unwrap();
    let (entries, _) =
        dataset::join(dataset::load_embedded().unwrap().commits, Default::default(), &classifier);
    let mut state = AppState::new(entries, TriageBook::new(), KeyMap::default());
    update(&mut state, Msg::Resize(160, 48));
    let Some(perftriage::app::Effect::OpenLog { key, .. }) = update(&mut state, Msg::Key(Key::ch('L'))).pop()
    else {
        panic!("no log opened")
    };
    let mut decoder = perftriage::logs::Decoder::new(perftriage::logs::Stream::Stdout);
    let mut out = perftriage::logs::Output::default();
    decoder.feed(perftriage::synthetic::vllm_log(200_000).as_bytes(), &mut out);
    update(
        &mut state,
        Msg::Log(perftriage::app::LogMsg::Lines { key, lines: out.lines, skipped: 0, finished: false }),
    );
    update(&mut state, Msg::Key(Key::ch('/')));
    for ch in "aimv2".chars() {
        update(&mut state, Msg::Key(Key::ch(ch)));
    }
    update(&mut state, Msg::Key(Key::plain(perftriage::app::KeyCode::Enter)));
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    c.bench_function("log_pane_draw_160x48_following_50k_ring", |b| {
        b.iter(|| draw(&state, &theme, &mut term))
    });
    update(&mut state, Msg::Key(Key::ch('f')));
    c.bench_function("log_pane_draw_160x48_matches_only_sparse", |b| {
        b.iter(|| draw(&state, &theme, &mut term))
    });
    update(&mut state, Msg::Key(Key::ch('f')));
    update(&mut state, Msg::Key(Key::ch('n')));
    c.bench_function("log_pane_draw_160x48_paused_on_a_match", |b| {
        b.iter(|| draw(&state, &theme, &mut term))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = first_frame, filter_keystroke, load_10k, classify_throughput, log_pane_draw
}
criterion_main!(benches);
