//! Campaigns on the real engine with the mock vLLM: six commits × three variants, some failing
//! the way the mock's images do (aimv2, numpy 2) and one whose agent patch does not apply, run
//! with `--auto-fix`; and thirty commits × three variants, two at a time, with the same failures
//! and a registry that refuses a pull at first, killed with SIGKILL at moments chosen at random
//! (seeded, the seed printed) and resumed each time until it ends.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::campaign::{campaign_setup, campaign_setup_with, image_of};
use common::engine::{Setup, perftriage, ready, text};
use common::second_daemon::SecondDaemon;
use common::wait::Reaped;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The image each commit of the small campaign runs in: the mock's failure flavours.
const FLAVOURS: &[&str] = &["ok", "aimv2", "ok", "numpy2", "ok", "ok"];

/// The big campaign's flavours: thirty commits, six of them fixable, one (`pull`) in an image
/// behind a registry that refuses the pull until the test tags the image in.
fn big_flavours() -> Vec<&'static str> {
    (0..30)
        .map(|i| match (i, i % 10) {
            (7, _) => "pull",
            (_, 1) => "aimv2",
            (_, 3) => "numpy2",
            _ => "ok",
        })
        .collect()
}

fn start_args(shorts: &[String]) -> Vec<String> {
    let list = shorts.join(",");
    ["campaign", "start", "--name", "nightly", "--variants", "b,h,a", "--auto-fix", "--commits", &list]
        .map(String::from)
        .to_vec()
}

/// `campaign status --json`'s cells by (short, variant).
fn cells(s: &Setup) -> BTreeMap<Cell, serde_json::Value> {
    let out = perftriage(s, &["campaign", "status", "nightly", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let left = status["outcome"]["left"].as_object().is_some_and(|l| !l.is_empty());
    assert_eq!(out.status.code(), Some(if left { 3 } else { 0 }), "3 when some are left: {}", text(&out));
    let key = |c: &serde_json::Value| {
        (c["short"].as_str().unwrap().to_string(), c["variant"].as_str().unwrap().to_string())
    };
    status["cells"].as_array().unwrap().iter().map(|c| (key(c), c.clone())).collect()
}

/// A campaign's (short, variant).
type Cell = (String, String);

/// The journal's runs that ended, by (short, variant): (run id, status, category), runs lost to a
/// kill (never started, or stopped by it) left out.
fn ended_runs(s: &Setup) -> BTreeMap<Cell, Vec<(String, String, String)>> {
    let text = std::fs::read_to_string(s.root.join("ws/campaigns/nightly/journal.jsonl")).unwrap();
    let events: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let str_of = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
    let cell_of: BTreeMap<String, Cell> = events
        .iter()
        .filter(|e| e["event"] == "launched")
        .map(|e| (str_of(&e["run_id"]), (str_of(&e["short"]), str_of(&e["variant"]))))
        .collect();
    let mut out: BTreeMap<_, Vec<_>> = BTreeMap::new();
    for e in events.iter().filter(|e| e["event"] == "finished") {
        let (run, category) = (str_of(&e["run_id"]), str_of(&e["category"]));
        if !["lost_in_a_restart", "cancelled"].contains(&category.as_str()) {
            out.entry(cell_of[&run].clone()).or_default().push((run, str_of(&e["status"]), category));
        }
    }
    out
}

/// The result file the journal names for `run` (its error and tail say why it failed), or why
/// there is none to show.
fn result_of(s: &Setup, run: &str) -> String {
    let text = std::fs::read_to_string(journal(s)).unwrap_or_default();
    let finished = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|e| e["event"] == "finished" && e["run_id"] == run);
    let Some(path) = finished.as_ref().and_then(|e| e["result"].as_str()) else {
        return format!("no result file journalled for {run}");
    };
    let path = s.root.join("ws").join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| format!("{}: {e}", path.display()))
}

