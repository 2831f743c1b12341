//! The fix menu, applying from the board, recording and bulk fixes, over `update` alone.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::{chars, docker_up, enter, press, state};
use perftriage::app::{
    AppState, BoardState, BulkPicker, ConfirmAction, Effect, FixDone, FixEnd, FixOffer, JobError, JobMsg,
    Key, KeyCode, LogKey, LogMsg, Mode, Msg, NotConnected, Planned, RecipeInfo, update,
};
use perftriage::dataset::Variant;
use perftriage::runs::Pane;
use perftriage::triage::FixOutcome;

/// 7c01f706's human fixed with aimv2_exist_ok: how it went, and the image committed.
fn aimv2_fixed(outcome: FixOutcome, image: Option<&str>) -> Msg {
    Msg::Job(JobMsg::fix_ended(
        "7c01f706".into(),
        Variant::Human,
        FixEnd::Applied(FixDone {
            recipe: "aimv2_exist_ok".into(),
            outcome,
            image: image.map(Into::into),
            log: Some("ws/fixes/y.log".into()),
            commit_image: true,
        }),
    ))
}

/// The fix menu's offers for 7c01f706's human, as the job service answers a probe.
fn human_offers(offers: Result<Vec<FixOffer>, perftriage::app::JobError>) -> Msg {
    Msg::Job(JobMsg::Planned(Planned::Fixes { short: "7c01f706".into(), variant: Variant::Human, offers }))
}

fn select(s: &mut AppState, short: &str) {
    press(s, Key::ch('/'));
    chars(s, short);
    press(s, enter());
}

fn offer(id: &str, suggested: bool, why_not: Option<&str>) -> FixOffer {
    FixOffer {
        id: id.into(),
        title: format!("{id} title"),
        suggested,
        why_not: why_not.map(str::to_string),
        steps: vec![format!("python3 -m pip install {id}"), "verify: python3 -c ...".into()],
    }
}

#[test]
fn fix_menu_offers_applicable_fixes_and_applies_after_a_confirm() {
    let mut s = state();
    docker_up(&mut s);
    s.session.owner = Some(perftriage::fixes::Owner::of(std::path::Path::new("/srv/ws")));
    select(&mut s, "7c01f706");
    let effects = press(&mut s, Key::ch('f'));
    let [Effect::ProbeFixes { short, variant, category, .. }] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!((short.as_str(), *variant, category.as_str()), ("7c01f706", Variant::Human, "rope_llama3"));
    let offers =
        vec![offer("numpy_lt_2", true, None), offer("fa_utils_inject", false, Some("none of … exists"))];
    update(&mut s, human_offers(Ok(offers)));
    let Mode::Fix(menu) = &s.mode else { panic!() };
    assert_eq!(menu.shown().len(), 1, "recipes that do not apply are hidden");
    press(&mut s, Key::ch('w'));
    let Mode::Fix(menu) = &s.mode else { panic!() };
    assert_eq!(menu.shown().len(), 2, "…and one key away");
    press(&mut s, Key::ch('w'));
    press(&mut s, enter());
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    assert!(confirm.preview.iter().any(|l| l.contains("python3 -m pip install numpy_lt_2")), "exact steps");
    let full = s.board.entries.iter().find(|e| e.commit.short == "7c01f706").unwrap().commit.full.clone();
    let mark = perftriage::files::stable_id(&["/srv/ws".as_bytes()]);
    let tag = format!("then commit it as perftriage-fixed:{full}-{mark}, the fixed image");
    assert!(
        confirm.preview.iter().any(|l| l.contains(&tag)),
        "the confirm names the tag: {:?}",
        confirm.preview
    );
    assert!(press(&mut s, enter()).is_empty(), "Cancel is the default");
    press(&mut s, Key::ch('f'));
    update(&mut s, human_offers(Ok(vec![offer("numpy_lt_2", true, None)])));
    press(&mut s, enter());
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::ApplyFix(req)] = effects.as_slice() else { panic!("{effects:?}") };
    assert_eq!(
        (req.recipe.as_str(), req.commit_image),
        ("numpy_lt_2", true),
        "Enter commits the fixed image"
    );
    assert_eq!(s.logs.recorded.as_ref().unwrap().key, req.log, "the fix's output streams into the log pane");
    docker_up(&mut s);

    // Verified: recorded with its committed image, the row says "fixed" and the variant re-runs in it.
    let done = Msg::Job(JobMsg::fix_ended(
        "7c01f706".into(),
        Variant::Human,
        FixEnd::Applied(FixDone {
            recipe: "numpy_lt_2".into(),
            outcome: FixOutcome::Verified,
            image: Some("perftriage-fixed:7c01f706418d".into()),
            log: Some("ws/fixes/x.log".into()),
            commit_image: true,
        }),
    ));
    let effects = update(&mut s, done);
    assert!(
        matches!(&effects[0], Effect::SaveTriage(book) if book.fixes("7c01f706", "human") == ["numpy_lt_2"])
    );
    let Effect::StartRun { request: perftriage::runs::RunRequest { image, fixes, .. }, .. } = &effects[1]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(image.as_deref(), Some("perftriage-fixed:7c01f706418d"));
    assert_eq!(fixes, &vec!["numpy_lt_2".to_string()]);
    assert_eq!(
        s.board.book.fixed_image("7c01f706", "human").as_deref(),
        Some("perftriage-fixed:7c01f706418d")
    );
    // The pane follows the re-run (it stayed on the fix's output): its server pane on top, the
    // fix's output kept open behind it.
    let (run, pane) = s.logs.run_pane.clone().expect("the re-run's panes are open");
    let run = s.runs.get(&run).expect("the re-run");
    assert_eq!((run.short().as_str(), run.variant(), pane), ("7c01f706", Variant::Human, Pane::Server));
    assert!(s.logs.recorded.is_none() && s.logs.behind.iter().any(|v| v.key == req.log), "fix output behind");
}

