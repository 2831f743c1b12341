//! The morning after a campaign (issue 57), on the real engine with the mock vLLM: counts and
//! codes as documented, verbs that leave an ended campaign alone, every campaign listed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::engine::{Setup, perftriage, ready, text};

fn journal(s: &Setup, name: &str) -> Vec<u8> {
    std::fs::read(s.root.join("ws/campaigns").join(name).join("journal.jsonl")).unwrap()
}

/// A campaign over one cell, run to its end; its exit code.
fn ran(s: &Setup, name: &str, variants: &str, short: &str) -> Option<i32> {
    let args = ["campaign", "start", "--name", name, "--variants", variants, "--commits", short];
    perftriage(s, &args).status.code()
}

/// `campaign status` exits 0 with nothing left failed and 3 with some (it said 0 for both);
/// `pause` and `cancel` of an ended campaign say so and change nothing (they rewrote it as
/// cancelled); `campaign list` gives every campaign, newest first, with its counts.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn an_ended_campaign_is_listed_said_ended_and_its_status_exits_as_documented() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["ok", "ok"], "");
    assert_eq!(ran(&s, "first", "b", &shorts[0]), Some(0));
    // The last commit's agent patch does not apply: its cell is left failed.
    assert_eq!(ran(&s, "second", "a", &shorts[1]), Some(3));
    let status = |name: &str| perftriage(&s, &["campaign", "status", name]).status.code();
    let said = text(&perftriage(&s, &["campaign", "status", "first"]));
    assert!(said.contains(" · ended 20") && said.contains(" · wall 0h0"), "start, end and wall time: {said}");
    assert_eq!((status("first"), status("second")), (Some(0), Some(3)));
    for verb in ["pause", "cancel"] {
        let before = journal(&s, "first");
        let out = perftriage(&s, &["campaign", verb, "first"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(
            text(&out).contains("campaign first already ended (1/1 ended · ✓1 ✗0 ↻0); nothing changed"),
            "{}",
            text(&out)
        );
        assert_eq!(journal(&s, "first"), before, "{verb} changed nothing");
    }
    let out = perftriage(&s, &["campaign", "list"]);
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with("second  ended  ") && lines[0].contains("1 cells ✓0 ✗1"),
        "newest first: {lines:?}"
    );
    assert!(lines[1].starts_with("first  ended  ") && lines[1].contains("1 cells ✓1 ✗0"), "{lines:?}");
    let out = perftriage(&s, &["campaign", "list", "--json"]);
    let first: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().nth(1).unwrap()).unwrap();
    assert!(first["ended"].as_str().is_some_and(|e| e >= first["started"].as_str().unwrap()), "{first:#}");
    // `report` gives the newest campaign; `--campaign` any other, and an unknown one is refused.
    let report = |extra: &[&str]| text(&perftriage(&s, &[&["report"], extra].concat()));
    assert!(report(&[]).contains("## Campaign second"), "{}", report(&[]));
    let first = report(&["--campaign", "first"]);
    assert!(first.contains("## Campaign first") && !first.contains("## Campaign second"), "{first}");
    let none = perftriage(&s, &["report", "--campaign", "nope"]);
    assert_eq!(none.status.code(), Some(2), "{}", text(&none));
}

fn launched(s: &Setup, name: &str) -> usize {
    String::from_utf8_lossy(&journal(s, name))
        .lines()
        .filter(|l| l.contains("\"event\":\"launched\""))
        .count()
}

/// `--rerun-failed NAME` runs only the cells that campaign left failed, and `--failing` only the
/// failing (commit, variant) cells — it re-ran a commit's successful variants with its failed one.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn only_the_failed_cells_run_again() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["ok", "ok"], "");
    // The last commit: its baseline and human measure, its agent's patch does not apply.
    assert_eq!(ran(&s, "night", "b,h,a", &shorts[1]), Some(3));
    assert_eq!(launched(&s, "night"), 3);
    let again = ["campaign", "start", "--name", "again", "--rerun-failed", "night"];
    assert_eq!(perftriage(&s, &again).status.code(), Some(3));
    assert_eq!(launched(&s, "again"), 1, "the agent only");
    let failing = [
        "campaign",
        "start",
        "--name",
        "failing",
        "--failing",
        "--variants",
        "b,h,a",
        "--commits",
        &shorts[1],
    ];
    let out = perftriage(&s, &failing);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("1 runs (1 commits × baseline, human, agent)"), "{}", text(&out));
    assert_eq!(launched(&s, "failing"), 1, "the failing cell, not the commit");
    let none = perftriage(&s, &["campaign", "start", "--name", "none", "--rerun-failed", "nope"]);
    assert_eq!(none.status.code(), Some(2), "{}", text(&none));
}