/// Every cell ended as the flavours say: the fixable ones failed once, were fixed and succeeded
/// once (an agent may start in its baseline's fixed image and succeed at once); the refused pull failed once and succeeded on its retry; the patch that does not apply
/// failed once and was never retried; no run that ended ran twice; each result file is its
/// cell's last run's, in the image it ran in.
fn ended_as_expected(s: &Setup, shorts: &[String], flavours: &[&str]) {
    let (cells, ended) = (cells(s), ended_runs(s));
    assert_eq!(cells.len(), flavours.len() * 3, "{cells:#?}");
    let mut refusals = 0;
    for ((short, variant), cell) in &cells {
        let i = shorts.iter().position(|x| x == short).unwrap();
        let runs = &ended[&(short.clone(), variant.clone())];
        let outcomes: Vec<(&str, &str)> = runs.iter().map(|(_, st, c)| (st.as_str(), c.as_str())).collect();
        let result = common::engine::result_of(s, short, variant);
        assert_eq!(result["perftriage"]["run_id"], runs.last().unwrap().0, "the last run's result: {cell:#}");
        if i + 1 == flavours.len() && variant == "agent" {
            assert_eq!(cell["state"], "left", "{cell:#}");
            assert_eq!(outcomes, [("error", "patch_fail")], "never retried: {cell:#}");
            continue;
        }
        assert_eq!(cell["state"], "ok", "{short} {variant}: {cell:#}");
        // The refused pull: the variants that asked before the image was tagged in.
        let refused = flavours[i] == "pull" && outcomes.len() > 1;
        refusals += usize::from(refused);
        let failed_first = match flavours[i] {
            "ok" => None,
            "pull" => refused.then_some("pull_failed"),
            fixable => Some(fixable),
        };
        let wanted = match failed_first {
            Some(category) => vec![("error", category), ("success", "")],
            None => vec![("success", "")],
        };
        // An agent whose baseline was fixed first starts in that image (baseline and agent share
        // the parent's); one launched before the fix existed fails first, as the others do.
        let shared = variant == "agent" && failed_first.is_some() && outcomes == [("success", "")];
        assert!(outcomes == wanted || shared, "{short} {variant}: {outcomes:?}, {cell:#}");
        let image = result["perftriage"]["image"].as_str().unwrap();
        let fixed = !matches!(flavours[i], "ok" | "pull");
        assert_eq!(image.starts_with("perftriage-fixed"), fixed, "{short} {variant} ran in {image}");
    }
    let pulls = flavours.iter().filter(|f| **f == "pull").count();
    assert!(refusals >= pulls, "every image behind the refusing registry was refused at first");
}

/// None of the setup's containers on the main engine.
fn no_containers(rt: &tokio::runtime::Runtime, engine: &perftriage::docker::Engine, s: &Setup) -> bool {
    rt.block_on(engine.ours(&s.root.join("ws").display().to_string())).unwrap().is_empty()
}

fn no_containers_left(rt: &tokio::runtime::Runtime, engine: &perftriage::docker::Engine, s: &Setup) {
    let ours = rt.block_on(engine.ours(&s.root.join("ws").display().to_string())).unwrap();
    assert!(ours.is_empty(), "containers left behind: {ours:?}");
}

#[test]
#[cfg_attr(not(all(has_docker, has_tmux)), ignore = "needs a Docker engine, busybox-static and tmux")]
fn a_campaign_runs_every_variant_fixes_what_a_recipe_answers_and_leaves_a_patch_failure() {
    let Some((rt, engine)) = ready() else { return };
    let (s, shorts) = campaign_setup(FLAVOURS);
    let args = start_args(&shorts);
    let out = perftriage(&s, &args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(3), "one variant is left failed: {}", text(&out));
    ended_as_expected(&s, &shorts, FLAVOURS);
    no_containers_left(&rt, &engine, &s);
    outcome_as_counted(&s);
    // The board on the workspace says how the campaign stands.
    let board = common::tmux_board::Board::start(&s.config, &s.root.join("ws"), "campaign", 200);
    board.until("the campaign in the header", 60, |t| t.contains("campaign nightly 18/18 ✓17 ✗1 ↻4"));
}