/// `f` pressed while the board still connects to Docker: the probe is refused "not connected";
/// once Docker connects the menu probes again, whichever of the two the board hears first,
/// instead of keeping the stale refusal. Another failure is not probed again.
#[test]
fn a_fix_menu_opened_before_docker_connects_probes_again_once_it_does() {
    let refused = || human_offers(Err(JobError::from(NotConnected)));
    let probed = |effects: &[Effect]| matches!(effects, [Effect::ProbeFixes { short, variant: Variant::Human, .. }] if short == "7c01f706");
    let mut s = state();
    s.runs.docker = perftriage::app::DockerStatus::Connecting;
    select(&mut s, "7c01f706");
    press(&mut s, Key::ch('f'));
    assert!(update(&mut s, refused()).is_empty(), "not connected yet: nothing to do");
    let effects = docker_up(&mut s);
    assert!(probed(&effects), "no probe once Docker connected: {effects:?}");
    let Mode::Fix(menu) = &s.mode else { panic!("{:?}", s.mode) };
    assert_eq!(menu.offers, None, "the stale refusal is gone while it probes");
    // The refusal heard after the connection (the probe was refused just before it).
    let effects = update(&mut s, refused());
    assert!(probed(&effects), "a refusal heard once connected probes again: {effects:?}");
    let other = JobError::from(std::io::Error::other("no such image"));
    assert!(update(&mut s, human_offers(Err(other))).is_empty(), "another failure stays");
    assert!(docker_up(&mut s).is_empty(), "…and is not probed again on a reconnect");
}

/// A fix confirmed while the board is not connected to Docker waits and starts once it connects,
/// as queued runs do. It was refused ("Docker is not connected", a toast) while its output pane
/// stayed open, empty: a CI run's bulk fix, confirmed before the board's connect, never ran. One
/// cancelled while it waits is dropped here, nothing asked of the job service.
#[test]
fn a_fix_confirmed_before_docker_connects_starts_once_it_does() {
    let confirm_fix = |s: &mut AppState| {
        press(s, Key::ch('f'));
        update(s, human_offers(Ok(vec![offer("numpy_lt_2", true, None)])));
        press(s, enter());
        press(s, Key::ch('y'))
    };
    let mut s = state();
    select(&mut s, "7c01f706");
    assert!(confirm_fix(&mut s).is_empty(), "nothing asked before Docker connects");
    assert!(s.session.message.as_ref().unwrap().1.contains("it starts when Docker connects"));
    assert_eq!(s.runs.fixes.len(), 1, "shown as being fixed meanwhile");
    let effects = docker_up(&mut s);
    let applied = effects.iter().filter(|e| matches!(e, Effect::ApplyFix(r) if r.recipe == "numpy_lt_2"));
    assert_eq!(applied.count(), 1, "started once connected: {effects:?}");
    assert!(docker_up(&mut s).iter().all(|e| !matches!(e, Effect::ApplyFix(_))), "and only once");
    let ended = FixEnd::NotApplied { recipe: "numpy_lt_2".into(), why: "test".into() };
    update(&mut s, Msg::Job(JobMsg::fix_ended("7c01f706".into(), Variant::Human, ended)));
    update(
        &mut s,
        Msg::Docker(perftriage::app::DockerMsg::Unreachable("the daemon stopped answering".into())),
    );
    assert!(confirm_fix(&mut s).is_empty());
    press(&mut s, Key::ch('x'));
    assert!(press(&mut s, Key::ch('y')).is_empty(), "a waiting fix is not the job service's to stop");
    assert!(s.runs.fixes.is_empty(), "no longer live");
    assert!(docker_up(&mut s).iter().all(|e| !matches!(e, Effect::ApplyFix(_))), "nor started later");
}

