//! Pure update flows: messages in, state and effects out. No terminal, no disk.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::{NOW, chars, enter, esc, press, state};
use perftriage::app::rows::Column;
use perftriage::app::{Effect, Key, KeyCode, Mode, Msg, View, update};
use perftriage::triage::Mark;

fn shown(s: &perftriage::app::AppState) -> Vec<String> {
    s.board.visible.iter().map(|&i| s.board.entries[i].commit.short.to_string()).collect()
}

#[test]
fn filter_applies_live_and_field_terms_combine() {
    let mut s = state();
    assert_eq!(s.board.visible.len(), 96);
    press(&mut s, Key::ch('/'));
    chars(&mut s, "cat:rope");
    assert_eq!(s.board.visible.len(), 7, "live while typing");
    chars(&mut s, " status:failed model:llama");
    assert_eq!(s.board.visible.len(), 7);
    press(&mut s, enter());
    assert_eq!(s.mode, Mode::Normal);
    assert_eq!(s.board.query.text, "cat:rope status:failed model:llama");
    press(&mut s, esc());
    assert_eq!(s.board.visible.len(), 96, "Esc clears the filter");
}

#[test]
fn negated_terms_and_plain_words() {
    let mut s = state();
    press(&mut s, Key::ch('/'));
    chars(&mut s, "kind:latency !status:done");
    let latency_not_done = shown(&s);
    assert!(!latency_not_done.is_empty());
    for &i in &s.board.visible {
        assert_eq!(s.board.rows[i].kind.name(), "latency");
        assert_ne!(s.board.rows[i].status.name(), "done");
    }
    press(&mut s, Key::plain(KeyCode::Esc));
    press(&mut s, Key::ch('/'));
    chars(&mut s, "mixtral");
    assert!(shown(&s).contains(&"21d93c14".to_string()));
}

#[test]
fn views_filter_by_status_and_marks() {
    let mut s = state();
    let counts = s.board.view_counts;
    assert_eq!(counts[0], 96);
    press(&mut s, Key::plain(KeyCode::Tab));
    assert_eq!(s.board.view, View::Failed);
    assert_eq!(s.board.visible.len(), counts[1]);
    assert!(s.board.visible.iter().all(|&i| s.board.rows[i].status.name() == "failed"));
    press(&mut s, Key::plain(KeyCode::BackTab));
    press(&mut s, Key::plain(KeyCode::BackTab));
    assert_eq!(s.board.view, View::Done);
    assert!(s.board.visible.iter().all(|&i| s.board.rows[i].status.name() == "done"));
}

#[test]
fn sorting_cycles_columns_and_reverses() {
    let mut s = state();
    assert_eq!(shown(&s)[0], "015069b0");
    press(&mut s, Key::ch('S'));
    assert_eq!(shown(&s)[0], "fe66b347");
    press(&mut s, Key::ch('S'));
    for _ in 0..10 {
        press(&mut s, Key::ch('s'));
    }
    assert_eq!(s.board.sort, Column::Category);
    let cats: Vec<&str> = s.board.visible.iter().map(|&i| s.board.rows[i].category.as_str()).collect();
    assert!(cats.windows(2).all(|w| w[0] <= w[1]), "sorted by category");
}

#[test]
fn navigation_clamps_and_keeps_the_selection_through_filters() {
    let mut s = state();
    update(&mut s, Msg::Resize(80, 24));
    press(&mut s, Key::ch('G'));
    assert_eq!(s.board.selected, 95);
    press(&mut s, Key::ch('j'));
    assert_eq!(s.board.selected, 95);
    press(&mut s, Key::ch('g'));
    press(&mut s, Key::plain(KeyCode::PageDown));
    assert_eq!(s.board.selected, s.page_rows());
    update(&mut s, Msg::Pointer { over: perftriage::app::Pointed::Board, wheel: -1 });
    assert_eq!(s.board.selected, s.page_rows() - 3);
    let before = s.board.selected_short().unwrap().to_string();
    press(&mut s, Key::ch('/'));
    chars(&mut s, &before);
    assert_eq!(s.board.selected_short(), Some(&before.as_str().into()));
}