/// `campaign status` and `report` count the outcome: no commit usable 3-way before (the dataset
/// has no results), five after (the sixth's agent patch does not apply), the six fixes by recipe.
fn outcome_as_counted(s: &Setup) {
    let out = perftriage(s, &["campaign", "status", "nightly", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &status["outcome"];
    assert_eq!((o["usable_before"].as_u64(), o["usable_now"].as_u64()), (Some(0), Some(5)), "{o:#}");
    assert_eq!(o["left"], serde_json::json!({ "patch_fail": 1 }), "{o:#}");
    let fixes: u64 = o["fixes"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!((fixes, o["retries"].as_u64()), (6, Some(0)), "three variants of two commits fixed: {o:#}");
    assert!(o["run_s"].as_i64().unwrap() > 0, "{o:#}");
    let report = perftriage(s, &["report", "--format", "md"]);
    let md = String::from_utf8_lossy(&report.stdout);
    assert!(md.contains("## Campaign nightly\n\n- usable 3-way: 0 before → 5 now, of 6 commits\n"), "{md}");
    assert!(md.contains("- left failed: patch_fail 1\n"), "{md}");
    let csv = String::from_utf8_lossy(&perftriage(s, &["report", "--format", "csv"]).stdout).into_owned();
    assert!(csv.contains("campaign_nightly,usable_before,0\ncampaign_nightly,usable_now,5\n"), "{csv}");
}

/// The kill moments: after how many journalled events, strictly increasing (gaps of 1 to `gap`
/// from a small seeded generator, printed so a failure can be replayed).
fn moments(seed: u64, n: usize, gap: usize) -> Vec<usize> {
    let mut x = seed | 1;
    let mut at = 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            at += 1 + usize::try_from(x % gap as u64).unwrap();
            at
        })
        .collect()
}

/// Five kill moments for a campaign, from `CAMPAIGN_SEED` or the time (the seed printed).
fn kill_moments(n: usize, gap: usize) -> Vec<usize> {
    let seed = std::env::var("CAMPAIGN_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
    });
    let kills = moments(seed, n, gap);
    eprintln!("campaign kill test: seed {seed} (CAMPAIGN_SEED replays it): SIGKILL after events {kills:?}");
    kills
}

fn resume_args() -> Vec<String> {
    ["campaign", "resume", "nightly"].map(String::from).to_vec()
}

/// The campaign started by `start(false)`, SIGKILLed once its journal holds each of `kills`
/// events and started again by `start(true)`, until the kills are spent or it ends on its own.
fn killed_at(s: &Setup, kills: &[usize], start: impl Fn(bool) -> std::process::Child) {
    for (i, &at) in kills.iter().enumerate() {
        let mut child = Reaped::new(start(i > 0));
        let ended = common::wait::until("the kill moment", std::time::Duration::from_secs(600), || {
            match (journalled(s) >= at, child.exited()) {
                (true, _) => Ok(false),
                (false, true) => Ok(true),
                (false, false) => Err(format!("{} events", journalled(s))),
            }
        });
        if ended {
            return;
        }
        drop(child); // SIGKILL, reaped
    }
}

/// The journal's number of events.
fn journalled(s: &Setup) -> usize {
    std::fs::read_to_string(journal(s)).map_or(0, |t| t.lines().count())
}

fn journal(s: &Setup) -> std::path::PathBuf {
    s.root.join("ws/campaigns/nightly/journal.jsonl")
}

/// The registry "comes back" for the `pull` commit once the journal holds its refused pull: its
/// image is tagged in, so the retry finds it. (The retry waits 20 s, the tag takes a moment.)
fn registry_back_after_the_refusal(s: &Setup, image: String) -> std::thread::JoinHandle<()> {
    let path = journal(s);
    std::thread::spawn(move || {
        common::wait::until("the refused pull in the journal", std::time::Duration::from_secs(900), || {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text.contains("\"pull_failed\"") { Ok(()) } else { Err("no pull_failed yet".into()) }
        });
        common::engine::docker(&["tag", "perftriage-test/vllm:ok", &image]);
    })
}

/// `docker events` of the containers the campaign creates, from now: one JSON line each (its
/// labels, the image it was created from). The replay from `--since` covers the moment before
/// the stream is subscribed.
fn container_events(out: &Path) -> Reaped {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let file = std::fs::File::create(out).unwrap();
    let args = ["events", "--since", &since.to_string(), "--filter", "type=container", "--filter"];
    let child = Command::new("docker")
        .args(args)
        .args(["event=create", "--filter", "label=perftriage.run", "--format", "{{json .Actor.Attributes}}"])
        .stdout(file)
        .spawn()
        .unwrap();
    Reaped::new(child)
}