/// The menu separates what answers the failure, what else applies to the image and (with `w`)
/// what does not apply, each under its heading (every applicable recipe was listed alike).
#[test]
fn the_fix_menu_separates_what_answers_the_failure_from_what_else_applies_and_what_does_not() {
    let mut s = state();
    select(&mut s, "7c01f706");
    press(&mut s, Key::ch('f'));
    let offers = Ok(vec![
        offer("numpy_lt_2", false, None),
        offer("rope_patch", true, None),
        offer("fa_utils_inject", false, Some("none of vllm/vllm_flash_attn exists")),
    ]);
    update(&mut s, human_offers(offers));
    let order = |s: &AppState| {
        let Mode::Fix(menu) = &s.mode else { panic!("{:?}", s.mode) };
        menu.shown().iter().map(|o| o.id.clone()).collect::<Vec<_>>()
    };
    assert_eq!(order(&s), ["rope_patch", "numpy_lt_2"], "what answers first");
    let screen = common::screen_of(&s, 160, 48);
    let at = |text: &str| screen.find(text).unwrap_or_else(|| panic!("{text} in\n{screen}"));
    assert!(
        at("Answers rope_llama3:") < at("rope_patch") && at("rope_patch") < at("Also applies"),
        "{screen}"
    );
    assert!(at("Also applies to this image") < at("numpy_lt_2"), "{screen}");
    assert!(screen.contains("w: 1 more that do not apply here, and why"), "{screen}");
    press(&mut s, Key::ch('w'));
    assert_eq!(order(&s), ["rope_patch", "numpy_lt_2", "fa_utils_inject"]);
    for (w, h) in [(80, 24), (160, 48)] {
        let shown = common::screen_of(&s, w, h);
        assert!(shown.contains("Does not apply here:"), "{shown}");
        insta::assert_snapshot!(format!("fix_menu_{w}x{h}"), shown);
    }
}

/// `c` applies and commits without a re-run: the row says "fixed" (not re-run) until a run of
/// that variant ends. Keys from the failure seen on the board to a stored re-run in the fixed
/// image: `f`, `Enter`, `y` — three.
#[test]
fn a_fix_that_is_not_re_run_yet_says_so_on_the_row() {
    let mut s = state();
    s.session.now = "2026-11-27T03:00:00Z".into();
    docker_up(&mut s);
    select(&mut s, "7c01f706");
    press(&mut s, Key::ch('f'));
    let offers = Ok(vec![offer("numpy_lt_2", true, None)]);
    update(&mut s, human_offers(offers));
    press(&mut s, Key::ch('c'));
    let effects = press(&mut s, Key::ch('y'));
    assert!(matches!(effects.as_slice(), [Effect::ApplyFix(r)] if r.commit_image));
    let done = FixDone {
        recipe: "numpy_lt_2".into(),
        outcome: FixOutcome::Verified,
        image: Some("perftriage-fixed:7c01f706418d".into()),
        log: None,
        commit_image: true,
    };
    let done = JobMsg::fix_ended("7c01f706".into(), Variant::Human, FixEnd::Applied(done));
    let effects = update(&mut s, Msg::Job(done));
    assert!(effects.iter().all(|e| !matches!(e, Effect::StartRun { .. })), "c does not re-run");
    let cell =
        |s: &AppState| s.board.rows.iter().find(|r| r.short == "7c01f706").unwrap().cells[1].text.clone();
    assert_eq!(cell(&s), "✚ fixed");
    let restarted = BoardState::new(s.board.entries.clone(), s.board.book.clone());
    let row = restarted.rows.iter().find(|r| r.short == "7c01f706").unwrap();
    assert_eq!(row.cells[1].text, "✚ fixed", "a restart reads the mark from the book");
    s.session.now = "2026-11-27T03:10:00Z".into();
    let mut planner = common::Planner::new();
    planner.press(&mut s, Key::ch('r'));
    planner.press(&mut s, Key::ch('h'));
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::StartRun { run_id, request }] = effects.as_slice() else { panic!("{effects:?}") };
    let image = &request.image;
    assert_eq!(image.as_deref(), Some("perftriage-fixed:7c01f706418d"), "the run uses the fixed image");
    let outcome = perftriage::dataset::Outcome {
        status: perftriage::dataset::RunStatus::Success,
        ..perftriage::dataset::Outcome::not_run()
    };
    update(&mut s, Msg::Job(JobMsg::run_ended(run_id, outcome, None)));
    assert_ne!(cell(&s), "✚ fixed", "a run of the variant ended: it is not 'not re-run' any more");
}

