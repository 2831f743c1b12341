//! Launching, watching and cancelling runs on the board, over `update` alone.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::{Planner, chars, docker_up, enter, state};
use perftriage::app::{
    AppState, DockerMsg, Effect, Found, JobKey, JobMsg, Key, Mode, Msg, Planned, Reread, update,
};
use perftriage::dataset::{Outcome, RunStatus, Variant};
use perftriage::metrics::Metrics;
use perftriage::runs::{AutoRepeat, FailureKind, Pane, RepeatPlan, RunPhase};

thread_local! {
    static PLANNER: std::cell::RefCell<Planner> = std::cell::RefCell::new(Planner::new());
}

/// A key press whose run confirms are planned by a real job service, as on the board.
fn press(s: &mut AppState, key: Key) -> Vec<Effect> {
    PLANNER.with(|p| p.borrow_mut().press(s, key))
}

fn select(s: &mut AppState, short: &str) {
    press(s, Key::ch('/'));
    chars(s, short);
    press(s, enter());
}

fn cell(s: &AppState, short: &str, v: Variant) -> String {
    s.board.rows.iter().find(|r| r.short == short).unwrap().cells[v as usize].text.clone()
}

/// `+` past 10 offers `auto`; the run it queues asks its question of the board's recorded runs:
/// the human against the baseline's samples of the commit's primary metric.
#[test]
fn plus_past_ten_runs_offers_auto_measured_against_the_partners_recorded_samples() {
    let mut s = state();
    docker_up(&mut s);
    let recorded = vec![21.5, 21.9, 21.7];
    let at = s.board.entry_index("7c01f706").unwrap();
    let baseline = &mut s.board.entries[at].variants[Variant::Baseline as usize].outcome;
    baseline.samples.insert("tpot_mean".into(), recorded.clone());
    select(&mut s, "7c01f706");
    press(&mut s, Key::ch('r'));
    press(&mut s, Key::ch('h'));
    for _ in 0..4 {
        press(&mut s, Key::ch('+'));
    }
    let Mode::Confirm(confirm) = &s.mode else { panic!("a confirm") };
    let line = confirm.preview.iter().find(|l| l.starts_with("benchmark runs: ")).unwrap();
    assert!(
        line.starts_with("benchmark runs: auto: a warm-up, then 3 to 10 against one server start"),
        "{line}"
    );
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::StartRun { request, .. }] = effects.as_slice() else { panic!("{effects:?}") };
    let RepeatPlan::Auto(AutoRepeat { max, metric, partner, against }) = &request.repeat else {
        panic!("{:?}", request.repeat)
    };
    assert_eq!((*max, metric.as_str(), *partner), (10, "tpot_mean", Variant::Baseline));
    assert_eq!(against, &recorded, "the baseline's recorded runs are what it is measured against");
    press(&mut s, Key::ch('r'));
    press(&mut s, Key::ch('h'));
    for _ in 0..5 {
        press(&mut s, Key::ch('+'));
    }
    let Mode::Confirm(confirm) = &s.mode else { panic!("a confirm") };
    assert!(confirm.preview.iter().any(|l| l.starts_with("benchmark runs: a single run")), "after auto, 1");
}