/// Each result's image, fixes and digest are what Docker said of the container its run was
/// created as: the image named at its creation, that image's id, the recipe its commit comment
/// names (a fixed image) or none.
fn results_as_docker_saw_them(s: &Setup, shorts: &[String], events: &Path) {
    let created: BTreeMap<String, String> = std::fs::read_to_string(events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|a| {
            (a["perftriage.run"].as_str().unwrap().to_string(), a["image"].as_str().unwrap().to_string())
        })
        .collect();
    for short in shorts {
        for variant in ["baseline", "human", "agent"] {
            let r = common::engine::result_of(s, short, variant);
            let ours = &r["perftriage"];
            let image = &created[ours["run_id"].as_str().unwrap()];
            assert_eq!(ours["image"].as_str(), Some(image.as_str()), "{short} {variant}: {r:#}");
            let id = common::engine::docker(&["image", "inspect", "-f", "{{.Id}}", image]);
            assert_eq!(ours["image_digest"].as_str(), Some(id.as_str()), "{short} {variant}: {r:#}");
            let comment = common::engine::docker(&["image", "inspect", "-f", "{{.Comment}}", image]);
            let recipe = comment.strip_prefix("perftriage fix ").and_then(|c| c.split(' ').next());
            let fixes: Vec<&str> = recipe.into_iter().collect();
            assert_eq!(ours["fixes"], serde_json::json!(fixes), "{short} {variant} in {image}: {r:#}");
        }
    }
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_campaign_of_thirty_commits_killed_at_random_moments_goes_on_from_its_journal_and_ends_the_same() {
    let Some((rt, engine)) = ready() else { return };
    let flavours = big_flavours();
    let (s, shorts) = campaign_setup(&flavours);
    // 90 runs, 18 fixes and their re-runs, a retry: about 250 events; five kills within the first 206.
    let kills = kill_moments(5, 40);
    let pull = shorts[flavours.iter().position(|f| *f == "pull").unwrap()].clone();
    let back = registry_back_after_the_refusal(&s, image_of("pull", &pull));
    let events_file = s.root.join("container-events.jsonl");
    let events = container_events(&events_file);
    let extra = ["--concurrency", "2", "--retries", "2", "--retry-wait", "20"].map(String::from);
    let first = [start_args(&shorts), extra.to_vec()].concat();
    killed_at(&s, &kills, |started| {
        let args = if started { resume_args() } else { first.clone() };
        common::engine::spawn_perftriage(&s, &args.iter().map(String::as_str).collect::<Vec<_>>())
    });
    let out = perftriage(&s, &["campaign", "resume", "nightly"]);
    assert!(matches!(out.status.code(), Some(0 | 3)), "{}", text(&out));
    back.join().unwrap();
    drop(events);
    ended_as_expected(&s, &shorts, &flavours);
    results_as_docker_saw_them(&s, &shorts, &events_file);
    no_containers_left(&rt, &engine, &s);
}

/// A host lost midway through thirty commits × three variants: runs go on on the other host while
/// it is down, the run it was carrying fails as an infrastructure failure and is retried once it
/// is back; then the campaign is SIGKILLed with runs on both hosts and at five random moments
/// after (seeded), resumed each time: each run is picked up on its host, every cell ends once,
/// nothing is left on either.
#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn a_campaign_goes_on_when_a_host_is_lost_midway_and_retries_its_run() {
    let Some((second, _remote, rt)) = SecondDaemon::start().and_then(SecondDaemon::with_test_images) else {
        return;
    };
    let engine = common::engine::engine(&rt).unwrap();
    let hosts = format!(
        "server = \"env MOCK_STARTUP_MS=1000 python3 -m vllm.entrypoints.openai.api_server --model {{model}} --port 8000\"\n\
         [[hosts]]\nname = \"here\"\nendpoint = \"unix:///var/run/docker.sock\"\nconcurrency = 2\n\
         [[hosts]]\nname = \"gpu2\"\nendpoint = \"{}\"\ntls = \"{}\"\nconcurrency = 2\n",
        second.endpoint(),
        second.tls().display()
    );
    let flavours = ["ok"; 30];
    let (s, shorts) = campaign_setup_with(&flavours, &hosts);
    let args =
        [start_args(&shorts), ["--retries", "2", "--retry-wait", "1"].map(String::from).to_vec()].concat();
    let child = common::engine::watched_perftriage(&s, &args.iter().map(String::as_str).collect::<Vec<_>>());
    common::wait::holds("a run on gpu2 still starting", 120, || still_starting(&second), || child.stderr());
    second.stop();
    let ended = || ended_runs(&s).values().map(Vec::len).sum::<usize>();
    let before = ended();
    common::wait::holds(
        "two runs ending on `here` while gpu2 is down",
        300,
        || ended() >= before + 2,
        || child.stderr(),
    );
    second.resume();
    // Then a SIGKILL with runs on both hosts, five more at random moments, and a resume to the end.
    let on_both = || !second.ps("-q").is_empty() && !no_containers(&rt, &engine, &s);
    common::wait::holds("runs on both hosts", 300, on_both, || child.stderr());
    drop(child);
    let base = journalled(&s);
    let kills: Vec<usize> = kill_moments(5, 25).into_iter().map(|k| base + k).collect();
    killed_at(&s, &kills, |_| common::engine::spawn_perftriage(&s, &["campaign", "resume", "nightly"]));
    let resumed = common::engine::watched_perftriage(&s, &["campaign", "resume", "nightly"]);
    let (status, _, err) = resumed.finish();
    assert_eq!(status.code(), Some(3), "only the patch failure is left: {err}");
    let runs = ended_runs(&s);
    let mut lost = 0;
    for ((short, variant), outcomes) in &runs {
        let (last, before) = outcomes.split_last().unwrap();
        if short == shorts.last().unwrap() && variant == "agent" {
            assert_eq!(last.2, "patch_fail", "{outcomes:?}");
            continue;
        }
        assert_eq!(last.1, "success", "{short} {variant}: {outcomes:?}\n{}\n{err}", result_of(&s, &last.0));
        for (_, _, category) in before {
            assert!(
                ["docker_unreachable", "reattached", "docker_error"].contains(&category.as_str()),
                "{short} {variant}: {outcomes:?}"
            );
            lost += 1;
        }
    }
    assert!(lost >= 1, "the run gpu2 carried failed when it was lost, and was retried: {runs:?}\n{err}");
    no_containers_left(&rt, &engine, &s);
    assert!(second.ps("-aq").is_empty(), "nothing left on gpu2 either");
}