#[test]
fn committed_fixed_images_are_used_by_later_runs_and_failed_fixes_say_so() {
    let mut s = state();
    let done = aimv2_fixed;
    docker_up(&mut s);
    update(&mut s, done(FixOutcome::Failed, None));
    assert!(s.session.message.as_ref().unwrap().1.contains("FAILED its verify"));
    assert_eq!(s.board.book.fixed_image("7c01f706", "human"), None);
    update(&mut s, done(FixOutcome::Verified, Some("perftriage-fixed:7c01f706418d")));
    select(&mut s, "7c01f706");
    s.board.detail_open = true;
    let detail = common::screen_of(&s, 160, 48);
    assert!(
        detail.contains("human    perftriage-fixed:7c01f706418d  [fixed: aimv2_exist_ok]"),
        "the detail pane names the image the next run uses: {detail}"
    );
    s.board.detail_open = false;
    let mut planner = common::Planner::new();
    planner.press(&mut s, Key::ch('r'));
    planner.press(&mut s, Key::ch('h'));
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    assert!(
        confirm.preview[0].contains("perftriage-fixed:7c01f706418d  (fixed image: aimv2_exist_ok)"),
        "the confirm says the run uses the fixed image: {:?}",
        confirm.preview
    );
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::StartRun { request: perftriage::runs::RunRequest { image, fixes, .. }, .. }] =
        effects.as_slice()
    else {
        panic!("{effects:?}")
    };
    assert_eq!(image.as_deref(), Some("perftriage-fixed:7c01f706418d"));
    assert_eq!(fixes, &vec!["aimv2_exist_ok".to_string()]);
}

#[test]
fn a_removed_fixed_image_stops_being_the_variants_image_and_the_confirm_says_why() {
    let mut s = state();
    docker_up(&mut s);
    update(&mut s, aimv2_fixed(FixOutcome::Verified, Some("perftriage-fixed:7c01f706418d")));
    let saved = update(&mut s, Msg::ImageRemoved("perftriage-fixed:7c01f706418d".into()));
    assert!(
        saved.iter().any(|e| matches!(e, Effect::SaveTriage(_))),
        "recorded for the next start: {saved:?}"
    );
    assert_eq!(s.board.book.fixed_image("7c01f706", "human"), None);
    select(&mut s, "7c01f706");
    let mut planner = common::Planner::new();
    planner.press(&mut s, Key::ch('r'));
    planner.press(&mut s, Key::ch('h'));
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    let preview = confirm.preview.join("\n");
    assert!(!preview.contains("(fixed image"), "no longer in the fixed image: {preview}");
    assert!(
        preview.contains("its fixed image perftriage-fixed:7c01f706418d was removed"),
        "the confirm says why: {preview}"
    );
    let effects = press(&mut s, Key::ch('y'));
    let [Effect::StartRun { request: perftriage::runs::RunRequest { image, fixes, .. }, .. }] =
        effects.as_slice()
    else {
        panic!("{effects:?}")
    };
    assert_eq!((image, fixes.len()), (&None, 0), "the template (or override) image, no fixes");
}

