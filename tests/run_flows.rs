//! Launching, watching and cancelling runs on the board, over `update` alone.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{chars, enter, press, state};
use perftriage::app::{AppState, Effect, Key, Mode, Msg, update};
use perftriage::dataset::{Outcome, RunStatus, Variant};
use perftriage::metrics::Metrics;
use perftriage::runs::{Pane, RunPhase};

fn select(s: &mut AppState, short: &str) {
    press(s, Key::ch('/'));
    chars(s, short);
    press(s, enter());
}

fn cell(s: &AppState, short: &str, v: Variant) -> String {
    s.rows.iter().find(|r| r.short == short).unwrap().cells[v as usize].text.clone()
}

#[test]
fn choose_confirm_and_watch_a_run_go_live_to_done() {
    let mut s = state();
    select(&mut s, "7c01f706");
    press(&mut s, Key::ch('r'));
    assert_eq!(s.mode, Mode::Choose("7c01f706".into()));
    press(&mut s, Key::ch('h'));
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    assert!(
        confirm
            .preview
            .iter()
            .any(|l| l.contains("anonymous/vllm-bench:7c01f706418d593b3cf23d2ec9110dca7151c539"))
    );
    assert!(confirm.preview.iter().any(|l| l.starts_with("command: python benchmarks/benchmark_serving.py")));
    assert!(press(&mut s, enter()).is_empty(), "Enter on the default button cancels");
    press(&mut s, Key::ch('r'));
    press(&mut s, Key::ch('h'));
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::StartRun { run_id, short, variant, .. }] = effects.as_slice() else { panic!("{effects:?}") };
    assert_eq!((short.as_str(), *variant), ("7c01f706", Variant::Human));
    assert!(cell(&s, "7c01f706", Variant::Human).starts_with("▶ queued"));
    let run_id = run_id.clone();
    update(&mut s, Msg::RunPhase { run_id: run_id.clone(), phase: RunPhase::Starting });
    update(&mut s, Msg::Tick("t".into()));
    update(&mut s, Msg::Tick("t".into()));
    assert_eq!(cell(&s, "7c01f706", Variant::Human), "▶ starting 2s");
    let line = perftriage::logs::Line {
        text: "INFO:     Application startup complete.".into(),
        ..Default::default()
    };
    update(&mut s, Msg::RunLines { run_id: run_id.clone(), pane: Pane::Server, lines: vec![line] });
    press(&mut s, Key::ch('L'));
    assert_eq!(s.focus_run, Some((run_id.clone(), Pane::Server)));
    press(&mut s, Key::ch('o'));
    assert_eq!(s.focus_run, Some((run_id.clone(), Pane::Benchmark)));
    let metrics: Metrics = [("tpot_mean".to_string(), 1.25)].into_iter().collect();
    update(
        &mut s,
        Msg::RunPhase { run_id: run_id.clone(), phase: RunPhase::Done { metrics: metrics.clone() } },
    );
    let outcome = Outcome {
        status: RunStatus::Success,
        source: Some("ws/results/x.json".into()),
        error: None,
        metrics,
        fixes: Vec::new(),
    };
    update(&mut s, Msg::RunFinished { run_id, outcome, verdict: None });
    assert_eq!(cell(&s, "7c01f706", Variant::Human), "✓ 1.25 ms");
    assert!(s.runs[0].server.finished);
}

#[test]
fn all_three_queue_in_order_and_cancel_needs_a_confirm() {
    let mut s = state();
    select(&mut s, "22dd9c27");
    press(&mut s, Key::ch('r'));
    press(&mut s, Key::ch('3'));
    let effects = press(&mut s, Key::ch('y'));
    let order: Vec<Variant> = effects
        .iter()
        .map(|e| if let Effect::StartRun { variant, .. } = e { *variant } else { panic!() })
        .collect();
    assert_eq!(order, Variant::ALL.to_vec());
    press(&mut s, Key::ch('x'));
    let Mode::Confirm(confirm) = &s.mode else { panic!() };
    assert!(confirm.title.starts_with("Cancel 22dd9c27"));
    assert!(press(&mut s, Key::plain(perftriage::app::KeyCode::Esc)).is_empty());
    press(&mut s, Key::ch('x'));
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::CancelRun { run_id }] = effects.as_slice() else { panic!("{effects:?}") };
    // A cancelled run keeps the variant's previous outcome.
    let before = s.entries.iter().find(|e| e.commit.short == "22dd9c27").unwrap().variants[2].outcome.clone();
    update(&mut s, Msg::RunPhase { run_id: run_id.clone(), phase: RunPhase::Cancelled });
    let error = Outcome {
        status: RunStatus::Error,
        source: None,
        error: Some("cancelled".into()),
        metrics: Metrics::new(),
        fixes: Vec::new(),
    };
    update(&mut s, Msg::RunFinished { run_id: run_id.clone(), outcome: error, verdict: None });
    let after = &s.entries.iter().find(|e| e.commit.short == "22dd9c27").unwrap().variants[2].outcome;
    assert_eq!(&before, after);
}

#[test]
fn docker_status_and_reattached_runs_show_on_the_board() {
    let mut s = state();
    update(&mut s, Msg::Docker(perftriage::app::DockerStatus::Unreachable("no socket".into())));
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    term.draw(|f| perftriage::ui::view(f, &s, &theme)).unwrap();
    let top: String = term.backend().buffer().content.iter().take(160).map(|c| c.symbol()).collect();
    assert!(top.contains("Docker: unreachable: no socket"), "{top}");
    update(
        &mut s,
        Msg::RunFound { run_id: "old1".into(), short: "015069b0".into(), variant: Variant::Agent },
    );
    assert!(s.runs[0].reattached);
    assert!(cell(&s, "015069b0", Variant::Agent).starts_with("▶ benching"));
}