/// Whether a run on `second` has not yet loaded its weights: its server waits for the go file (an
/// agent's, for its patch) or is in the first third of its start, more than half a second and the
/// benchmark before its outcome is decided, so stopping the daemon now is sure to cost it. Any running container was not: a CI
/// run stopped gpu2 while its one run was already decided and being removed, and it ended a
/// success with nothing lost.
fn still_starting(second: &SecondDaemon) -> bool {
    second.ps("-q").split_whitespace().any(|id| {
        let logs = second.docker(&["logs", id]);
        let said = [&logs.stdout[..], &logs.stderr[..]].concat();
        logs.status.success() && !String::from_utf8_lossy(&said).contains("Loading weights")
    })
}

/// How the workspace's newest campaign stands once every cell is ok or left; its status.
fn settled(s: &Setup, secs: u64) -> serde_json::Value {
    common::wait::until("the campaign's every cell ok or left", std::time::Duration::from_secs(secs), || {
        let out = perftriage(s, &["campaign", "status", "--json"]);
        let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let cells = status["cells"].as_array().cloned().unwrap_or_default();
        let done = !cells.is_empty() && cells.iter().all(|c| c["state"] == "ok" || c["state"] == "left");
        if done { Ok(status) } else { Err(format!("{status:#}")) }
    })
}

