//! Builds on the board, in process: `b` plans and confirms, the pane and the baseline cell follow
//! the job service's status, an OOM's suggested MAX_JOBS is what the next `b` builds with, `B`
//! takes knobs, and quitting stops a live build.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{chars, docker_up, enter, press, screen_of, state};
use perftriage::app::{
    AppState, BuildEnd, BuildStatus, Effect, JobKey, JobMsg, Key, Mode, Msg, Planned, Progress, update,
};
use perftriage::builds::KnobSet;

fn selected(s: &AppState) -> perftriage::ids::Short {
    s.board.selected_short().unwrap().clone()
}

/// `b`, the plan answered, `y`: the build is started; its `StartBuild` effect.
fn confirm_build(s: &mut AppState, key: char) -> Effect {
    let short = selected(s);
    let effects = press(s, Key::ch(key));
    let Some(Effect::PlanBuild { knobs, .. }) = effects.first().cloned() else { panic!("{effects:?}") };
    let plan = Ok(vec!["build plan line".into(), "expected time: unknown".into()]);
    update(s, Msg::Job(JobMsg::Planned(Planned::Build { short, knobs, plan })));
    assert!(matches!(s.mode, Mode::Confirm(_)), "{:?}", s.mode);
    let started = press(s, Key::ch('y'));
    started.into_iter().find(|e| matches!(e, Effect::StartBuild { .. })).expect("StartBuild")
}

#[test]
fn a_build_from_the_board_is_confirmed_watched_and_its_oom_suggestion_is_reused() {
    let mut s = state();
    docker_up(&mut s);
    let short = selected(&s);
    let Effect::StartBuild { knobs, .. } = confirm_build(&mut s, 'b') else { unreachable!() };
    assert_eq!(knobs, KnobSet::default());
    let status =
        "compile [21/35] 60% ETA 14s · 3 warnings · mem 310 MiB (peak 370 MiB) · cpu 190% · 41s".to_string();
    let progress = Progress::Build(BuildStatus { phase: "compile".into(), fraction: Some(0.6), status });
    update(&mut s, Msg::Job(JobMsg::Progress { job: JobKey::Build(short.clone()), progress }));
    update(&mut s, Msg::Tick("2026-11-22T02:00:01Z".into()));
    let screen = screen_of(&s, 160, 48);
    assert!(screen.contains("build 60%"), "the baseline cell: {screen}");
    assert!(screen.contains("compile 60%") && screen.contains("peak 370 MiB"), "the pane: {screen}");
    let change = perftriage::triage::Change::Built {
        outcome: "oom".into(),
        image: None,
        duration_s: 95,
        max_jobs: 8,
        log: None,
    };
    let lines = vec![
        "build FAILED after 1m35: out of memory (OOM kill): Killed signal terminated program cc1plus".into(),
    ];
    update(
        &mut s,
        Msg::Job(JobMsg::build_ended(
            short.clone(),
            BuildEnd { change: Some(change), lines, suggested_jobs: Some(4) },
        )),
    );
    assert!(screen_of(&s, 160, 48).contains("build FAILED after 1m35"));
    assert!(
        s.board
            .book
            .history(&short)
            .iter()
            .any(|h| h.change.describe().contains("baseline build (8 jobs, 95 s): oom"))
    );
    press(&mut s, Key::ctrl('w')); // the build's log has focus: back to the board
    let Effect::StartBuild { knobs, .. } = confirm_build(&mut s, 'b') else { unreachable!() };
    assert_eq!(knobs.max_jobs, Some(4), "the re-run takes the suggestion in one step");
}

#[test]
fn knobs_are_typed_for_a_build_and_a_wrong_one_is_named() {
    let mut s = state();
    press(&mut s, Key::ch('B'));
    chars(&mut s, "max_jobs=6 nvcc_threads=1");
    let effects = press(&mut s, enter());
    let Some(Effect::PlanBuild { knobs, .. }) = effects.first() else { panic!("{effects:?}") };
    assert_eq!((knobs.max_jobs, knobs.nvcc_threads), (Some(6), Some(1)));
    s.mode = Mode::Normal;
    press(&mut s, Key::ch('B'));
    chars(&mut s, "max_jbos=6");
    assert!(press(&mut s, enter()).is_empty());
    let message = s.session.message.as_ref().map(|m| m.1.clone()).unwrap_or_default();
    assert!(message.contains("`max_jbos` is not a build knob"), "{message}");
}