#[test]
fn choose_confirm_and_watch_a_run_go_live_to_done() {
    let mut s = state();
    docker_up(&mut s);
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
    let command = confirm.preview.iter().find(|l| l.starts_with("  command: ")).unwrap();
    assert!(command.contains("benchmarks/benchmark_serving.py"), "{command}");
    assert!(press(&mut s, enter()).is_empty(), "Enter on the default button cancels");
    press(&mut s, Key::ch('r'));
    press(&mut s, Key::ch('h'));
    press(&mut s, Key::ch('+'));
    let perftriage::app::Mode::Confirm(confirm) = &s.mode else { panic!("a confirm") };
    assert!(confirm.preview.iter().any(|l| l.starts_with("benchmark runs: 3 against one server start")));
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::StartRun { run_id, request }] = effects.as_slice() else { panic!("{effects:?}") };
    assert_eq!((request.short.as_str(), request.variant), ("7c01f706", Variant::Human));
    assert_eq!(request.repeat, RepeatPlan::Times(3), "+ in the confirm: three benchmark runs");
    assert!(cell(&s, "7c01f706", Variant::Human).contains(" queued "));
    let run_id = run_id.clone();
    update(&mut s, Msg::Job(JobMsg::phase(&run_id, RunPhase::Starting)));
    update(&mut s, Msg::Tick("t".into()));
    update(&mut s, Msg::Tick("t".into()));
    let before = cell(&s, "7c01f706", Variant::Human);
    assert!(before.ends_with(" start 2s"), "{before}");
    update(&mut s, Msg::Tick("t".into()));
    let after = cell(&s, "7c01f706", Variant::Human);
    assert!(
        after.ends_with(" start 3s") && after.chars().next() != before.chars().next(),
        "it moves: {after}"
    );
    let line = perftriage::logs::Line {
        text: "INFO:     Application startup complete.".into(),
        ..Default::default()
    };
    update(&mut s, Msg::Job(JobMsg::lines(&run_id, Pane::Server, vec![line])));
    press(&mut s, Key::ch('L'));
    assert_eq!(s.logs.run_pane, Some((run_id.clone(), Pane::Server)));
    press(&mut s, Key::ch('o'));
    assert_eq!(s.logs.run_pane, Some((run_id.clone(), Pane::Benchmark)));
    let metrics: Metrics = [("tpot_mean".to_string(), 1.25)].into_iter().collect();
    update(&mut s, Msg::Job(JobMsg::phase(&run_id, RunPhase::Done { metrics: metrics.clone() })));
    let outcome = Outcome { status: RunStatus::Success, metrics, ..Outcome::not_run() };
    let effects = update(&mut s, Msg::Job(JobMsg::run_ended(&run_id, outcome, None)));
    assert_eq!(cell(&s, "7c01f706", Variant::Human), "✓ 1.25 ms");
    assert!(s.runs.list[0].server.finished);
    assert_eq!(
        effects,
        vec![Effect::WriteResult { run_id: run_id.clone(), gpu: None }],
        "the result file next"
    );
    let source = Ok("ws/results/x.json".to_string());
    update(&mut s, Msg::Job(JobMsg::Recorded { run_id, source, reread: None }));
    let entry = s.board.entries.iter().find(|e| e.commit.short == "7c01f706").unwrap();
    assert_eq!(entry.variants[1].outcome.source.as_deref(), Some("ws/results/x.json"));
}

#[test]
fn all_three_queue_in_order_and_cancel_needs_a_confirm() {
    let mut s = state();
    s.runs.concurrency = 3;
    docker_up(&mut s);
    select(&mut s, "22dd9c27");
    press(&mut s, Key::ch('r'));
    press(&mut s, Key::ch('3'));
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(started(&effects), Variant::ALL.to_vec());
    press(&mut s, Key::ch('x'));
    let Mode::Confirm(confirm) = &s.mode else { panic!() };
    assert!(confirm.title.starts_with("Cancel 22dd9c27"));
    assert!(press(&mut s, Key::plain(perftriage::app::KeyCode::Esc)).is_empty());
    press(&mut s, Key::ch('x'));
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::Cancel(JobKey::Run(run_id))] = effects.as_slice() else { panic!("{effects:?}") };
    // A cancelled run keeps the variant's previous outcome.
    let before =
        s.board.entries.iter().find(|e| e.commit.short == "22dd9c27").unwrap().variants[2].outcome.clone();
    update(&mut s, Msg::Job(JobMsg::phase(run_id, RunPhase::Cancelled)));
    let error = Outcome { status: RunStatus::Error, error: Some("cancelled".into()), ..Outcome::not_run() };
    let effects = update(&mut s, Msg::Job(JobMsg::run_ended(run_id, error, None)));
    assert!(effects.is_empty(), "a cancelled run writes no result: {effects:?}");
    let after = &s.board.entries.iter().find(|e| e.commit.short == "22dd9c27").unwrap().variants[2].outcome;
    assert_eq!(&before, after);
}

#[test]
fn docker_status_and_reattached_runs_show_on_the_board() {
    let mut s = state();
    update(&mut s, Msg::Docker(DockerMsg::Unreachable("no socket".into())));
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    term.draw(|f| perftriage::ui::view(f, &s, &theme)).unwrap();
    let top: String = term.backend().buffer().content.iter().take(160).map(|c| c.symbol()).collect();
    assert!(top.contains("Docker: unreachable: no socket"), "{top}");
    let launch = launched("old1", "015069b0", Variant::Agent);
    let found = |container: &str| {
        let found = found_run("old1", "015069b0", Variant::Agent, container);
        Msg::Job(JobMsg::Found(Found::Container { found, launch: Ok(Box::new(launch.clone())) }))
    };
    let effects = update(&mut s, found("c0ffee"));
    assert!(s.runs.list[0].reattached);
    assert!(cell(&s, "015069b0", Variant::Agent).contains(" start "));
    let [Effect::ResumeRun { found: picked, launch: resumed }] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(
        (picked.run_id.as_str(), picked.container.as_str(), picked.created),
        ("old1", "c0ffee", 1_700_000_000),
        "picked up where it is"
    );
    assert_eq!(**resumed, launch, "with what it was launched with");
    let run = &s.runs.list[0];
    assert_eq!(run.image.as_deref(), Some("perftriage-fixed:015069b0-agent"), "its real image");
    assert_eq!(run.request.fixes, ["numpy_lt_2"]);
    assert_eq!(run.request.repeat, RepeatPlan::Times(3));
    assert!(update(&mut s, found("c0ffee")).is_empty(), "found twice, picked up once");
    select(&mut s, "015069b0");
    press(&mut s, Key::ch('x'));
    assert!(
        matches!(press(&mut s, Key::ch('y')).as_slice(), [Effect::Cancel(JobKey::Run(_))]),
        "and it can be cancelled"
    );
}