/// `C` on the board starts the campaign as a process of its own: the board holds the workspace,
/// so it records the campaign's fix from the journal, and it shows the results the campaign's
/// runs write; the campaign goes on after the board is closed and ends as a headless one does.
#[test]
#[cfg_attr(not(all(has_docker, has_tmux)), ignore = "needs a Docker engine, busybox-static and tmux")]
fn a_campaign_started_from_the_board_runs_in_its_own_process_and_outlives_the_board() {
    let Some((rt, engine)) = ready() else { return };
    let flavours = ["ok", "aimv2", "ok"];
    let (s, shorts) = campaign_setup(&flavours);
    let board = common::tmux_board::Board::start(&s.config, &s.root.join("ws"), "campaign-board", 200);
    board.until("the board", 60, |t| t.contains(&shorts[0]));
    board.keys("C");
    board.until("the campaign's confirm", 60, |t| t.contains("9 runs: 3 commit(s) × baseline, human, agent"));
    board.keys("y");
    board.until("the campaign in the header", 60, |t| t.contains("campaign board-"));
    // The board's record of it has no log (the campaign's process would have named its output).
    let book = s.root.join("ws/triage.json");
    let recorded_by_the_board = || {
        let text = std::fs::read_to_string(&book).unwrap_or_default();
        let book: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let history = book["commits"][&shorts[1]].as_array().cloned().unwrap_or_default();
        history.iter().any(|h| h["action"] == "fix" && h["image"].is_string() && h["log"].is_null())
    };
    common::wait::holds("the board recording the campaign's fix", 300, recorded_by_the_board, || {
        format!("{}\n{}", board.screen(), std::fs::read_to_string(&book).unwrap_or_default())
    });
    // The results the campaign's runs write show on the board as its own runs' do.
    // The fixed commit too: its fix is dated when the campaign made it, before its re-run's result.
    let measured =
        |t: &str, short: &str| t.lines().any(|l| l.contains(short) && l.matches("✓ ").count() == 3);
    board.until("two commits' three results on the board", 300, |t| {
        measured(t, &shorts[0]) && measured(t, &shorts[1])
    });
    drop(board);
    let status = settled(&s, 600);
    let o = &status["outcome"];
    assert_eq!((o["usable_now"].as_u64(), o["commits"].as_u64()), (Some(2), Some(3)), "{status:#}");
    assert_eq!(o["left"], serde_json::json!({ "patch_fail": 1 }), "{status:#}");
    let fixed = common::engine::result_of(&s, &shorts[1], "human");
    assert!(fixed["perftriage"]["image"].as_str().unwrap().starts_with("perftriage-fixed"), "{fixed:#}");
    assert_eq!(fixed["status"], "success", "{fixed:#}");
    no_containers_left(&rt, &engine, &s);
}

/// `perftriage ARGS` on the setup with Slurm's client pointed at `cluster`, stderr watched.
fn on_cluster(s: &Setup, cluster: &common::slurm_cluster::Cluster, args: &[&str]) -> common::wait::Watched {
    let mut command = cluster.perftriage(s, args);
    common::wait::Watched::new(command.stdout(std::process::Stdio::null()).spawn().unwrap())
}

/// The journal's events of one kind.
fn events_of(s: &Setup, kind: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(journal(s)).unwrap_or_default();
    let events = text.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok());
    events.filter(|e| e["event"] == kind).collect()
}

/// A campaign setup of `flavours` whose runs can go to the one-node Slurm cluster.
struct OnSlurm {
    cluster: common::slurm_cluster::Cluster,
    rt: tokio::runtime::Runtime,
    engine: perftriage::docker::Engine,
    _shared: tempfile::TempDir,
    s: Setup,
    shorts: Vec<String>,
}

/// `None` (the test skips) without a cluster or an engine.
fn on_slurm(flavours: &[&str]) -> Option<OnSlurm> {
    let cluster = common::slurm_cluster::Cluster::start()?;
    let (rt, engine) = ready()?;
    let shared = tempfile::tempdir().unwrap();
    let slurm = format!(
        "[slurm]\nshared_dir = \"{}\"\nperftriage = \"{}\"\n",
        shared.path().display(),
        env!("CARGO_BIN_EXE_perftriage")
    );
    let (s, shorts) = campaign_setup_with(flavours, &slurm);
    Some(OnSlurm { cluster, rt, engine, _shared: shared, s, shorts })
}