#[test]
fn mark_unfixable_needs_a_reason_and_confirm_defaults_to_cancel() {
    let mut s = state();
    press(&mut s, Key::ch('/'));
    chars(&mut s, "7c01f706");
    press(&mut s, enter());
    press(&mut s, Key::ch('u'));
    let Mode::Prompt(p) = &s.mode else { panic!("prompt expected") };
    assert!(p.text.starts_with("rope_llama3"), "reason prefilled from the verdict: {}", p.text);
    press(&mut s, Key { code: KeyCode::Char('u'), ctrl: true });
    press(&mut s, enter());
    assert!(matches!(s.mode, Mode::Prompt(_)), "empty reason is refused");
    chars(&mut s, "RoPE llama3 on vLLM 0.5");
    assert!(press(&mut s, enter()).is_empty());
    assert!(matches!(s.mode, Mode::Confirm(_)));
    assert!(press(&mut s, enter()).is_empty(), "Enter on the default button cancels");
    assert_eq!(s.board.book.mark("7c01f706"), None);

    press(&mut s, Key::ch('u'));
    press(&mut s, Key { code: KeyCode::Char('u'), ctrl: true });
    chars(&mut s, "RoPE llama3 on vLLM 0.5");
    press(&mut s, enter());
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(effects.len(), 1);
    let Effect::SaveTriage(book) = &effects[0] else { panic!() };
    let expected = Some(Mark::Unfixable { reason: "RoPE llama3 on vLLM 0.5".into() });
    assert_eq!(book.mark("7c01f706"), expected);
    assert_eq!(book.history("7c01f706")[0].at, NOW);
    assert!(s.session.unsaved);
    let row = s.board.rows.iter().find(|r| r.short == "7c01f706").unwrap();
    assert!(row.mark_text.contains("unfixable"));
    update(&mut s, Msg::Saved(Ok(())));
    assert!(!s.session.unsaved);
}

#[test]
fn unfixable_commits_leave_fixable_and_join_unfixable_view() {
    let mut s = state();
    let fixable_before = s.board.view_counts[2];
    let fixable_short = s
        .board
        .order
        .iter()
        .find(|&&i| View::Fixable.admits(&s.board.entries[i], &s.board.rows[i]))
        .map(|&i| s.board.entries[i].commit.short.clone())
        .unwrap();
    press(&mut s, Key::ch('/'));
    chars(&mut s, &fixable_short);
    press(&mut s, enter());
    press(&mut s, Key::ch('z'));
    assert_eq!(
        s.board.view_counts[2],
        fixable_before - 1,
        "a skipped commit is no longer offered as fixable"
    );
    press(&mut s, Key::ch('c'));
    assert_eq!(s.board.view_counts[2], fixable_before);
    assert_eq!(s.board.book.history(&fixable_short).len(), 2);
}

#[test]
fn notes_are_appended_and_read_only_boards_refuse_changes() {
    let mut s = state();
    press(&mut s, Key::ch('n'));
    chars(&mut s, "checked the image");
    let effects = press(&mut s, enter());
    assert!(matches!(effects.as_slice(), [Effect::SaveTriage(_)]));
    let short = s.board.selected_short().unwrap().to_string();
    assert_eq!(s.board.book.notes(&short).count(), 1);

    s.session.read_only = true;
    assert!(press(&mut s, Key::ch('z')).is_empty());
    assert!(press(&mut s, Key::ch('u')).is_empty());
    assert_eq!(s.mode, Mode::Normal);
    assert!(s.session.message.as_ref().unwrap().1.contains("read-only"));
}

#[test]
fn failed_saves_are_shown_and_ticks_only_move_the_clock() {
    let mut s = state();
    update(&mut s, Msg::Saved(Err(std::io::Error::other("disk full").into())));
    assert!(s.session.message.as_ref().unwrap().1.contains("NOT SAVED: disk full"));
    let before = s.board.visible.clone();
    assert!(update(&mut s, Msg::Tick("2026-11-22T03:00:00Z".into())).is_empty());
    assert_eq!(s.session.now, "2026-11-22T03:00:00Z");
    assert_eq!(s.board.visible, before);
}

#[test]
fn help_scrolls_with_its_own_keys_closes_with_esc_and_quit_is_an_effect() {
    let mut s = state();
    press(&mut s, Key::ch('?'));
    assert_eq!(s.mode, Mode::Help);
    press(&mut s, Key::ch('j'));
    press(&mut s, Key::ch('j'));
    assert_eq!(s.session.help_scroll, 2);
    assert!(press(&mut s, Key::ch('x')).is_empty(), "keys the help does not have do nothing");
    assert_eq!(s.mode, Mode::Help);
    press(&mut s, Key::plain(KeyCode::Esc));
    assert_eq!(s.mode, Mode::Normal);
    assert_eq!(press(&mut s, Key::ch('q')), vec![Effect::Quit]);
}

#[test]
fn remapped_keys_drive_the_same_actions() {
    let keys = [("mark_skip".to_string(), perftriage::config::KeyEntry::Keys(vec!["x".to_string()]))];
    let keymap = perftriage::app::KeyMap::from_config(&keys.into_iter().collect()).unwrap();
    let mut s = perftriage::app::AppState::new(common::entries(), Default::default(), keymap);
    s.board.book = perftriage::triage::TriageBook::new();
    assert!(press(&mut s, Key::ch('z')).is_empty(), "old key unbound");
    assert!(matches!(press(&mut s, Key::ch('x')).as_slice(), [Effect::SaveTriage(_)]));
}