/// A container of ours found running.
fn found_run(run_id: &str, short: &str, variant: Variant, container: &str) -> perftriage::runs::FoundRun {
    let (run_id, short, container) = (run_id.into(), short.into(), container.into());
    perftriage::runs::FoundRun { run_id, short, variant, container, created: 1_700_000_000, host: None }
}

/// The launch record of a run of `short`'s `variant` in a fixed image, three runs a start.
fn launched(run_id: &str, short: &str, variant: Variant) -> perftriage::runs::Launch {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(format!("{short}.patch")), "").unwrap();
    let config = perftriage::runs::RunConfig { patches: Some(dir.path().into()), ..Default::default() };
    let commit = perftriage::dataset::load_embedded().unwrap().commits.into_iter().find(|c| c.short == short);
    let plan = perftriage::runs::plan(
        &commit.unwrap(),
        variant,
        &config,
        &Default::default(),
        dir.path(),
        &run_id.into(),
    )
    .unwrap()
    .with_fixed_image(
        format!("perftriage-fixed:{short}-{}", variant.name()).into(),
        vec!["numpy_lt_2".into()],
    );
    let mut plan = plan;
    plan.repeat = 3;
    perftriage::runs::Launch::new(&plan, Some("sha256:feed".into()), None, "2026-11-27T01:00:00Z".into())
}

#[test]
fn a_container_found_without_a_launch_record_is_shown_cancellable_and_never_resumed() {
    let mut s = state();
    let found = found_run("old2", "015069b0", Variant::Human, "c0ffee");
    let why =
        "the container has no launch record (no perftriage.launch label: started before records were kept)";
    let effects =
        update(&mut s, Msg::Job(JobMsg::Found(Found::Container { found, launch: Err(why.into()) })));
    assert!(effects.is_empty(), "nothing resumes it, so nothing records it: {effects:?}");
    assert_eq!(s.runs.list[0].phase, RunPhase::Unrecorded { why: why.into() });
    assert!(
        cell(&s, "015069b0", Variant::Human).contains("norec"),
        "{}",
        cell(&s, "015069b0", Variant::Human)
    );
    select(&mut s, "015069b0");
    press(&mut s, Key::ch('x'));
    let effects = press(&mut s, Key::ch('y'));
    assert!(matches!(effects.as_slice(), [Effect::Cancel(JobKey::Run(_))]), "x removes it: {effects:?}");
}

/// The variants of the runs these effects start, in order.
fn started(effects: &[Effect]) -> Vec<Variant> {
    effects
        .iter()
        .filter_map(|e| if let Effect::StartRun { request, .. } = e { Some(request.variant) } else { None })
        .collect()
}

fn run_id_of(effects: &[Effect]) -> Vec<perftriage::runs::RunId> {
    effects
        .iter()
        .filter_map(|e| if let Effect::StartRun { run_id, .. } = e { Some(run_id.clone()) } else { None })
        .collect()
}

/// The run ends: its slot is free.
fn finish(s: &mut AppState, run_id: &str) -> Vec<Effect> {
    let phase = RunPhase::Failed { category: FailureKind::Signature("aimv2".into()), message: "x".into() };
    let mut effects = update(s, Msg::Job(JobMsg::phase(&run_id.into(), phase)));
    let outcome = Outcome { status: RunStatus::Error, error: Some("x".into()), ..Outcome::not_run() };
    effects.extend(update(s, Msg::Job(JobMsg::run_ended(&run_id.into(), outcome, None))));
    effects
}

fn queue_all_three(s: &mut AppState, short: &str) -> Vec<Effect> {
    select(s, short);
    press(s, Key::ch('r'));
    press(s, Key::ch('3'));
    press(s, Key::ch('y'))
}