/// Thirty commits × three variants on the one-node Slurm cluster, SIGKILLed at five moments
/// chosen at random (seeded) and resumed each time: each start follows the jobs submitted before
/// again (never submits one twice), and every variant ends with its result.
#[test]
#[cfg_attr(
    not(all(has_slurm, has_docker)),
    ignore = "needs Slurm (slurmctld, slurmd, sbatch), munge and a Docker engine"
)]
fn a_campaign_on_slurm_killed_at_random_moments_follows_its_jobs_again_and_submits_none_twice() {
    let Some(OnSlurm { cluster, rt, engine, _shared, s, shorts }) = on_slurm(&["ok"; 30]) else { return };
    let mut first: Vec<String> = start_args(&shorts).into_iter().filter(|a| a != "--auto-fix").collect();
    first.extend(["--slurm", "--concurrency", "2"].map(String::from));
    // 90 jobs: about 270 events; five kills within the first 206.
    let kills = kill_moments(5, 40);
    killed_at(&s, &kills, |started| {
        let args = if started { resume_args() } else { first.clone() };
        let mut command = cluster.perftriage(&s, &args.iter().map(String::as_str).collect::<Vec<_>>());
        command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap()
    });
    let resumed = on_cluster(&s, &cluster, &["campaign", "resume", "nightly"]);
    let (status, _, err) = resumed.finish();
    assert_eq!(status.code(), Some(3), "only the patch failure is left: {err}");
    let (launched, submitted) = (events_of(&s, "launched"), events_of(&s, "submitted"));
    let lost = events_of(&s, "finished").iter().filter(|e| e["category"] == "lost_in_a_restart").count();
    assert_eq!(
        launched.len(),
        90 + lost,
        "one run a variant, and one more for each killed before sbatch answered: {err}"
    );
    assert_eq!(submitted.len(), 90, "one job a variant, none submitted twice: {err}");
    for short in &shorts {
        for variant in ["baseline", "human", "agent"] {
            let r = common::engine::result_of(&s, short, variant);
            let last = short == shorts.last().unwrap() && variant == "agent";
            assert_eq!(r["status"], if last { "error" } else { "success" }, "{short} {variant}: {r:#}");
        }
    }
    no_containers_left(&rt, &engine, &s);
}

/// `campaign cancel NAME --run RUN` of a campaign run on Slurm (its job pending behind another):
/// the driver `scancel`s the job and journals the run as cancelled on request; the cell is left,
/// never submitted again, and the campaign ends.
#[test]
#[cfg_attr(
    not(all(has_slurm, has_docker)),
    ignore = "needs Slurm (slurmctld, slurmd, sbatch), munge and a Docker engine"
)]
fn a_campaign_run_on_slurm_cancelled_on_request_is_scancelled_and_left() {
    let Some(OnSlurm { cluster, rt, engine, _shared, s, shorts }) = on_slurm(&["ok"]) else { return };
    let blocker =
        cluster.client("sbatch", &["--parsable", "-c", "2", "--wrap", "sleep 300", "-o", "/dev/null"]);
    let args =
        ["campaign", "start", "--name", "nightly", "--variants", "b", "--slurm", "--commits", &shorts[0]];
    let driver = on_cluster(&s, &cluster, &args);
    let submitted = common::wait::until("the job submitted", std::time::Duration::from_secs(120), || {
        events_of(&s, "submitted").first().cloned().ok_or_else(|| "no submitted event yet".to_string())
    });
    let (run, job) =
        (submitted["run_id"].as_str().unwrap(), submitted["job_id"].as_u64().unwrap().to_string());
    let out = cluster.perftriage(&s, &["campaign", "cancel", "nightly", "--run", run]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let (status, _, err) = driver.finish();
    assert_eq!(status.code(), Some(3), "the cell is left: {err}");
    let finished = events_of(&s, "finished");
    assert_eq!(finished.len(), 1, "{finished:?}");
    assert_eq!(finished[0]["category"], "cancelled_on_request", "{finished:?}");
    assert_eq!(events_of(&s, "submitted").len(), 1, "never submitted again");
    let queue = cluster.client("squeue", &["-h", "-o", "%i"]);
    assert!(!queue.lines().any(|id| id.trim() == job), "job {job} scancelled: {queue}");
    cluster.client("scancel", &[&blocker]);
    no_containers_left(&rt, &engine, &s);
}