#[test]
fn a_read_only_board_asks_for_the_lock_and_takes_over_with_what_the_other_wrote() {
    let mut s = state();
    s.session.read_only = true;
    let ticks: Vec<Effect> = (0..2).flat_map(|_| update(&mut s, Msg::Tick(NOW.into()))).collect();
    let asked: Vec<&Effect> = ticks.iter().filter(|e| !matches!(e, Effect::ReadCampaign(_))).collect();
    assert_eq!(asked, vec![&Effect::TryTakeOver]);
    let mut theirs = perftriage::triage::TriageBook::new();
    theirs.apply("7c01f706", perftriage::triage::Change::Skip, NOW.into()).unwrap();
    update(&mut s, Msg::TookOver { book: theirs, messages: Vec::new() });
    assert!(!s.session.read_only);
    assert!(s.session.message.as_ref().unwrap().1.contains("now holds the workspace"));
    let row = s.board.rows.iter().find(|r| r.short == "7c01f706").unwrap();
    assert_eq!(row.mark, Some(Mark::Skip), "what the other board wrote is on the rows");
    let ticks = [update(&mut s, Msg::Tick(NOW.into())), update(&mut s, Msg::Tick(NOW.into()))].concat();
    assert!(!ticks.contains(&Effect::TryTakeOver), "{ticks:?}");
}

#[test]
fn an_unknown_filter_field_is_named_not_silently_empty() {
    let mut s = state();
    press(&mut s, Key::ch('/'));
    common::chars(&mut s, "foo:bar");
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(200, 30)).unwrap();
    term.draw(|f| perftriage::ui::view(f, &s, &theme)).unwrap();
    let top: String = (0..200).map(|x| term.backend().buffer()[(x, 0)].symbol().to_string()).collect();
    assert!(top.contains("no field `foo:`"), "{top}");
    assert_eq!(s.board.query.unknown_fields, ["foo"]);
    // Submitted, the footer says it with the known fields, and what was typed is kept.
    press(&mut s, enter());
    let (_, said) = s.session.message.clone().expect("a warning toast");
    assert!(said.contains("no field `foo:`") && said.contains("cat status model"), "{said}");
    assert_eq!(s.board.query.text, "foo:bar");
    press(&mut s, Key::ch('/'));
    common::chars(&mut s, " cat:aimv2");
    assert_eq!(s.board.query.text, "foo:bar cat:aimv2", "the filter reopens with what was typed");
}

#[test]
fn the_mouse_scrolls_what_is_under_it_clicks_select_and_t_gives_it_back() {
    use perftriage::app::{Effect, Msg, Pointed, update};
    let mut s = state();
    update(&mut s, Msg::Resize(160, 48));
    // Terminal row 3 is the first commit (below the header line, the border and the column titles).
    assert_eq!(perftriage::ui::pointed(&s, 10, 3), Some(Pointed::BoardRow(0)));
    assert_eq!(perftriage::ui::pointed(&s, 10, 6), Some(Pointed::BoardRow(3)));
    assert_eq!(perftriage::ui::pointed(&s, 10, 2), Some(Pointed::Board), "the column titles");
    update(&mut s, Msg::Pointer { over: Pointed::BoardRow(3), wheel: 0 });
    assert_eq!(s.board.selected, 3);
    update(&mut s, Msg::Pointer { over: Pointed::Board, wheel: 1 });
    assert_eq!(s.board.selected, 6);
    press(&mut s, Key::plain(KeyCode::Enter));
    assert_eq!(
        perftriage::ui::pointed(&s, 150, 10),
        Some(Pointed::Pane),
        "the detail pane, beside the board"
    );
    update(&mut s, Msg::Pointer { over: Pointed::Pane, wheel: 1 });
    assert_eq!((s.board.selected, s.board.detail_scroll), (6, 3), "the wheel over the detail scrolls it");
    let effects = press(&mut s, Key::ch('T'));
    assert_eq!(effects, vec![Effect::MouseCapture(false)]);
    let full = s.board.entries[s.board.visible[6]].commit.full.clone();
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(effects, vec![Effect::Copy(full)]);
    assert!(s.session.message.as_ref().unwrap().1.starts_with("copied to the clipboard"));
}

#[test]
fn the_detail_pane_stops_at_its_end() {
    use perftriage::app::{Msg, update};
    let mut s = state();
    update(&mut s, Msg::Resize(160, 48));
    press(&mut s, Key::plain(KeyCode::Enter));
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let limit = perftriage::ui::detail_scroll_limit(&s, &theme).unwrap();
    update(&mut s, Msg::DetailLimit(limit));
    for _ in 0..50 {
        press(&mut s, Key::ch('J'));
    }
    assert_eq!(s.board.detail_scroll, limit, "J stops at the last line");
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    term.draw(|f| perftriage::ui::view(f, &s, &theme)).unwrap();
    let buf = term.backend().buffer().clone();
    let rows: Vec<String> =
        (30..46).map(|y| (89..159).map(|x| buf[(x, y)].symbol().to_string()).collect()).collect();
    assert!(rows.iter().any(|r| !r.trim().is_empty()), "the pane still shows text at its end: {rows:#?}");
    let last_text = rows.iter().rposition(|r| !r.trim().is_empty()).unwrap();
    assert!(last_text >= rows.len() - 3, "no run of blank rows below the end: {rows:#?}");
}