#[test]
fn the_queue_starts_one_run_at_a_time_by_default() {
    let mut s = state();
    docker_up(&mut s);
    let first = queue_all_three(&mut s, "22dd9c27");
    assert_eq!(started(&first), [Variant::Baseline]);
    assert_eq!(s.runs.queue.len(), 2);
    assert!(cell(&s, "22dd9c27", Variant::Agent).contains(" queued "));
    let next = finish(&mut s, &run_id_of(&first)[0]);
    assert_eq!(started(&next), [Variant::Human], "the slot goes to the next in line: {next:?}");
    assert!(update(&mut s, Msg::Tick("t".into())).is_empty(), "no slot is free: nothing else starts");
}

#[test]
fn concurrency_two_runs_two_at_once() {
    let mut s = state();
    s.runs.concurrency = 2;
    docker_up(&mut s);
    let first = queue_all_three(&mut s, "22dd9c27");
    assert_eq!(started(&first), [Variant::Baseline, Variant::Human]);
    assert_eq!(s.runs.active(), 2);
    let next = finish(&mut s, &run_id_of(&first)[1]);
    assert_eq!(started(&next), [Variant::Agent]);
    assert_eq!(s.runs.active(), 2);
}

#[test]
fn cancelling_a_queued_run_takes_it_out_of_the_queue_without_docker() {
    let mut s = state();
    docker_up(&mut s);
    let first = queue_all_three(&mut s, "22dd9c27");
    let queued = s.runs.queue[0].clone();
    let effects = update(&mut s, Msg::Job(JobMsg::phase(&"none".into(), RunPhase::Starting)));
    assert!(effects.is_empty());
    // `x` cancels the newest live run of the commit: the agent run, still queued.
    press(&mut s, Key::ch('x'));
    let effects = press(&mut s, Key::ch('y'));
    assert!(effects.is_empty(), "a queued run needs no container to stop: {effects:?}");
    assert_eq!(s.runs.queue.len(), 1);
    assert_eq!(s.runs.get(&s.runs.list[2].run_id.clone()).unwrap().phase, RunPhase::Cancelled);
    let next = finish(&mut s, &run_id_of(&first)[0]);
    assert_eq!(run_id_of(&next), [queued], "the human run is next; the cancelled agent run never starts");
    assert!(s.runs.queue.is_empty());
}

#[test]
fn runs_wait_for_docker_and_a_reconnect_resumes_the_queue() {
    let mut s = state();
    update(&mut s, Msg::Docker(DockerMsg::Unreachable("no socket".into())));
    let effects = queue_all_three(&mut s, "22dd9c27");
    assert!(started(&effects).is_empty(), "nothing starts without Docker");
    assert!(s.session.message.as_ref().unwrap().1.contains("waiting for Docker"));
    assert_eq!(s.runs.queue.len(), 3);
    let effects = docker_up(&mut s);
    assert_eq!(started(&effects), [Variant::Baseline], "the connection starts the queue");
    update(&mut s, Msg::Docker(DockerMsg::Unreachable("the daemon stopped answering".into())));
    let effects = finish(&mut s, &run_id_of(&effects)[0]);
    assert!(started(&effects).is_empty(), "Docker is gone again: the queue waits");
    assert_eq!(started(&docker_up(&mut s)), [Variant::Human]);
}

#[test]
fn quitting_with_live_runs_asks_and_stops_them_before_quitting_or_leaves_them() {
    let mut s = state();
    docker_up(&mut s);
    let first = queue_all_three(&mut s, "22dd9c27");
    assert!(press(&mut s, Key::ch('q')).is_empty(), "no quit while runs are live");
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    assert!(confirm.preview.iter().any(|l| l.contains("L leaves them running")), "{:?}", confirm.preview);
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(
        effects,
        vec![Effect::Cancel(JobKey::Run(run_id_of(&first)[0].clone()))],
        "queued ones just leave the queue"
    );
    let phase = RunPhase::Cancelled;
    let effects = update(&mut s, Msg::Job(JobMsg::phase(&run_id_of(&first)[0], phase)));
    assert_eq!(effects, vec![Effect::Quit], "quits once the container is gone");

    let mut s = state();
    docker_up(&mut s);
    queue_all_three(&mut s, "22dd9c27");
    press(&mut s, Key::ch('q'));
    assert!(press(&mut s, Key::plain(perftriage::app::KeyCode::Esc)).is_empty());
    assert_eq!(s.mode, Mode::Normal);
    press(&mut s, Key::ch('q'));
    assert_eq!(press(&mut s, Key::ch('L')), vec![Effect::Quit], "left running, re-attached next time");
}

/// The dialog's last row of buttons, drawn at `width` columns.
fn confirm_buttons(s: &AppState, width: u16) -> String {
    let screen = common::screen_of(s, width, 40);
    screen.lines().rfind(|r| r.contains("] Cancel")).unwrap_or_default().to_string()
}