/// A cell that failed, was fixed and passed keeps both results: the journal's `finished` of each
/// run points at a file that holds that run (the first used to point at the cell's file, which
/// the re-run had overwritten).
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn every_attempt_keeps_its_result_and_the_journal_points_at_it() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["aimv2", "ok"], "");
    let args =
        ["campaign", "start", "--name", "fixed", "--variants", "b", "--auto-fix", "--commits", &shorts[0]];
    let out = perftriage(&s, &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let text = String::from_utf8_lossy(&journal(&s, "fixed")).into_owned();
    let finished: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["event"] == "finished")
        .collect();
    assert_eq!(finished.len(), 2, "failed, fixed, passed: {text}");
    for (event, status) in finished.iter().zip(["error", "success"]) {
        let file = std::fs::read(event["result"].as_str().unwrap()).unwrap();
        let result: serde_json::Value = serde_json::from_slice(&file).unwrap();
        assert_eq!(
            (&result["perftriage"]["run_id"], result["status"].as_str()),
            (&event["run_id"], Some(status))
        );
    }
    let newest = common::engine::result_of(&s, &shorts[0], "baseline");
    assert_eq!(newest["perftriage"]["run_id"], finished[1]["run_id"], "readers look at the newest");
}

/// Baseline and agent run in the same parent image: once the baseline's was fixed, the agent
/// starts in the fixed image — it used to launch in the broken one first, fail, and only then
/// take its sibling's.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_sibling_starts_in_the_fixed_image_before_it_fails() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["aimv2", "ok"], "");
    let args =
        ["campaign", "start", "--name", "shared", "--variants", "b,a", "--auto-fix", "--commits", &shorts[0]];
    let out = perftriage(&s, &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("agent: starts in its sibling's fixed image"), "{}", text(&out));
    let journal = String::from_utf8_lossy(&journal(&s, "shared")).into_owned();
    let agent = journal.lines().filter(|l| l.contains("\"launched\"") && l.contains("\"agent\"")).count();
    assert_eq!(agent, 1, "the agent ran once, in the fixed image: {journal}");
    let result = common::engine::result_of(&s, &shorts[0], "agent");
    assert!(result["perftriage"]["image"].as_str().unwrap().starts_with("perftriage-fixed"), "{result:#}");
}

/// `--notify CMD` runs the command when the campaign ends, its summary JSON on stdin.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn notify_runs_a_command_with_the_summary_on_its_stdin() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["ok", "ok"], "");
    let file = s.root.join("notified.json");
    let notify = format!("cat > {}", file.display());
    let args = [
        "campaign",
        "start",
        "--name",
        "told",
        "--variants",
        "b",
        "--notify",
        &notify,
        "--commits",
        &shorts[0],
    ];
    assert_eq!(perftriage(&s, &args).status.code(), Some(0));
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(
        (&summary["name"], &summary["ok"], &summary["total"]),
        (&"told".into(), &1.into(), &1.into()),
        "{summary:#}"
    );
    assert!(summary["outcome"]["ended"].is_string(), "{summary:#}");
}