fn nightly_snapshot() -> perftriage::campaigns::Snapshot {
    use perftriage::campaigns::{Headline, Liveness, Progress, Snapshot};
    let progress = Progress { total: 288, ended: 37, ok: 29, failed: 6, again: 2 };
    let headline = Headline {
        name: "nightly".into(),
        progress,
        left_s: Some(11_400),
        at_once: 1,
        state: "",
        stopped: None,
    };
    let liveness = Liveness::Unknown;
    let perftriage = "perftriage".into();
    Snapshot { headline, cells: Vec::new(), runs: Vec::new(), fixes: Vec::new(), liveness, perftriage }
}

/// A campaign runs in a process of its own: the board reads its journal every other tick (a
/// driver that died is said within two seconds of the read) and the header says how it stands.
#[test]
fn the_header_says_how_the_workspaces_campaign_stands() {
    let mut s = state();
    let reads =
        |effects: Vec<Effect>| effects.iter().filter(|e| matches!(e, Effect::ReadCampaign(_))).count();
    let asked: usize = (0..10).map(|_| reads(update(&mut s, Msg::Tick("t".into())))).sum();
    assert_eq!(asked, 5, "ticks 1, 3, 5, 7 and 9 of ten");
    update(&mut s, Msg::Campaign(Some(nightly_snapshot())));
    let screen = common::screen_of(&s, 200, 48);
    assert!(
        screen.lines().next().unwrap().contains("campaign nightly 37/288 ✓29 ✗6 ↻2 · ~3h10 left (1 at once)"),
        "{screen}"
    );
}

/// `]` and `[` in `O` switch between the workspace's campaigns (it only ever showed the newest):
/// the board then reads the chosen one on every tick, and back at the newest it follows new ones.
#[test]
fn o_switches_between_the_workspaces_campaigns() {
    use perftriage::ids::CampaignName;
    let mut s = state();
    update(&mut s, Msg::CampaignNames(["nightly", "tuesday", "monday"].map(CampaignName::from).to_vec()));
    update(&mut s, Msg::Campaign(Some(nightly_snapshot())));
    press(&mut s, Key::ch('O'));
    assert_eq!(press(&mut s, Key::ch(']')), vec![Effect::ReadCampaign(Some("tuesday".into()))]);
    assert!(s.session.message.clone().unwrap().1.contains("campaign tuesday (2 of 3, newest first)"));
    let mut tuesday = nightly_snapshot();
    tuesday.headline.name = "tuesday".into();
    update(&mut s, Msg::Campaign(Some(tuesday)));
    let reads: Vec<Effect> = (0..2).flat_map(|_| update(&mut s, Msg::Tick("t".into()))).collect();
    assert!(reads.contains(&Effect::ReadCampaign(Some("tuesday".into()))), "{reads:?}");
    assert!(common::screen_of(&s, 200, 48).contains("campaign tuesday"), "the view shows the one chosen");
    assert_eq!(press(&mut s, Key::ch(']')), vec![Effect::ReadCampaign(Some("monday".into()))]);
    update(
        &mut s,
        Msg::Campaign(Some({
            let mut m = nightly_snapshot();
            m.headline.name = "monday".into();
            m
        })),
    );
    assert!(press(&mut s, Key::ch(']')).is_empty(), "monday is the oldest");
    assert!(s.session.message.clone().unwrap().1.contains("it is the oldest of 3"));
    press(&mut s, Key::ch('['));
    update(
        &mut s,
        Msg::Campaign(Some({
            let mut t = nightly_snapshot();
            t.headline.name = "tuesday".into();
            t
        })),
    );
    press(&mut s, Key::ch('['));
    assert_eq!(s.session.campaign_chosen, None, "at the newest the board follows new campaigns");
}