#[test]
fn the_quit_confirm_with_live_runs_shows_its_leave_running_button() {
    let mut s = state();
    docker_up(&mut s);
    queue_all_three(&mut s, "22dd9c27");
    press(&mut s, Key::ch('q'));
    let buttons = confirm_buttons(&s, 120);
    assert!(buttons.contains("[y] Yes") && buttons.contains("[L] Leave running"), "{buttons}");
    assert!(buttons.find("Leave running") < buttons.find("Cancel"), "{buttons}");
    // Other confirms keep their two answers.
    press(&mut s, Key::plain(perftriage::app::KeyCode::Esc));
    press(&mut s, Key::ch('x'));
    assert!(!confirm_buttons(&s, 120).contains("Leave running"), "{}", confirm_buttons(&s, 120));
}

#[test]
fn containers_left_by_a_perftriage_that_is_gone_are_offered_for_removal() {
    let mut s = state();
    let orphan = perftriage::runs::Orphan {
        id: "abc123".into(),
        name: "perftriage-22dd9c27-human-x".into(),
        run_id: "x".into(),
        short: "22dd9c27".into(),
        variant: "human".into(),
        running: true,
    };
    update(&mut s, Msg::Docker(DockerMsg::Orphans(vec![orphan])));
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    assert!(confirm.preview.iter().any(|l| l.contains("perftriage-22dd9c27-human-x")));
    assert_eq!(press(&mut s, Key::ch('y')), vec![Effect::RemoveContainers(vec!["abc123".into()])]);
    update(&mut s, Msg::Docker(DockerMsg::Orphans(Vec::new())));
    assert_eq!(s.mode, Mode::Normal, "nothing left behind, nothing asked");
}

#[test]
fn a_run_whose_connection_is_lost_stays_live_and_holds_its_slot() {
    let mut s = state();
    docker_up(&mut s);
    let first = queue_all_three(&mut s, "22dd9c27");
    let message = "the Docker connection is lost".to_string();
    let effects =
        update(&mut s, Msg::Job(JobMsg::phase(&run_id_of(&first)[0], RunPhase::ConnectionLost { message })));
    assert!(started(&effects).is_empty(), "the queue waits: the container may still run");
    assert!(cell(&s, "22dd9c27", Variant::Baseline).contains(" lost "));
    assert!(s.runs.is_live());
}

#[test]
fn a_live_cell_never_outgrows_its_column() {
    use perftriage::app::compact_duration;
    for secs in [0, 59, 60, 599, 600, 3599, 3600, 86_399] {
        let text = format!("⠹ cancel {}", compact_duration(secs));
        assert!(text.chars().count() <= 13, "{text}");
    }
    assert_eq!(compact_duration(11), "11s");
    assert_eq!(compact_duration(545), "9m05");
    assert_eq!(compact_duration(7500), "2h05");
}

/// The confirm shows what the executor will run: the override image, the configured GPUs, the
/// commit the benchmark scripts come from (the parent for a baseline, not the PR commit).
#[test]
fn the_run_confirm_shows_the_plan_that_runs_not_the_dataset() {
    let mut config = perftriage::runs::RunConfig { gpus: "none".into(), ..Default::default() };
    config.image_overrides.insert("7c01f706".into(), "registry.local/fixed:7c01".into());
    let mut planner = Planner::with_config(config);
    let mut s = state();
    docker_up(&mut s);
    select(&mut s, "7c01f706");
    planner.press(&mut s, Key::ch('r'));
    planner.press(&mut s, Key::ch('b'));
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    let text = confirm.preview.join("\n");
    assert!(text.contains("B baseline: registry.local/fixed:7c01"), "{text}");
    assert!(text.contains("GPUs: none"), "{text}");
    let parent =
        s.board.entries.iter().find(|e| e.commit.short == "7c01f706").unwrap().commit.parent.clone().unwrap();
    assert!(text.contains(&format!("benchmarks/ from {} (the parent commit)", &parent[..12])), "{text}");
}

/// An override is the commit's image for all three variants: the agent's patch goes on the image
/// its baseline runs in (the agent once ran in the baseline template's image instead, measured
/// against a baseline that ran elsewhere).
#[test]
fn an_image_override_is_the_agents_image_too() {
    let dir = tempfile::tempdir().unwrap();
    let commits = perftriage::dataset::load_embedded().unwrap().commits;
    let commit = commits.iter().find(|c| c.short == "7c01f706").unwrap();
    std::fs::write(dir.path().join("7c01f706.diff"), "--- a/x\n+++ b/x\n").unwrap();
    let mut config = perftriage::runs::RunConfig { patches: Some(dir.path().into()), ..Default::default() };
    config.image_overrides.insert("7c01f706".into(), "registry.local/fixed:7c01".into());
    let images = perftriage::dataset::ImageTemplates::default();
    for v in Variant::ALL {
        let plan = perftriage::runs::plan(commit, v, &config, &images, dir.path(), &"r1".into()).unwrap();
        assert_eq!(plan.image, "registry.local/fixed:7c01", "{v:?}");
    }
}