#[test]
fn unfixable_from_the_menu_is_prefilled_from_the_failure() {
    let mut s = state();
    select(&mut s, "7c01f706");
    press(&mut s, Key::ch('f'));
    press(&mut s, Key::ch('u'));
    let Mode::Prompt(p) = &s.mode else { panic!("{:?}", s.mode) };
    assert_eq!(p.text, "rope_llama3: Unknown RoPE scaling type llama3: vLLM <= 0.5 cannot run Llama-3.1");
}

#[test]
fn bulk_fix_over_picked_commits_or_the_filter() {
    let mut s = state();
    docker_up(&mut s);
    let recipe = |id: &str, title: &str, answers: &str| RecipeInfo {
        id: id.into(),
        title: title.into(),
        answers: vec![answers.into()],
    };
    s.session.recipes =
        vec![recipe("numpy_lt_2", "numpy", "numpy2"), recipe("rope", "nothing real", "rope_llama3")];
    press(&mut s, Key::ch('/'));
    chars(&mut s, "cat:rope");
    press(&mut s, enter());
    press(&mut s, Key::ch('F'));
    let Mode::BulkFix(BulkPicker { shorts, recipes, .. }) = &s.mode else { panic!("{:?}", s.mode) };
    assert_eq!(shorts.len(), 7, "everything the filter shows");
    assert_eq!(
        recipes.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        ["rope"],
        "only what answers their failures"
    );
    press(&mut s, Key::plain(KeyCode::Esc));
    press(&mut s, Key::ch('g'));
    press(&mut s, Key::ch(' '));
    press(&mut s, Key::ch(' '));
    assert_eq!(s.board.picked.len(), 2);
    press(&mut s, Key::ch('F'));
    press(&mut s, enter());
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(effects.len(), 4, "the human and agent of each of the two: {effects:?}");
    assert!(effects.iter().all(|e| matches!(e, Effect::ApplyFix(r) if r.commit_image && r.recipe == "rope")));
    assert!(s.board.picked.is_empty());
}

/// A bulk fix over three commits (five failing variants): each fix's output fills a view of its
/// own (the last one shown, the others behind it, said in the title), and `o` goes from one to
/// the next.
#[test]
fn a_bulk_fix_over_three_commits_keeps_each_commits_output() {
    let mut s = state();
    docker_up(&mut s);
    update(&mut s, Msg::Resize(160, 48));
    s.session.recipes =
        vec![RecipeInfo { id: "rope".into(), title: "rope".into(), answers: vec!["rope_llama3".into()] }];
    press(&mut s, Key::ch('/'));
    chars(&mut s, "cat:rope");
    press(&mut s, enter());
    press(&mut s, Key::ch('g'));
    for _ in 0..3 {
        press(&mut s, Key::ch(' '));
    }
    press(&mut s, Key::ch('F'));
    press(&mut s, enter());
    let effects = press(&mut s, Key::ch('y'));
    let keys: Vec<LogKey> = effects
        .iter()
        .filter_map(|e| if let Effect::ApplyFix(r) = e { Some(r.log.clone()) } else { None })
        .collect();
    assert_eq!(keys.len(), 5, "{effects:?}");
    let said = |key: &LogKey| format!("INFO patching {} {}", key.short, key.variant.name());
    for key in &keys {
        let lines = common::decoded(&format!("{}\n", said(key)));
        update(&mut s, Msg::Log(LogMsg::Lines { key: key.clone(), lines, skipped: 0, finished: false }));
    }
    let screen = common::screen_of(&s, 160, 48);
    assert!(screen.contains("+4 more open (o: next)"), "{screen}");
    let mut seen = Vec::new();
    for _ in 0..keys.len() {
        let shown = s.logs.recorded.as_ref().unwrap();
        let text = shown.line(0).map(|l| l.text.clone()).unwrap_or_default();
        assert_eq!(text, said(&shown.key), "its own output only");
        seen.push(said(&shown.key));
        press(&mut s, Key::ch('o'));
    }
    seen.sort();
    let mut wanted: Vec<_> = keys.iter().map(said).collect();
    wanted.sort();
    assert_eq!(seen, wanted, "o shows each variant's fix in turn");
}