/// A build confirmed while the board is not connected to Docker waits and starts once it
/// connects, as queued runs and fixes do (the job service refused it, "Docker is not connected",
/// its log pane open and empty); `x` while it waits drops it, nothing asked of the job service.
#[test]
fn a_build_confirmed_before_docker_connects_starts_once_it_does() {
    let started =
        |effects: &[Effect]| effects.iter().filter(|e| matches!(e, Effect::StartBuild { .. })).count();
    let mut s = state();
    let short = selected(&s);
    let effects = press(&mut s, Key::ch('b'));
    let Some(Effect::PlanBuild { knobs, .. }) = effects.first().cloned() else { panic!("{effects:?}") };
    let plan = Ok(vec!["build plan line".into()]);
    update(&mut s, Msg::Job(JobMsg::Planned(Planned::Build { short: short.clone(), knobs, plan })));
    assert_eq!(started(&press(&mut s, Key::ch('y'))), 0, "nothing asked before Docker connects");
    assert!(s.session.message.as_ref().unwrap().1.contains("it starts when Docker connects"));
    assert_eq!(started(&docker_up(&mut s)), 1, "started once connected");
    assert_eq!(started(&docker_up(&mut s)), 0, "and only once");
    // Another commit's build, confirmed while the connection is lost, then cancelled.
    update(&mut s, Msg::Docker(perftriage::app::DockerMsg::Unreachable("gone".into())));
    press(&mut s, Key::ctrl('w')); // the build's log has focus: back to the board
    press(&mut s, Key::ch('j'));
    let other = selected(&s);
    assert_ne!(other, short);
    let effects = press(&mut s, Key::ch('b'));
    let Some(Effect::PlanBuild { knobs, .. }) = effects.first().cloned() else { panic!("{effects:?}") };
    let plan = Ok(vec!["build plan line".into()]);
    update(&mut s, Msg::Job(JobMsg::Planned(Planned::Build { short: other.clone(), knobs, plan })));
    assert_eq!(started(&press(&mut s, Key::ch('y'))), 0);
    press(&mut s, Key::ctrl('w'));
    press(&mut s, Key::ch('x'));
    assert!(press(&mut s, Key::ch('y')).is_empty(), "a waiting build is not the job service's to stop");
    assert!(!s.builds.by_commit[&other].live, "no longer live");
    assert_eq!(started(&docker_up(&mut s)), 0, "nor started later");
}

/// Quitting with a build that waits for Docker drops it and quits: it was sent to the job
/// service, which never started it and so never said it ended, and the board waited on it for
/// ever (and would have started it had Docker connected meanwhile).
#[test]
fn quitting_with_a_build_waiting_for_docker_drops_it_and_quits() {
    let mut s = state();
    let short = selected(&s);
    let effects = press(&mut s, Key::ch('b'));
    let Some(Effect::PlanBuild { knobs, .. }) = effects.first().cloned() else { panic!("{effects:?}") };
    let plan = Ok(vec!["build plan line".into()]);
    update(&mut s, Msg::Job(JobMsg::Planned(Planned::Build { short, knobs, plan })));
    assert!(press(&mut s, Key::ch('y')).is_empty(), "it waits for Docker");
    press(&mut s, Key::ctrl('w')); // the build's log has focus: back to the board
    press(&mut s, Key::ch('q'));
    assert!(matches!(s.mode, Mode::Confirm(_)), "a live build: asked first ({:?})", s.mode);
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(effects, [Effect::Quit], "dropped here, and nothing left to wait for");
    let started = docker_up(&mut s);
    assert!(started.iter().all(|e| !matches!(e, Effect::StartBuild { .. })), "never started: {started:?}");
}

#[test]
fn quitting_with_a_live_build_stops_it_first() {
    let mut s = state();
    docker_up(&mut s);
    let short = selected(&s);
    confirm_build(&mut s, 'b');
    update(&mut s, Msg::Tick("2026-11-22T02:00:01Z".into()));
    assert!(screen_of(&s, 160, 48).contains(" build start"), "the live cell");
    press(&mut s, Key::ch('q'));
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    assert!(
        confirm.preview.iter().any(|l| l.contains(&format!("{short} baseline build"))),
        "{:?}",
        confirm.preview
    );
    let effects = press(&mut s, Key::ch('y'));
    assert!(effects.contains(&Effect::Cancel(JobKey::Build(short.clone()))), "{effects:?}");
    let lines = vec!["build FAILED after 3s: cancelled: stopped; the container is removed".into()];
    let effects = update(
        &mut s,
        Msg::Job(JobMsg::build_ended(short.clone(), BuildEnd { change: None, lines, suggested_jobs: None })),
    );
    assert!(effects.contains(&Effect::Quit), "quits once the build is gone: {effects:?}");
    assert!(s.board.book.history(&short).is_empty(), "a stopped build is not recorded");
    update(&mut s, Msg::Tick("2026-11-22T02:00:02Z".into()));
    assert!(!screen_of(&s, 160, 48).contains(" build start"), "the cell is the row's again");
}

#[test]
fn the_command_line_builds_with_knobs() {
    let mut s = state();
    press(&mut s, Key::ch(':'));
    chars(&mut s, "build-with max_jobs=3 timeout_s=600");
    let effects = press(&mut s, enter());
    let Some(Effect::PlanBuild { knobs, .. }) = effects.first() else { panic!("{effects:?}") };
    assert_eq!((knobs.max_jobs, knobs.timeout_s), (Some(3), Some(600)));
}