#[test]
fn a_failed_run_posts_an_error_naming_its_category_and_every_message_is_kept_in_the_log() {
    let mut s = state();
    docker_up(&mut s);
    s.session.log(perftriage::app::Level::Warn, "a load warning".into());
    select(&mut s, "7c01f706");
    press(&mut s, Key::ch('r'));
    press(&mut s, Key::ch('h'));
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::StartRun { run_id, .. }] = effects.as_slice() else { panic!("{effects:?}") };
    let outcome =
        Outcome { status: RunStatus::Error, error: Some("Server crashed".into()), ..Outcome::not_run() };
    let classifier = perftriage::classify::Classifier::embedded().unwrap();
    let verdict = classifier.classify("ValueError: 'aimv2' is already used by a Transformers config");
    let run_id = run_id.clone();
    update(&mut s, Msg::Job(JobMsg::run_ended(&run_id, outcome, verdict)));
    let (level, text) = s.session.message.clone().unwrap();
    assert_eq!(level, perftriage::app::Level::Error);
    assert!(text.contains("7c01f706 human failed: aimv2"), "{text}");
    for _ in 0..25 {
        update(&mut s, Msg::Tick("t".into()));
    }
    assert!(s.session.message.is_none(), "a toast goes after a while");
    press(&mut s, Key::ch('M'));
    assert_eq!(s.mode, Mode::Messages);
    for (w, h) in [(80, 24), (160, 48)] {
        insta::assert_snapshot!(format!("message_log_{w}x{h}"), common::screen_of(&s, w, h));
    }
    let log: Vec<&str> = s.session.messages.iter().map(|(_, _, t)| t.as_str()).collect();
    assert!(log.contains(&"a load warning") && log.iter().any(|t| t.contains("failed: aimv2")), "{log:?}");
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    term.draw(|f| perftriage::ui::view(f, &s, &theme)).unwrap();
    let text: String = term.backend().buffer().content.iter().map(|c| c.symbol()).collect();
    assert!(text.contains("Messages (") && text.contains("a load warning"), "the overlay shows the log");
}

#[test]
fn a_set_up_failure_on_the_board_records_nothing_over_the_variant() {
    let mut s = state();
    docker_up(&mut s);
    select(&mut s, "7c01f706");
    let before = s.board.entries.iter().find(|e| e.commit.short == "7c01f706").unwrap().variants[1].clone();
    press(&mut s, Key::ch('r'));
    press(&mut s, Key::ch('h'));
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::StartRun { run_id, .. }] = effects.as_slice() else { panic!("{effects:?}") };
    let run_id = run_id.clone();
    let phase = RunPhase::Failed {
        category: FailureKind::ScriptsMissing,
        message: "commit not in the checkout".into(),
    };
    update(&mut s, Msg::Job(JobMsg::phase(&run_id, phase)));
    let outcome = Outcome {
        status: RunStatus::Error,
        error: Some("commit not in the checkout".into()),
        ..Outcome::not_run()
    };
    let effects = update(&mut s, Msg::Job(JobMsg::run_ended(&run_id, outcome, None)));
    assert!(effects.iter().all(|e| !matches!(e, Effect::WriteResult { .. })), "{effects:?}");
    let after = s.board.entries.iter().find(|e| e.commit.short == "7c01f706").unwrap().variants[1].clone();
    assert_eq!(after, before);
    assert!(s.session.message.as_ref().unwrap().1.contains("set-up error (scripts_missing)"));
    assert!(!cell(&s, "7c01f706", Variant::Human).contains("start"), "the cell no longer shows the run");
}