#[test]
fn a_bulk_fix_leaves_out_done_commits_and_asks_twice_above_ten() {
    let mut s = state();
    docker_up(&mut s);
    s.session.recipes = vec![probe_recipe()];
    press(&mut s, Key::ch('F'));
    let Mode::BulkFix(BulkPicker { shorts, .. }) = &s.mode else { panic!("{:?}", s.mode) };
    assert_eq!(shorts.len(), 96, "the whole All view is offered to the picker");
    press(&mut s, enter());
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    let ConfirmAction::BulkFix { targets, .. } = &confirm.action else { panic!("{:?}", confirm.action) };
    let listed: Vec<&String> = confirm.preview.iter().filter(|l| l.starts_with("  ")).collect();
    let failing_unexplained = s
        .board
        .entries
        .iter()
        .flat_map(|e| Variant::ALL.map(|v| (e, v)))
        .filter(|(e, v)| e.variant(*v).outcome.status.is_failure())
        .filter(|(e, v)| {
            let verdict = e.variant(*v).verdict.as_ref().or(e.hint.as_ref());
            verdict.map_or("unclassified", |x| x.category.as_str()) == "unclassified"
        })
        .count();
    assert!(targets.len() > 10 && targets.len() == failing_unexplained, "{} planned", targets.len());
    assert_eq!(listed.len(), targets.len(), "one line per variant: {listed:?}");
    assert!(confirm.preview[0].contains(&format!("on {} failing variant(s)", targets.len())));
    let planned = targets.len();
    assert!(press(&mut s, Key::ch('y')).is_empty(), "more than ten: asked again");
    let Mode::Confirm(again) = &s.mode else { panic!("{:?}", s.mode) };
    assert!(again.title.starts_with(&format!("{planned} variants: really")), "{}", again.title);
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(effects.len(), planned);
}

fn probe_recipe() -> RecipeInfo {
    RecipeInfo { id: "probe".into(), title: "a probe".into(), answers: vec!["unclassified".into()] }
}

/// A bulk fix plans per (commit, variant) from each variant's own failure: on a commit whose human
/// the recipe already fixed, the baseline and agent are fixed and the human is skipped with the
/// reason, each named in the confirm (it fixed the human again, "already applied", and left the
/// failing baseline as it was).
#[test]
fn a_bulk_fix_plans_each_failing_variant_and_skips_the_ones_it_already_fixed() {
    let mut s = state();
    docker_up(&mut s);
    s.session.recipes = vec![probe_recipe()];
    let fixed = "perftriage-fixed-local:3092375e-human";
    update(
        &mut s,
        Msg::Job(JobMsg::fix_ended(
            "3092375e".into(),
            Variant::Human,
            FixEnd::Applied(FixDone {
                recipe: "probe".into(),
                outcome: FixOutcome::Verified,
                image: Some(fixed.into()),
                log: None,
                commit_image: true,
            }),
        )),
    );
    select(&mut s, "3092375e");
    press(&mut s, Key::ch(' '));
    press(&mut s, Key::ch('F'));
    press(&mut s, enter());
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    let text = confirm.preview.join("\n");
    assert!(
        text.contains("  3092375e baseline (unclassified)\n  3092375e agent    (unclassified)"),
        "{text}"
    );
    let skipped = format!("  3092375e human    skipped: already fixed with probe, runs in {fixed}");
    assert!(text.contains(&skipped), "{text}");
    let effects = press(&mut s, Key::ch('y'));
    let fixed: Vec<Variant> = effects
        .iter()
        .filter_map(|e| if let Effect::ApplyFix(r) = e { Some(r.variant) } else { None })
        .collect();
    assert_eq!(fixed, [Variant::Baseline, Variant::Agent], "{effects:?}");
}

/// A fixed image of this workspace, as `I` lists it.
fn ours(tag: &str, size_bytes: i64, created_unix: i64) -> perftriage::app::ListedImage {
    let image = perftriage::docker::TaggedImage { tag: tag.into(), size_bytes, created_unix, fixed_in: None };
    perftriage::app::ListedImage { image, elsewhere: None }
}