/// `j`/`k` in `O` select a cell and Enter opens its runs, fixes and result as a document in the
/// log pane (the view only scrolled; nothing led from a cell to its evidence).
#[test]
fn enter_on_a_cell_in_o_opens_its_runs_fixes_and_result() {
    use perftriage::campaigns::CellLine;
    use perftriage::dataset::Variant;
    use perftriage::ids::Short;
    let mut s = state();
    let mut snapshot = nightly_snapshot();
    let cell = |short: &str, variant| CellLine {
        short: Short::from(short),
        variant,
        standing: "✓ ok".into(),
        runs: 1,
    };
    snapshot.cells = vec![
        cell("aaaa0001", Variant::Baseline),
        cell("aaaa0001", Variant::Human),
        cell("aaaa0002", Variant::Baseline),
        cell("aaaa0002", Variant::Human),
    ];
    update(&mut s, Msg::Campaign(Some(snapshot)));
    press(&mut s, Key::ch('O'));
    for _ in 0..2 {
        press(&mut s, Key::ch('j'));
    }
    let effects = press(&mut s, enter());
    let [Effect::OpenDocument { key, document, .. }] = effects.as_slice() else { panic!("{effects:?}") };
    assert_eq!((key.short.as_str(), key.variant), ("aaaa0002", Variant::Baseline));
    assert_eq!(*document, perftriage::app::Document::CampaignCell("nightly".into()));
    assert_eq!(s.mode, Mode::Normal, "the document shows in the log pane");
}

/// A campaign whose driving process is gone says so in the header, with the command that goes
/// on, instead of a time left that nothing is spending.
#[test]
fn the_header_says_a_campaign_whose_process_is_gone_stopped_and_how_to_resume_it() {
    use perftriage::campaigns::{Driver, Liveness};
    let mut s = state();
    let driver = Driver { pid: 4242, host: "gpu-1".into(), since: "2026-11-28T01:00:00Z".into() };
    let snapshot = nightly_snapshot().with_liveness(Liveness::Gone(driver), "perftriage --workspace /ws");
    update(&mut s, Msg::Campaign(Some(snapshot)));
    let screen = common::screen_of(&s, 200, 48);
    let header = screen.lines().next().unwrap();
    assert!(header.contains("campaign nightly 37/288 ✓29 ✗6 ↻2 · stopped: its process is gone — perftriage --workspace /ws campaign resume nightly"), "{screen}");
    assert!(!header.contains("left"), "{header}");
}

/// `C` while a campaign's driver is alive in the workspace, or while this board's own start has
/// not written its journal yet (`C y C y`), starts nothing and says which campaign runs.
#[test]
fn c_starts_no_second_campaign_while_one_runs_or_starts() {
    use perftriage::campaigns::{Driver, Liveness};
    let mut s = state();
    let driver = Driver { pid: 4242, host: "gpu-1".into(), since: "2026-11-28T01:00:00Z".into() };
    let snapshot = nightly_snapshot().with_liveness(Liveness::Driving(driver), "");
    update(&mut s, Msg::Campaign(Some(snapshot)));
    let effects = press(&mut s, Key::ch('C'));
    assert!(effects.is_empty(), "{effects:?}");
    let said = s.session.message.clone().unwrap().1;
    assert!(said.contains("campaign nightly is running (pid 4242 on gpu-1"), "{said}");
    let mut s = state();
    let Some(Effect::PlanCampaign(shorts)) = press(&mut s, Key::ch('C')).first().cloned() else { panic!() };
    let plan = perftriage::app::CampaignPlan {
        shorts: shorts.clone(),
        images: Vec::new(),
        run_s: Vec::new(),
        concurrency: 1,
        perftriage: "perftriage".into(),
    };
    update(&mut s, Msg::CampaignPlanned(plan));
    let effects = press(&mut s, Key::ch('y'));
    assert!(matches!(effects.as_slice(), [Effect::StartCampaign { .. }]), "{effects:?}");
    assert!(press(&mut s, Key::ch('C')).is_empty(), "a second C while the first starts");
    let said = s.session.message.clone().unwrap().1;
    assert!(said.contains("is starting: one campaign at a time"), "{said}");
}