/// After a run fails on the board, its variant is the one the row, `f` and `L` are about (they
/// stayed on the recorded failing variant before); `b`/`h`/`a` inside them choose another.
#[test]
fn the_variant_just_run_leads_and_b_h_a_choose_another_in_f_and_l() {
    let mut s = state();
    docker_up(&mut s);
    select(&mut s, "35fad35a");
    let row = |s: &AppState| s.board.rows.iter().find(|r| r.short == "35fad35a").unwrap().clone();
    let recorded_category = row(&s).category.clone();
    press(&mut s, Key::ch('r'));
    press(&mut s, Key::ch('h'));
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::StartRun { run_id, .. }] = effects.as_slice() else { panic!("{effects:?}") };
    let classifier = perftriage::classify::Classifier::embedded().unwrap();
    let verdict = classifier.classify("ModuleNotFoundError: No module named 'vllm.vllm_flash_attn.fa_utils'");
    let category = verdict.as_ref().unwrap().category.clone();
    assert_ne!(category, recorded_category);
    let outcome = Outcome { status: RunStatus::Error, error: Some("fa_utils".into()), ..Outcome::not_run() };
    update(&mut s, Msg::Job(JobMsg::run_ended(run_id, outcome, verdict)));
    assert_eq!(row(&s).category, category, "the row follows the run just made");
    let effects = press(&mut s, Key::ch('f'));
    assert!(
        matches!(effects.as_slice(), [Effect::ProbeFixes { variant: Variant::Human, .. }]),
        "{effects:?}"
    );
    let effects = press(&mut s, Key::ch('b'));
    assert!(
        matches!(effects.as_slice(), [Effect::ProbeFixes { variant: Variant::Baseline, .. }]),
        "{effects:?}"
    );
    press(&mut s, Key::ch('q'));
    press(&mut s, Key::ch('L'));
    let (run, _) = s.logs.run_pane.clone().expect("L opens the run just made");
    assert_eq!(&run, run_id);
    let effects = press(&mut s, Key::ch('a'));
    assert!(
        matches!(effects.as_slice(), [Effect::OpenLog { key, .. }] if key.variant == Variant::Agent),
        "{effects:?}"
    );
}

#[test]
fn the_runs_view_lists_runs_and_cancels_or_opens_them() {
    let mut s = state();
    s.runs.concurrency = 1;
    docker_up(&mut s);
    update(&mut s, Msg::Tick("2026-11-22T02:00:00Z".into()));
    queue_all_three(&mut s, "22dd9c27");
    let baseline = s.runs.list[0].run_id.clone();
    let image = "perftriage-fixed-local:22dd9c27-baseline".to_string();
    update(&mut s, Msg::Job(JobMsg::phase(&baseline, RunPhase::Creating { image: image.into() })));
    press(&mut s, Key::ch('R'));
    assert_eq!(s.mode, Mode::Runs(0));
    for (w, h) in [(80, 24), (160, 48)] {
        let shown = common::screen_of(&s, w, h);
        assert!(shown.contains("Runs: 1 running, 2 queued"), "{shown}");
        assert!(shown.contains("creating") && shown.contains("no container yet"), "{shown}");
        insta::assert_snapshot!(format!("runs_view_{w}x{h}"), shown);
    }
    press(&mut s, Key::ch('x'));
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    assert!(confirm.title.starts_with("Cancel 22dd9c27 agent"), "newest first: {}", confirm.title);
    press(&mut s, Key::plain(perftriage::app::KeyCode::Esc));
    press(&mut s, Key::ch('R'));
    press(&mut s, Key::ch('j'));
    press(&mut s, Key::ch('j'));
    press(&mut s, enter());
    assert_eq!(s.mode, Mode::Normal);
    let (run, _) = s.logs.run_pane.clone().unwrap();
    assert_eq!(s.runs.get(&run).unwrap().variant(), Variant::Baseline);
}

/// Keys typed while the runs are being planned are not board keys (a fast `r h y` used to copy
/// the hash); the confirm comes when the plan does, and Esc gives up.
#[test]
fn keys_typed_while_a_run_is_planned_wait_for_its_confirm() {
    let mut s = state();
    docker_up(&mut s);
    select(&mut s, "7c01f706");
    common::press(&mut s, Key::ch('r'));
    let effects = common::press(&mut s, Key::ch('h'));
    let [Effect::PlanRuns { short, requests }] = effects.as_slice() else { panic!("{effects:?}") };
    assert_eq!((short.as_str(), requests.len()), ("7c01f706", 1));
    assert!(common::press(&mut s, Key::ch('y')).is_empty(), "not a board key while planning");
    let plans = vec![(Variant::Human, Ok(vec!["H human: img".to_string()]))];
    update(
        &mut s,
        Msg::Job(JobMsg::Planned(Planned::Runs { short: "7c01f706".into(), plans: plans.clone() })),
    );
    assert!(matches!(s.mode, Mode::Confirm(_)), "{:?}", s.mode);
    common::press(&mut s, Key::plain(perftriage::app::KeyCode::Esc));
    common::press(&mut s, Key::ch('r'));
    common::press(&mut s, Key::ch('h'));
    common::press(&mut s, Key::plain(perftriage::app::KeyCode::Esc));
    assert_eq!(s.mode, Mode::Normal);
    update(&mut s, Msg::Job(JobMsg::Planned(Planned::Runs { short: "7c01f706".into(), plans })));
    assert_eq!(s.mode, Mode::Normal, "a plan that comes after Esc is dropped");
}