/// Another workspace's fixed image is listed as theirs with the commits that run in it there, and
/// `d` refuses it, saying whose it is (issue 57: `I` offered to delete it as "no commit records it").
#[test]
fn the_images_view_never_offers_to_delete_another_workspaces_image() {
    use perftriage::app::Elsewhere;
    let mut s = state();
    press(&mut s, Key::ch('I'));
    let mut theirs = ours("perftriage-fixed:baseline-0123456789ab-5d41402abc4b", 1 << 30, 1);
    theirs.image.fixed_in = Some("/srv/ws-b".into());
    theirs.elsewhere =
        Some(Elsewhere { workspace: "/srv/ws-b".into(), naming: vec!["22dd9c27 baseline".into()] });
    update(&mut s, Msg::Images(Ok(vec![theirs])));
    let said = "workspace /srv/ws-b's (its results name it: 22dd9c27 baseline)";
    assert!(common::screen_of(&s, 160, 48).contains(said), "{}", common::screen_of(&s, 160, 48));
    assert_eq!(press(&mut s, Key::ch('d')), vec![]);
    assert_eq!(s.mode, Mode::Images(0), "no confirm");
    let (_, message) = s.session.message.clone().unwrap();
    assert!(message.contains(said) && message.starts_with("not removed"), "{message}");
}

/// `I` lists perftriage's fixed images with what they fix; `d` deletes one after a confirm.
#[test]
fn the_images_view_lists_fixed_images_with_their_fixes_and_deletes_one() {
    let mut s = state();
    update(&mut s, aimv2_fixed(FixOutcome::Verified, Some("perftriage-fixed:7c01f706418d")));
    assert_eq!(press(&mut s, Key::ch('I')), vec![Effect::ListImages]);
    let image = |tag: &str, created_unix| ours(tag, 812_000_000, created_unix);
    let listed = vec![
        image("perftriage-fixed-local:22dd9c27-human", 1_795_400_000),
        image("perftriage-fixed:7c01f706418d", 1_795_410_000),
    ];
    update(&mut s, Msg::Images(Ok(listed)));
    for (w, h) in [(80, 24), (160, 48)] {
        let shown = common::screen_of(&s, w, h);
        assert!(shown.contains("perftriage-fixed:7c01f706418d"), "{shown}");
        insta::assert_snapshot!(format!("images_view_{w}x{h}"), shown);
    }
    assert!(
        common::screen_of(&s, 160, 48).contains("7c01f706 human (aimv2_exist_ok)"),
        "newest first, with its fixes"
    );
    press(&mut s, Key::ch('d'));
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    assert_eq!(confirm.title, "Remove perftriage-fixed:7c01f706418d?");
    assert!(
        confirm.preview.iter().any(|l| l.contains("7c01f706 human (aimv2_exist_ok): later runs fall back"))
    );
    assert_eq!(
        press(&mut s, Key::ch('y')),
        vec![Effect::RemoveImage("perftriage-fixed:7c01f706418d".into())]
    );
}

/// `p` in the images view pushes the selected fixed image; the pushed digest is recorded for every
/// commit variant that runs in it (and saved).
#[test]
fn p_in_the_images_view_pushes_and_each_user_records_the_digest() {
    use perftriage::triage::Change;
    let mut s = state();
    let tag = "perftriage-fixed:7c01f706full".to_string();
    let fix = Change::Fix {
        variant: "human".into(),
        recipe: "numpy_lt_2".into(),
        outcome: FixOutcome::Verified,
        image: Some(tag.clone().into()),
        log: None,
    };
    s.board.book.apply("7c01f706", fix, "2026-11-23T00:00:00Z".into()).unwrap();
    press(&mut s, Key::ch('I'));
    let listed = vec![ours(&tag, 1 << 30, 1)];
    update(&mut s, Msg::Images(Ok(listed)));
    // Last run: a result of a user dated after the fix; the recorded one is older.
    assert_eq!(s.board.last_run_in(&tag), None);
    let index = s.board.entry_index("7c01f706").unwrap();
    let stamp = perftriage::dataset::results::Stamp::parse("2026-11-23 01:30:00");
    s.board.entries[index].variants[Variant::Human as usize].at = stamp;
    assert_eq!(s.board.last_run_in(&tag), stamp);
    assert!(common::screen_of(&s, 160, 48).contains("2026-11-23 01:30"));
    assert_eq!(press(&mut s, Key::ch('p')), vec![Effect::PushImage(tag.clone())]);
    let reference = format!("127.0.0.1:5000/perftriage-fixed@sha256:{}", "a".repeat(64));
    let effects = update(&mut s, Msg::Pushed { tag: tag.clone(), reference: reference.clone() });
    assert!(!effects.is_empty(), "the change is saved");
    assert_eq!(s.board.book.pushed("7c01f706", "human"), Some((tag.into(), reference)));
}