/// `C` plans a campaign over the commits shown; its confirm says how many runs, in which images
/// (a variant's fixed image where it has one), how long the earlier runs say it takes; yes starts
/// it as a process of its own.
#[test]
fn c_starts_a_campaign_after_a_confirm_of_its_runs_images_and_duration() {
    use perftriage::app::{CampaignPlan, ConfirmAction, Mode};
    use perftriage::dataset::Variant;
    let mut s = state();
    s.board.picked = ["4fb56914".into(), "310aca88".into()].into_iter().collect();
    let change = perftriage::triage::Change::Fix {
        variant: "human".into(),
        recipe: "numpy_lt_2".into(),
        outcome: perftriage::triage::FixOutcome::Verified,
        image: Some("perftriage-fixed:4fb56914".into()),
        log: None,
    };
    s.board.book.apply("4fb56914", change, "2026-11-27T00:00:00Z".into()).unwrap();
    let effects = press(&mut s, Key::ch('C'));
    let Some(Effect::PlanCampaign(shorts)) = effects.first() else { panic!("{effects:?}") };
    assert_eq!(shorts.len(), 2, "the picked commits");
    let image = |short: &str, v: Variant| (short.into(), v, Ok(format!("img:{short}-{}", v.name()).into()));
    let images = shorts.iter().flat_map(|c| Variant::ALL.map(|v| image(c.as_str(), v))).collect();
    let perftriage = "perftriage --config '/etc/my config.toml' --workspace /ws".to_string();
    let run_s = vec![100.0, 120.0, 3000.0];
    let plan = CampaignPlan { shorts: shorts.clone(), images, run_s, concurrency: 2, perftriage };
    update(&mut s, Msg::CampaignPlanned(plan));
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    let text = confirm.preview.join("\n");
    assert!(text.contains("6 runs: 2 commit(s) × baseline, human, agent, 2 at a time"), "{text}");
    assert!(text.contains("duration: about 0h06 (the median of 3 earlier runs: 2m00 each)"), "{text}");
    assert!(text.contains("  perftriage-fixed:4fb56914 (fixed) × 1"), "the fixed image: {text}");
    assert!(text.contains("images (6):") && !text.contains("img:4fb56914-human"), "{text}");
    assert!(
        text.contains("`perftriage --config '/etc/my config.toml' --workspace /ws campaign pause board-"),
        "the board's flags, so it pastes as printed: {text}"
    );
    let ConfirmAction::StartCampaign { name, .. } = confirm.action.clone() else { panic!() };
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(effects, [Effect::StartCampaign { shorts: shorts.clone(), name }]);
}

/// The campaign's process could not record its fixes (the board holds the workspace): the board
/// records them from the journal, once; `O` shows each cell's standing, `R` lists its runs.
#[test]
fn the_board_records_a_campaigns_fixes_and_shows_its_cells_and_runs() {
    use perftriage::campaigns::{CellLine, Headline, Progress, RunLine, Snapshot};
    use perftriage::dataset::Variant;
    let mut s = state();
    let progress = Progress { total: 3, ended: 2, ok: 1, failed: 1, again: 1 };
    let headline =
        Headline { name: "nightly".into(), progress, left_s: None, at_once: 1, state: "", stopped: None };
    let cell = |v, standing: &str| CellLine {
        short: "4fb56914".into(),
        variant: v,
        standing: standing.into(),
        runs: 1,
    };
    let run = |id: &str, word: &str| RunLine {
        short: "4fb56914".into(),
        variant: Variant::Human,
        run_id: id.into(),
        word: word.into(),
        seconds: Some(75),
        launched: id.into(),
        placed: None,
    };
    let snapshot = Snapshot {
        headline,
        cells: vec![
            cell(Variant::Baseline, "✓ ok"),
            cell(Variant::Human, "✗ patch_fail: the same on every run, not retried"),
            cell(Variant::Agent, "◷ running"),
        ],
        runs: vec![run("r1", "numpy2"), run("r2", "ok")],
        fixes: vec![perftriage::campaigns::FixLine {
            short: "4fb56914".into(),
            variant: Variant::Human,
            recipe: "numpy_lt_2".into(),
            image: "perftriage-fixed:x".into(),
            at: "2026-11-27T00:00:00Z".into(),
        }],
        liveness: perftriage::campaigns::Liveness::Unknown,
        perftriage: "perftriage".into(),
    };
    // A journal naming a recipe this board does not know records nothing.
    let unknown = update(&mut s, Msg::Campaign(Some(snapshot.clone())));
    assert!(!unknown.iter().any(|e| matches!(e, Effect::SaveTriage(_))), "{unknown:?}");
    assert_eq!(s.board.book.fixed_image("4fb56914", "human"), None);
    let known =
        perftriage::app::RecipeInfo { id: "numpy_lt_2".into(), title: "numpy".into(), answers: vec![] };
    s.session.recipes = vec![known];
    let effects = update(&mut s, Msg::Campaign(Some(snapshot.clone())));
    assert!(effects.iter().any(|e| matches!(e, Effect::SaveTriage(_))), "{effects:?}");
    assert_eq!(
        s.board.book.fixed_image("4fb56914", "human").map(|i| i.to_string()),
        Some("perftriage-fixed:x".into())
    );
    let again = update(&mut s, Msg::Campaign(Some(snapshot)));
    assert!(!again.iter().any(|e| matches!(e, Effect::SaveTriage(_))), "recorded once: {again:?}");
    press(&mut s, Key::ch('O'));
    let view = common::screen_of(&s, 160, 48);
    assert!(view.contains("campaign nightly 2/3"), "{view}");
    let row = view.lines().find(|l| l.contains("4fb56914")).unwrap();
    assert!(row.contains("✓ ok") && row.contains("✗ patch_fail") && row.contains("◷ running"), "{row}");
    assert!(view.contains("r1") && view.contains("1m15"), "its runs: {view}");
    press(&mut s, esc());
    press(&mut s, Key::ch('R'));
    let runs = common::screen_of(&s, 160, 48);
    let first = runs.lines().position(|l| l.contains("run r2")).unwrap();
    assert!(runs.lines().nth(first + 1).unwrap().contains("run r1"), "newest first: {runs}");
}