/// The morning table (issue 57 item 7): `campaign status` lists every cell with its state, the
/// image its last run ran in and the fixes in it, its runs and their time, its result file, why it
/// is left and the next step — as text, JSON and one CSV line per (commit, variant) — and `report
/// --campaign` carries the same table. Before, a fixed cell said `ok` with no image, recipe or
/// result, and a left one no next step.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn the_morning_table_gives_each_cell_its_image_fixes_runs_result_and_next_step() {
    let Some(_engine) = ready() else { return };
    let (s, shorts) = common::campaign::campaign_setup_with(&["aimv2", "ok"], "");
    let commits = shorts.join(",");
    let args =
        ["campaign", "start", "--name", "night", "--variants", "b,a", "--auto-fix", "--commits", &commits];
    let out = perftriage(&s, &args);
    assert_eq!(out.status.code(), Some(3), "the second commit's agent patch fails: {}", text(&out));
    let status = perftriage(&s, &["campaign", "status", "night"]);
    let shown = text(&status);
    println!("{shown}");
    // A cell: its head line and the indented lines under it.
    let cell = |short: &str, variant: &str| {
        let head = |l: &&str| l.split_whitespace().take(2).eq([short, variant]);
        let mut lines = shown.lines().skip_while(|l| !head(l));
        let first = lines.next().unwrap_or_else(|| panic!("no {short} {variant} in {shown}"));
        let rest = lines.take_while(|l| l.starts_with(' ')).map(str::trim).collect::<Vec<_>>();
        (first.split_whitespace().collect::<Vec<_>>(), rest)
    };
    let (head, under) = cell(&shorts[0], "baseline");
    assert_eq!((head[2], head[3], head[4]), ("ok", "2", "runs"), "{head:?}");
    assert!(
        head[6].starts_with("perftriage-fixed:") && head[7..] == ["[fixed:", "aimv2_exist_ok]"],
        "{head:?}"
    );
    let result = "result runs/";
    assert!(
        under
            .iter()
            .any(|l| l.starts_with(result) && l.ends_with(&format!("{}_baseline_result.json", shorts[0])))
    );
    let (head, under) = cell(&shorts[1], "agent");
    assert_eq!(head[2], "left");
    assert!(under.contains(&"why    patch_fail: the same on every run, not retried"), "{under:?}");
    assert!(under.iter().any(|l| l.starts_with("next   u unfixable")), "{under:?}");
    let json = perftriage(&s, &["campaign", "status", "night", "--json"]);
    let summary: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let cells = summary["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    assert!(cells[0]["image"].as_str().unwrap().starts_with("perftriage-fixed"), "{:#}", cells[0]);
    assert_eq!(cells[0]["fixes"], serde_json::json!(["aimv2_exist_ok"]));
    let result: serde_json::Value =
        serde_json::from_slice(&std::fs::read(cells[0]["result"].as_str().unwrap()).unwrap()).unwrap();
    assert_eq!(result["status"], "success", "the result file named is the cell's last run's");
    assert!(cells[3]["next"].as_str().unwrap().starts_with("u unfixable"), "{:#}", cells[3]);
    let csv = perftriage(&s, &["campaign", "status", "night", "--csv"]);
    let csv = String::from_utf8_lossy(&csv.stdout).into_owned();
    assert_eq!(csv.lines().count(), 5, "a header and a line per cell: {csv}");
    assert!(
        csv.starts_with("short,variant,state,image,fixes,runs,run_s,result,category,why,next\n"),
        "{csv}"
    );
    assert!(
        csv.lines().any(|l| l.starts_with(&format!("{},agent,left,", shorts[1])) && l.contains("patch_fail"))
    );
    // Enter on the fixed cell in `O`: its runs, the fix with the end of its log, its result.
    let ws = s.root.join("ws");
    let short = perftriage::ids::Short::from(shorts[0].as_str());
    let recipes = perftriage::fixes::RecipeBook::embedded().unwrap();
    let document = perftriage::jobs::cell_document::text(
        (&ws, &recipes),
        &"night".into(),
        (&short, perftriage::dataset::Variant::Baseline),
    );
    println!("{document}");
    assert!(document.contains("runs (2):") && document.contains("(aimv2)"), "{document}");
    assert!(document.contains("aimv2_exist_ok verified → perftriage-fixed:"), "{document}");
    assert!(
        document.contains("[fixed: aimv2_exist_ok]"),
        "its morning line names the launched image's fix: {document}"
    );
    assert!(document.contains("aimv2_exist_ok: verified"), "the fix log's end: {document}");
    assert!(document.contains("\"status\": \"success\""), "the newest result: {document}");
    assert!(document.lines().any(|l| l.trim() == "runs (2):"), "a line each: {document}");
    let report = perftriage(&s, &["report", "--campaign", "night", "--format", "md"]);
    let report = String::from_utf8_lossy(&report.stdout).into_owned();
    assert!(
        report.contains("| commit | variant | state | image (fixes) | runs | time | result | next step |"),
        "{report}"
    );
    assert!(
        report.lines().any(|l| l.starts_with(&format!("| {} | agent | left: patch_fail", shorts[1]))),
        "{report}"
    );
    // The HTML page carries the same morning table, a row per cell.
    let html = perftriage(&s, &["report", "--campaign", "night", "--format", "html"]);
    let html = String::from_utf8_lossy(&html.stdout).into_owned();
    let table = html.split("<table class=\"morning\">").nth(1).expect("the page has the morning table");
    let left = format!("<tr><td>{}</td><td>agent</td><td>left</td>", shorts[1]);
    assert!(table.contains(&left) && table.contains("patch_fail"), "{table}");
}