/// A failure is said the same live as after a restart: the classification of the result file as
/// it reads back replaces the one the run's own output gave (a failed pull leaves no output).
#[test]
fn the_result_file_as_read_back_classifies_the_run_as_a_restart_would() {
    let mut s = state();
    docker_up(&mut s);
    select(&mut s, "7c01f706");
    press(&mut s, Key::ch('r'));
    press(&mut s, Key::ch('h'));
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::StartRun { run_id, .. }] = effects.as_slice() else { panic!("{effects:?}") };
    let run_id = run_id.clone();
    let why = "pull access denied: manifest unknown";
    let outcome = Outcome { status: RunStatus::Error, error: Some(why.into()), ..Outcome::not_run() };
    update(&mut s, Msg::Job(JobMsg::run_ended(&run_id, outcome, None)));
    let category = |s: &AppState| {
        let entry = &s.board.entries[s.board.entry_index("7c01f706").unwrap()];
        entry.variant(Variant::Human).verdict.as_ref().map(|v| v.category.clone())
    };
    assert_eq!(category(&s), None, "nothing in the run's output named it");
    let classifier = perftriage::classify::Classifier::embedded().unwrap();
    let reread = Reread { verdict: classifier.named("manifest_unknown", why), warnings: Vec::new() };
    let source = Ok("ws/results/x.json".to_string());
    update(&mut s, Msg::Job(JobMsg::Recorded { run_id, source, reread: Some(reread) }));
    assert_eq!(
        category(&s).as_deref(),
        Some("manifest_unknown"),
        "what a restart reads from the result file"
    );
}

/// An open pane of a run goes on with the newest run of its commit and variant (a re-run).
#[test]
fn an_open_run_pane_follows_the_newest_run_of_its_variant() {
    let mut s = state();
    docker_up(&mut s);
    s.runs.concurrency = 2;
    select(&mut s, "7c01f706");
    let start = |s: &mut AppState, variant: char| {
        press(s, Key::ch('r'));
        press(s, Key::ch(variant));
        let effects = press(s, Key::ch('y'));
        let [Effect::StartRun { run_id, .. }] = effects.as_slice() else { panic!("{effects:?}") };
        run_id.clone()
    };
    let first = start(&mut s, 'h');
    press(&mut s, Key::ch('L'));
    press(&mut s, Key::ch('o'));
    assert_eq!(s.logs.run_pane, Some((first.clone(), Pane::Benchmark)));
    let baseline = start(&mut s, 'b');
    assert_eq!(s.logs.run_pane, Some((first.clone(), Pane::Benchmark)), "another variant: the pane stays");
    assert_ne!(baseline, first);
    update(&mut s, Msg::Job(JobMsg::phase(&first, RunPhase::Cancelled)));
    let second = start(&mut s, 'h');
    assert_eq!(s.logs.run_pane, Some((second, Pane::Benchmark)), "the newest human run, same pane");
}

#[test]
fn quitting_from_the_command_line_with_live_runs_asks_as_q_does() {
    let mut s = state();
    docker_up(&mut s);
    queue_all_three(&mut s, "22dd9c27");
    // `:` then Tab, as the walk did (it completes a command), then Enter.
    press(&mut s, Key::ch(':'));
    press(&mut s, Key::plain(perftriage::app::KeyCode::Tab));
    let perftriage::app::Mode::Prompt(p) = &s.mode else { panic!("{:?}", s.mode) };
    assert_eq!(p.text, "quit", "Tab on an empty line completes the first command");
    let effects = press(&mut s, Key::plain(perftriage::app::KeyCode::Enter));
    assert!(!effects.contains(&Effect::Quit), "no quit while runs are live: {effects:?}");
    let Mode::Confirm(confirm) = &s.mode else { panic!("the quit confirm: {:?}", s.mode) };
    assert!(confirm.preview.iter().any(|l| l.contains("L leaves them running")), "{:?}", confirm.preview);
}

#[test]
fn a_finished_run_keeps_the_time_it_took_not_the_time_since_it_started() {
    let mut s = state();
    docker_up(&mut s);
    let first = queue_all_three(&mut s, "22dd9c27");
    let run_id = run_id_of(&first)[0].clone();
    let tick = |s: &mut AppState, n: u32| {
        for _ in 0..n {
            update(s, Msg::Tick("2026-11-27T10:00:00Z".into()));
        }
    };
    tick(&mut s, 5);
    update(&mut s, Msg::Job(JobMsg::phase(&run_id, RunPhase::Cancelled)));
    tick(&mut s, 60);
    let run = s.runs.get(&run_id).unwrap();
    assert_eq!(run.elapsed(s.session.ticks), 5, "stopped at its end");
}