/// `O` then `p`, `r` or `X`: a confirm that says what happens and the command it is the same as
/// (with the board's flags), then the verb as an effect; a resume of a campaign whose driver is
/// alive is refused.
#[test]
fn the_campaign_view_pauses_resumes_and_cancels_after_a_confirm() {
    use perftriage::app::Mode;
    use perftriage::campaigns::{Driver, Liveness, Verb};
    let mut s = state();
    let driver = Driver { pid: 4242, host: "gpu-1".into(), since: "2026-11-28T01:00:00Z".into() };
    let flags = "perftriage --config /etc/p.toml --workspace /ws";
    let running = nightly_snapshot().with_liveness(Liveness::Driving(driver.clone()), flags);
    update(&mut s, Msg::Campaign(Some(running)));
    press(&mut s, Key::ch('O'));
    assert!(press(&mut s, Key::ch('r')).is_empty());
    assert!(s.session.message.clone().unwrap().1.contains("is running: nothing to resume"));
    press(&mut s, Key::ch('p'));
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    let text = confirm.preview.join("\n");
    assert!(text.contains("its driver (pid 4242 on gpu-1"), "{text}");
    assert!(text.contains(&format!("the same as `{flags} campaign pause nightly`")), "{text}");
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(effects, [Effect::Campaign { name: "nightly".into(), verb: Verb::Pause }]);
    let gone = nightly_snapshot().with_liveness(Liveness::Gone(driver), flags);
    update(&mut s, Msg::Campaign(Some(gone)));
    press(&mut s, Key::ch('O'));
    press(&mut s, Key::ch('r'));
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(effects, [Effect::Campaign { name: "nightly".into(), verb: Verb::Resume }]);
    press(&mut s, Key::ch('O'));
    press(&mut s, Key::ch('X'));
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(effects, [Effect::Campaign { name: "nightly".into(), verb: Verb::Cancel }]);
}

/// `x` on a commit whose live run is the campaign's (none of the board's own): a confirm naming
/// its driver and the headless command, then the driver is asked; `R` lists the campaign's run
/// with its image, host and container, and `x` there asks the same.
#[test]
fn x_on_a_campaigns_run_asks_its_driver_after_a_confirm() {
    use perftriage::app::Mode;
    use perftriage::campaigns::{Driver, Liveness, Placed, RunLine};
    let mut s = state();
    let short = s.board.selected_short().cloned().unwrap();
    let mut snapshot = nightly_snapshot();
    snapshot.runs.push(RunLine {
        short: short.clone(),
        variant: perftriage::dataset::Variant::Human,
        run_id: "r9".into(),
        word: "running".into(),
        seconds: None,
        launched: "2026-11-28T01:00:00Z".into(),
        placed: Some(Placed { image: "img:h".into(), host: Some("gpu-2".into()) }),
    });
    let driver = Driver { pid: 4242, host: "gpu-1".into(), since: "2026-11-28T01:00:00Z".into() };
    let snapshot = snapshot.with_liveness(Liveness::Driving(driver), "perftriage --workspace /ws");
    update(&mut s, Msg::Campaign(Some(snapshot)));
    press(&mut s, Key::ch('x'));
    let Mode::Confirm(confirm) = &s.mode else { panic!("{:?}", s.mode) };
    let text = confirm.preview.join("\n");
    assert!(text.contains("Its driver (pid 4242 on gpu-1"), "{text}");
    assert!(text.contains("`perftriage --workspace /ws campaign cancel nightly --run r9`"), "{text}");
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(
        effects,
        [Effect::Cancel(perftriage::app::JobKey::CampaignRun("nightly".into(), "r9".into()))]
    );
    press(&mut s, Key::ch('R'));
    let screen = common::screen_of(&s, 200, 48);
    assert!(screen.contains("img:h @ gpu-2 · "), "{screen}");
    assert!(screen.contains("0 running, 0 queued here, the campaign's 1 running"), "{screen}");
    press(&mut s, Key::ch('x'));
    assert!(matches!(&s.mode, Mode::Confirm(c) if c.title.contains("(campaign nightly)")), "{:?}", s.mode);
}

