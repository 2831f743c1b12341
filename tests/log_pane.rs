//! The log pane over `update` (messages in, state and effects out) and on screen.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::{chars, decoded, enter, press, state};
use perftriage::app::{AppState, Effect, Key, KeyCode, LogMsg, Msg, update};
use perftriage::jobs::logs::Logs;
use perftriage::logs::DEFAULT_RING;
use perftriage::ui::{Theme, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// A board with the log of 7c01f706's failing variant open, fed `text`.
fn open_log(text: &str, ring: usize) -> AppState {
    let mut s = state();
    s.logs.ring = ring;
    update(&mut s, Msg::Resize(160, 48));
    press(&mut s, Key::ch('/'));
    chars(&mut s, "7c01f706");
    press(&mut s, enter());
    let effects = press(&mut s, Key::ch('L'));
    let Some(Effect::OpenLog { key, source, text: fallback, .. }) = effects.into_iter().next() else {
        panic!("OpenLog")
    };
    assert_eq!(key.variant, perftriage::dataset::Variant::Human, "the first failing variant");
    assert!(source.is_none(), "embedded data has no result file");
    assert!(!fallback.is_empty());
    update(&mut s, Msg::Log(LogMsg::Lines { key, lines: decoded(text), skipped: 0, finished: false }));
    s
}

fn numbered(n: usize) -> String {
    (0..n).map(|i| format!("INFO 07-24 13:15:43 [core.py:1] step {i}\n")).collect()
}

fn screen(s: &mut AppState) -> String {
    let theme = Theme::load("default").unwrap();
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    term.draw(|f| view(f, s, &theme)).unwrap();
    let buf = term.backend().buffer().clone();
    let w = buf.area.width as usize;
    let cells: Vec<&str> = buf.content.iter().map(|c| c.symbol()).collect();
    cells.chunks(w).map(|r| r.concat().trim_end().to_string()).collect::<Vec<_>>().join("\n")
}

#[test]
fn scrolling_up_pauses_and_end_resumes() {
    let mut s = open_log(&numbered(500), 50_000);
    let key = s.logs.recorded.as_ref().unwrap().key.clone();
    assert!(s.logs.recorded.as_ref().unwrap().follow);
    press(&mut s, Key::ch('k'));
    let view = s.logs.recorded.as_ref().unwrap();
    assert!(!view.follow);
    update(
        &mut s,
        Msg::Log(LogMsg::Lines { key, lines: decoded(&numbered(7)), skipped: 0, finished: false }),
    );
    assert_eq!(s.logs.recorded.as_ref().unwrap().new_while_paused, 7);
    assert!(screen(&mut s).contains("PAUSED +7 new"));
    press(&mut s, Key::plain(KeyCode::End));
    assert!(s.logs.recorded.as_ref().unwrap().follow);
    assert!(screen(&mut s).contains("FOLLOW"));
}

#[test]
fn search_next_keeps_context_and_filters_to_matches() {
    let mut text = numbered(300);
    text.push_str("ERROR 07-24 13:15:44 [core.py:9] boom\n");
    text.push_str(&numbered(300));
    let mut s = open_log(&text, 50_000);
    press(&mut s, Key::ch('/'));
    chars(&mut s, "step 2[0-9]$");
    press(&mut s, enter());
    let search = s.logs.recorded.as_ref().unwrap().search.as_ref().unwrap();
    assert_eq!(search.matches.len(), 20, "step 20..29 twice");
    press(&mut s, Key::ch('n'));
    let view = s.logs.recorded.as_ref().unwrap();
    let current = view.search.as_ref().unwrap().current.unwrap();
    assert!(view.top < current && current - view.top >= 5, "the match is not at the very top");
    press(&mut s, Key::ch('m'));
    let shown = screen(&mut s);
    assert!(
        shown.contains("matches only") && shown.contains("step 25") && !shown.contains("step 31"),
        "{shown}"
    );
    press(&mut s, Key::ch('m'));
    press(&mut s, Key::ch('g'));
    press(&mut s, Key::ch('e'));
    let view = s.logs.recorded.as_ref().unwrap();
    let error_line = 300;
    assert!(view.top <= error_line && error_line < view.top + s.log_rows(), "jumped to the error");
    press(&mut s, Key::ch('v'));
    press(&mut s, Key::ch('v'));
    press(&mut s, Key::ch('v'));
    assert!(screen(&mut s).contains("boom"));
    assert!(!screen(&mut s).contains("step 1"), "level ≥ error hides info lines");
}

#[test]
fn the_search_prompt_opens_empty_recalls_the_last_query_on_up_and_esc_closes_search_then_pane() {
    let mut s = open_log(&numbered(10), 50_000);
    press(&mut s, Key::ch('/'));
    chars(&mut s, "step 3");
    press(&mut s, enter());
    // A new search is what is typed, never appended to the last (`/torchtask_done`).
    press(&mut s, Key::ch('/'));
    let perftriage::app::Mode::Prompt(p) = &s.mode else { panic!() };
    assert_eq!(p.text, "", "opens empty");
    chars(&mut s, "step 4");
    press(&mut s, enter());
    assert_eq!(s.logs.recorded.as_ref().unwrap().search.as_ref().unwrap().query, "step 4");
    press(&mut s, Key::plain(KeyCode::Esc));
    assert!(s.logs.recorded.as_ref().unwrap().search.is_none());
    press(&mut s, Key::ch('/'));
    press(&mut s, Key::plain(KeyCode::Up));
    let perftriage::app::Mode::Prompt(p) = &s.mode else { panic!() };
    assert_eq!(p.text, "step 4", "↑ brings the last query back");
    press(&mut s, Key::plain(KeyCode::Esc));
    press(&mut s, Key::plain(KeyCode::Esc));
    assert!(s.logs.recorded.is_none());
}

#[test]
fn scrolling_above_the_ring_asks_the_spool() {
    let mut s = open_log(&numbered(1000), 100);
    let view = s.logs.recorded.as_ref().unwrap();
    assert_eq!(view.ring.first(), 900);
    press(&mut s, Key::ch('g'));
    let effects = press(&mut s, Key::ch('j'));
    let Some(Effect::ReadLog { first, count, .. }) = effects.first() else { panic!("{effects:?}") };
    assert!(*first <= 1 && *count > 0);
    let key = s.logs.recorded.as_ref().unwrap().key.clone();
    let page = decoded(&numbered(200));
    update(&mut s, Msg::Log(LogMsg::Page { key, first: 0, lines: page }));
    assert!(screen(&mut s).contains("step 2\n") || screen(&mut s).contains("step 2 "), "older lines drawn");
    assert!(press(&mut s, Key::ch('j')).is_empty(), "the page covers the screen: no new read");
}

#[test]
fn save_is_an_effect() {
    let mut s = open_log("x\n", 10);
    assert!(matches!(press(&mut s, Key::ch('W')).as_slice(), [Effect::SaveLog { .. }]));
}

#[test]
fn log_pane_snapshot_with_colours_progress_and_highlight() {
    let text = concat!(
        "\x1b[1;36m(APIServer pid=996)\x1b[0;0m INFO 07-24 13:15:43 [api_server.py:1] Starting vLLM API server\n",
        "Loading safetensors:   0%|          | 0/4\rLoading safetensors:  50%|#####     | 2/4\rLoading safetensors: 100%|##########| 4/4\n",
        "\x1b]0;owned\x07\x1b[2Jno escapes survive\n",
        "ERROR 07-24 13:15:44 [core.py:387] ModuleNotFoundError: No module named 'vllm.vllm_flash_attn.fa_utils'\n",
    );
    let mut s = open_log(text, 100);
    press(&mut s, Key::ch('/'));
    chars(&mut s, "ModuleNotFound");
    press(&mut s, enter());
    let shown = screen(&mut s);
    assert!(shown.contains("Loading safetensors: 100%|##########| 4/4") && !shown.contains("50%"));
    insta::assert_snapshot!(shown);
    let theme = Theme::load("default").unwrap();
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    term.draw(|f| view(f, &s, &theme)).unwrap();
    let buf = term.backend().buffer();
    let (y, line) = shown.lines().enumerate().find(|(_, l)| l.contains("(APIServer")).unwrap();
    let x = line[..line.find("(APIServer").unwrap()].chars().count();
    assert_eq!(buf[(x as u16, y as u16)].fg, ratatui::style::Color::Indexed(6), "container colour kept");
    let (y, line) = shown.lines().enumerate().find(|(_, l)| l.contains("] ModuleNotFound")).unwrap();
    let x = line[..line.find("ModuleNotFound").unwrap()].chars().count();
    let cell = &buf[(x as u16, y as u16)];
    assert_eq!(cell.bg, theme.selected.bg.unwrap(), "match highlighted: {:?} at {x},{y}", cell.symbol());
}

#[test]
fn a_search_also_covers_the_spool_below_the_ring() {
    let mut s = open_log(&numbered(1000), 100);
    press(&mut s, Key::ch('/'));
    chars(&mut s, "step 12$");
    let effects = press(&mut s, enter());
    let Some(Effect::SearchLog { key, query, upto }) = effects.first().cloned() else {
        panic!("{effects:?}")
    };
    assert_eq!(upto, 900);
    assert!(
        s.logs.recorded.as_ref().unwrap().search.as_ref().unwrap().matches.is_empty(),
        "line 12 is not in the ring"
    );
    let shown = screen(&mut s);
    assert!(shown.contains("searching the spool"), "{shown}");
    update(
        &mut s,
        Msg::Log(LogMsg::SearchHits {
            key: key.clone(),
            query: "stale".into(),
            hits: vec![(3, vec![(0, 1)])],
            done: true,
        }),
    );
    assert!(
        s.logs.recorded.as_ref().unwrap().search.as_ref().unwrap().matches.is_empty(),
        "hits of an older query are dropped"
    );
    update(&mut s, Msg::Log(LogMsg::SearchHits { key, query, hits: vec![(12, vec![(32, 39)])], done: true }));
    let effects = press(&mut s, Key::ch('n'));
    assert!(matches!(effects.as_slice(), [Effect::ReadLog { .. }]), "jumping to an old match reads it back");
    assert!(!screen(&mut s).contains("searching the spool"));
}

/// The recorded-log owner with a runtime for its blocking tasks, and the channel it answers on.
fn recorded_logs(
    ws: &std::path::Path,
) -> (Logs, tokio::sync::mpsc::UnboundedReceiver<Msg>, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let classifier = std::sync::Arc::new(perftriage::classify::Classifier::embedded().unwrap());
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    (Logs::new(ws, (classifier, perftriage::logs::Redactor::default()), tx), rx, runtime)
}

/// Messages until one `done` says the stream of them ended.
fn until(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>, done: impl Fn(&Msg) -> bool) -> Vec<Msg> {
    let mut msgs = Vec::new();
    while let Some(msg) = rx.blocking_recv() {
        let last = done(&msg);
        msgs.push(msg);
        if last {
            break;
        }
    }
    msgs
}

fn lines_finished(m: &Msg) -> bool {
    matches!(m, Msg::Log(LogMsg::Lines { finished: true, .. }))
}

#[test]
fn the_runtime_spools_a_recorded_log_and_searches_it_on_a_thread() {
    let ws = tempfile::tempdir().unwrap();
    let (mut logs, mut rx, runtime) = recorded_logs(ws.path());
    let _inside = runtime.enter();
    let key = perftriage::app::LogKey {
        short: "7c01f706".into(),
        variant: perftriage::dataset::Variant::Human,
        log: perftriage::app::LogId::Recorded,
    };
    let source = "fixtures/results/isobench/claude_code/results/7c01f706_human_result.json";
    logs.open(key.clone(), Some(source.into()), String::new(), DEFAULT_RING);
    let msgs = until(&mut rx, lines_finished);
    let all: Vec<perftriage::logs::Line> = msgs
        .into_iter()
        .flat_map(|m| if let Msg::Log(LogMsg::Lines { lines, .. }) = m { lines } else { vec![] })
        .collect();
    assert!(all.len() > 90, "{}", all.len());
    let spooled = std::fs::read_dir(ws.path().join("logs/7c01f706/human")).unwrap().count();
    assert_eq!(spooled, 1);
    assert!(all.iter().filter(|l| l.noise).count() > 0, "docker pull chatter is marked as noise");
    logs.search(key.clone(), "rope scaling".into(), all.len());
    let mut found = Vec::new();
    for msg in until(&mut rx, |m| matches!(m, Msg::Log(LogMsg::SearchHits { done: true, .. }))) {
        let Msg::Log(LogMsg::SearchHits { hits, .. }) = msg else { panic!("{msg:?}") };
        found.extend(hits.into_iter().map(|(n, _)| n));
    }
    assert_eq!(found, vec![90, 91], "lines 91 and 92 (0-based 90, 91)");
    logs.save(&key);
    let saved = until(&mut rx, |_| true);
    assert!(matches!(saved.as_slice(), [Msg::Notice(perftriage::app::Level::Info, _)]), "{saved:?}");
    assert!(ws.path().join("exports/7c01f706-human-recorded.log").exists());
}

#[test]
fn a_log_larger_than_the_ring_sends_only_its_newest_lines_and_numbers_them_right() {
    let ws = tempfile::tempdir().unwrap();
    let (logs, mut rx, runtime) = recorded_logs(ws.path());
    let _inside = runtime.enter();
    let mut s = open_log("", 1_000);
    let key = s.logs.recorded.as_ref().unwrap().key.clone();
    let text = numbered(30_000).replace("step 7\n", "step 7 \x1b[31mred\x1b[0m\n");
    logs.open(key.clone(), None, text, 1_000);
    let (mut sent, mut skipped) = (0, 0);
    for msg in until(&mut rx, lines_finished) {
        if let Msg::Log(LogMsg::Lines { lines, skipped: n, .. }) = &msg {
            (sent, skipped) = (sent + lines.len(), skipped + n);
        }
        update(&mut s, msg);
    }
    assert_eq!(sent + skipped, 30_000, "every line is sent or counted");
    // A 64 KiB chunk holds more lines than this ring: some are always skipped, however fast.
    assert!(skipped > 0, "lines the ring cannot hold are not sent: {sent} sent");
    let view = s.logs.recorded.as_ref().unwrap();
    assert_eq!((view.ring.first(), view.ring.total()), (29_000, 30_000));
    assert!(view.line(29_999).unwrap().text().ends_with("step 29999"));
    logs.read(key, 5, 3);
    let page = until(&mut rx, |_| true);
    let [Msg::Log(LogMsg::Page { first: 5, lines, .. })] = page.as_slice() else { panic!("{page:?}") };
    let texts: Vec<&str> = lines.iter().map(|l| l.text()).collect();
    assert!(texts[0].ends_with("step 5") && texts[2].ends_with("step 7 red"), "{texts:?}");
    assert!(!lines[2].styles.is_empty(), "read back from the spool with its colour");
}

#[test]
fn paused_pane_snapshot() {
    let mut s = open_log(&numbered(300), 50_000);
    for _ in 0..3 {
        press(&mut s, Key::plain(KeyCode::PageUp));
    }
    let key = s.logs.recorded.as_ref().unwrap().key.clone();
    update(
        &mut s,
        Msg::Log(LogMsg::Lines { key, lines: decoded(&numbered(4)), skipped: 0, finished: false }),
    );
    let shown = screen(&mut s);
    assert!(shown.contains("PAUSED +4 new"));
    insta::assert_snapshot!(shown);
}

#[test]
fn a_capped_line_expands_from_the_spool() {
    let ws = tempfile::tempdir().unwrap();
    let (logs, mut rx, runtime) = recorded_logs(ws.path());
    let _inside = runtime.enter();
    let long = format!("start {} end\n", "y".repeat(90_000));
    let mut s = open_log("", 100);
    let key = s.logs.recorded.as_ref().unwrap().key.clone();
    logs.open(key.clone(), None, long, DEFAULT_RING);
    for msg in until(&mut rx, lines_finished) {
        update(&mut s, msg);
    }
    assert!(screen(&mut s).contains("X expands"));
    let effects = press(&mut s, Key::ch('X'));
    let Some(Effect::ExpandLines { key, lines }) = effects.first().cloned() else { panic!("{effects:?}") };
    logs.expand(key, lines.clone());
    for msg in until(&mut rx, |m| matches!(m, Msg::Log(LogMsg::Expanded { .. }))) {
        update(&mut s, msg);
    }
    let view = s.logs.recorded.as_ref().unwrap();
    let line = view.line(lines[0]).unwrap();
    assert_eq!(line.text().len(), 90_010);
    assert!(line.full_chars.is_none() && view.wrap);
}

#[test]
fn w_saves_a_run_pane_s_log_from_its_spool() {
    let ws = tempfile::tempdir().unwrap();
    let (logs, mut rx, runtime) = recorded_logs(ws.path());
    let _inside = runtime.enter();
    let spool = ws.path().join("logs/7c01f706/human/run7-server.log");
    std::fs::create_dir_all(spool.parent().unwrap()).unwrap();
    std::fs::write(&spool, "INFO server up\n").unwrap();
    let key = perftriage::app::LogKey {
        short: "7c01f706".into(),
        variant: perftriage::dataset::Variant::Human,
        log: perftriage::app::LogId::Run { run_id: "run7".into(), pane: perftriage::runs::Pane::Server },
    };
    logs.save(&key);
    let said = until(&mut rx, |_| true);
    assert!(matches!(said.as_slice(), [Msg::Notice(perftriage::app::Level::Info, _)]), "{said:?}");
    let saved = std::fs::read_to_string(ws.path().join("exports/7c01f706-human-run7-server.log")).unwrap();
    assert_eq!(saved, "INFO server up\n");
    std::fs::write(&spool, "INFO server up\nINFO later\n").unwrap();
    logs.save(&key);
    until(&mut rx, |_| true);
    let second = std::fs::read_to_string(ws.path().join("exports/7c01f706-human-run7-server-2.log")).unwrap();
    assert_eq!(second.lines().count(), 2, "a second save goes beside the first");
    let first = std::fs::read_to_string(ws.path().join("exports/7c01f706-human-run7-server.log")).unwrap();
    assert_eq!(first, "INFO server up\n", "and leaves the first as it was");
}

#[test]
fn e_jumps_over_a_whole_traceback_to_the_next_error_block_and_a_static_log_is_not_paused() {
    let traceback: String =
        (0..30).map(|i| format!("ERROR 07-24 13:15:44 [engine.py:1] frame {i}\n")).collect();
    let text = [numbered(200), traceback.clone(), numbered(200), traceback, numbered(200)].concat();
    let mut s = open_log(&text, 50_000);
    let key = s.logs.recorded.as_ref().unwrap().key.clone();
    update(&mut s, Msg::Log(LogMsg::Lines { key, lines: Vec::new(), skipped: 0, finished: true }));
    press(&mut s, Key::ch('g'));
    let rows = s.log_rows();
    let error_in_view = |s: &AppState, line: usize| {
        let top = s.logs.recorded.as_ref().unwrap().top;
        top <= line && line < top + rows
    };
    press(&mut s, Key::ch('e'));
    assert!(error_in_view(&s, 200), "the first block");
    press(&mut s, Key::ch('e'));
    assert!(error_in_view(&s, 430), "the second block, not frame 1 of the first");
    press(&mut s, Key::ch('E'));
    assert!(error_in_view(&s, 200), "back to the first block's start");
    let shown = screen(&mut s);
    assert!(!shown.contains("PAUSED"), "a finished log is not paused: {shown}");
}