/// `L` on a commit whose live run is the campaign's follows that run's server log from its
/// driver's spool (titled live), rather than the variant's recorded output.
#[test]
fn l_on_a_campaigns_running_commit_follows_its_live_log() {
    use perftriage::app::{LogId, LogKey};
    use perftriage::campaigns::{Driver, Liveness, RunLine};
    let mut s = state();
    let short = s.board.selected_short().cloned().unwrap();
    let mut snapshot = nightly_snapshot();
    let variant = perftriage::dataset::Variant::Agent;
    let (run_id, launched) = ("r7".into(), "2026-11-28T01:00:00Z".into());
    let line = RunLine {
        short: short.clone(),
        variant,
        run_id,
        word: "running".into(),
        seconds: None,
        launched,
        placed: None,
    };
    snapshot.runs.push(line);
    let driver = Driver { pid: 4242, host: "gpu-1".into(), since: "2026-11-28T01:00:00Z".into() };
    update(&mut s, Msg::Campaign(Some(snapshot.with_liveness(Liveness::Driving(driver), "perftriage"))));
    let effects = press(&mut s, Key::ch('L'));
    let (ring, name) = (s.logs.ring, perftriage::ids::CampaignName::from("nightly"));
    let follow = |pane| {
        let log = LogId::Campaign { run_id: "r7".into(), pane };
        Effect::FollowCampaignLog {
            key: LogKey { short: short.clone(), variant, log },
            name: name.clone(),
            ring,
        }
    };
    use perftriage::runs::Pane::{Benchmark, Server};
    assert_eq!(effects, [follow(Benchmark), follow(Server)], "both panes, the server's shown");
    let screen = common::screen_of(&s, 200, 48);
    assert!(screen.contains("campaign nightly, run r7, server (live"), "{screen}");
    press(&mut s, Key::ch('o'));
    let screen = common::screen_of(&s, 200, 48);
    assert!(screen.contains("campaign nightly, run r7, benchmark (live"), "o: the benchmark's: {screen}");
}

/// `x` on a commit whose live job is a fix (or a build), not a run: a confirm, then the job
/// service is asked to stop it; a fix that ends not applied is no longer live.
#[test]
fn x_on_a_commit_being_fixed_or_built_cancels_the_fix_or_the_build_after_a_confirm() {
    use perftriage::app::{FixEnd, JobKey, JobMsg};
    let mut s = state();
    let short = s.board.selected_short().cloned().unwrap();
    let variant = perftriage::dataset::Variant::Human;
    s.runs.fixes.insert((short.clone(), variant), "numpy_lt_2".into());
    assert!(press(&mut s, Key::ch('x')).is_empty(), "a confirm first");
    let screen = common::screen_of(&s, 160, 48);
    assert!(screen.contains(&format!("Cancel fix numpy_lt_2 on {short} human?")), "{screen}");
    let effects = press(&mut s, Key::ch('y'));
    assert_eq!(effects, [Effect::Cancel(JobKey::Fix(short.clone(), variant))]);
    let why = "cancelled; its container is removed and nothing recorded".to_string();
    let not_applied = FixEnd::NotApplied { recipe: "numpy_lt_2".into(), why };
    update(&mut s, Msg::Job(JobMsg::fix_ended(short.clone(), variant, not_applied)));
    assert!(s.runs.fixes.is_empty(), "no longer live");
    let effects = press(&mut s, Key::ch('x'));
    assert!(effects.is_empty() && s.session.message.as_ref().unwrap().1.contains("has no live run"));
    let building = perftriage::app::BuildView { live: true, phase: "deps".into(), ..Default::default() };
    s.builds.by_commit.insert(short.clone(), building);
    assert!(press(&mut s, Key::ch('x')).is_empty(), "a confirm first");
    let screen = common::screen_of(&s, 160, 48);
    assert!(screen.contains(&format!("Cancel the build of {short}?")), "{screen}");
    assert_eq!(press(&mut s, Key::ch('y')), [Effect::Cancel(JobKey::Build(short))]);
}

/// A campaign the board watched run ends: a toast says how it went, and the terminal's bell rings
/// with a desktop notification; a campaign already ended when first read does neither.
#[test]
fn the_end_of_a_watched_campaign_is_said_with_a_toast_and_the_bell() {
    use perftriage::campaigns::{Headline, Progress, Snapshot};
    let mut s = state();
    let snapshot = |ended: usize| {
        let progress = Progress { total: 2, ended, ok: ended, failed: 0, again: 0 };
        let headline =
            Headline { name: "nightly".into(), progress, left_s: None, at_once: 1, state: "", stopped: None };
        let liveness = perftriage::campaigns::Liveness::Unknown;
        Snapshot {
            headline,
            cells: vec![],
            runs: vec![],
            fixes: vec![],
            liveness,
            perftriage: "perftriage".into(),
        }
    };
    assert!(update(&mut s, Msg::Campaign(Some(snapshot(1)))).is_empty());
    let effects = update(&mut s, Msg::Campaign(Some(snapshot(2))));
    assert_eq!(effects, [Effect::Notify("campaign nightly ended: 2/2 ended · ✓2 ✗0 ↻0".into())]);
    assert!(
        s.session.message.as_ref().is_some_and(|m| m.1.contains("campaign nightly ended")),
        "{:?}",
        s.session.message
    );
    assert!(update(&mut s, Msg::Campaign(Some(snapshot(2)))).is_empty(), "said once");
}
