//! The public archive's night replayed (issue 58): every (commit, variant) of `status --json` over
//! `../shared/isobench/archive` fails on the mock engine as its newest record did
//! (`tests/common/night.rs`), and **one** unattended `campaign start --auto-fix --retries 2
//! --concurrency 4` runs all 96 × 3. Printed: the usable count before, expected (from the
//! categories and the rule table alone, stated before the run) and after; fixes by recipe;
//! retries by cause; what is left by category with its next step; runs, wall time, container
//! time, perftriage's overhead per run, the driver's peak RSS; runs launched twice; with `--kill`
//! one seeded SIGKILL of the driver in the middle and its resume.
//! `tests/benches/night.sh [--kill]` (it writes the archive's status and runs this).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation
)]

#[path = "../common/mod.rs"]
mod common;

use common::night::{self, ArchiveCommit, Fate, VARIANTS};
use common::timings::{Seen, container_events, now_s, overheads, quantiles, read_new};
use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};

const RETRIES: u32 = 2;

fn main() {
    // The night (its workspace, image tags and registry) is dropped before the exit, which would
    // skip it: the tags and the registry would outlive the bench.
    let reached = replay();
    std::process::exit(if reached { 0 } else { 1 });
}

/// The replay and its report; whether it ended as stated.
fn replay() -> bool {
    let kill = std::env::args().any(|a| a == "--kill");
    let commits = night::read_status(&archive_status());
    let expected = night::expected(&commits, RETRIES);
    stated(&commits, expected);
    let rt = common::engine::runtime();
    let engine = common::engine::engine(&rt).expect("a Docker engine");
    let n = night::night(&commits);
    let events_file = n.setup.root.join("container-events.txt");
    let mut events = container_events(&events_file).spawn().unwrap();
    let started = now_s();
    let (seen, peak_kb) = drive(&n, kill);
    let wall = now_s() - started;
    let _ = events.kill();
    let _ = events.wait();
    let status = campaign_status(&n);
    let after = status["outcome"]["usable_now"].as_u64().unwrap_or(0);
    println!(
        "\nusable 3-way: {} before → {after} after (expected {expected})",
        night::usable_before(&commits)
    );
    outcome(&status, &seen);
    let (overhead, container_s) = overheads(&seen, &events_file);
    let runs = seen.iter().filter(|(_, e)| e["event"] == "launched").count();
    println!(
        "runs {runs}, wall {wall:.0} s, container time {container_s:.0} s, driver peak RSS {} MB",
        peak_kb / 1024
    );
    quantiles(
        "perftriage's overhead per run (launch to end, less the container's start to die)",
        overhead,
        "ms",
    );
    let journal = std::fs::read_to_string(n.setup.root.join("ws/campaigns/night/journal.jsonl")).unwrap();
    let twice = night::launched_twice(&journal);
    let lost = lost(&seen);
    let wrong = night::mismatches(&commits, &n.shorts, &status, (RETRIES, &lost));
    println!("runs the kill lost (run again): {}", lost.len());
    let left = rt.block_on(engine.ours(&n.setup.root.join("ws").display().to_string())).unwrap();
    println!(
        "launched twice: {}; containers left: {}; cells off their fate: {}",
        twice.len(),
        left.len(),
        wrong.len()
    );
    for line in &wrong {
        println!("  {line}");
    }
    after == expected as u64 && twice.is_empty() && left.is_empty() && wrong.is_empty()
}

/// The expected count and each cell's fate by category, before anything runs.
fn stated(commits: &[ArchiveCommit], expected: usize) {
    let recipes = perftriage::fixes::RecipeBook::embedded().unwrap();
    let mut fates: BTreeMap<String, usize> = BTreeMap::new();
    for commit in commits {
        for cell in &commit.cells {
            let word = match night::fate(cell, &recipes, RETRIES) {
                Fate::Measured => "measured".to_string(),
                Fate::Fixed(recipe) => format!("{}: fixed by {recipe}", cell.category),
                Fate::Retried(n) => format!("{}: retried {n}×", cell.category),
                Fate::Left(category) => format!("{category}: left"),
            };
            *fates.entry(word).or_default() += 1;
        }
    }
    println!(
        "{} commits × {} variants; expected after one campaign: {expected} usable 3-way",
        commits.len(),
        VARIANTS.len()
    );
    for (fate, n) in fates {
        println!("  {n:>4}  {fate}");
    }
}

/// The campaign from start to end (a SIGKILL and a resume in the middle with `kill`): the
/// journal's events as seen and the drivers' peak RSS in KiB.
fn drive(n: &night::Night, kill: bool) -> (Seen, u64) {
    let list = n.shorts.join(",");
    let start =
        ["campaign", "start", "--name", "night", "--variants", "b,h,a", "--auto-fix", "--retries", "2"];
    let start = [&start[..], &["--retry-wait", "1", "--concurrency", "4", "--commits", &list]].concat();
    let journal = n.setup.root.join("ws/campaigns/night/journal.jsonl");
    let seed = std::env::var("NIGHT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(now_s() as u64);
    let kill_at = kill.then(|| 200 + (seed % 400) as usize);
    if let Some(at) = kill_at {
        println!("the driver is SIGKILLed at journal event {at} (NIGHT_SEED={seed})");
    }
    let (mut seen, mut peak, mut killed) = (Seen::new(), 0, None);
    let mut driver = spawn(n, &start);
    loop {
        read_new(&journal, &mut seen);
        peak = peak.max(peak_rss_kb(driver.id()));
        if kill_at.is_some_and(|at| seen.len() >= at) && killed.is_none() {
            driver.kill().unwrap();
            driver.wait().unwrap();
            killed = Some(seen.len());
            println!("killed after event {}; resumed", seen.len());
            driver = spawn(n, &["campaign", "resume", "night"]);
        }
        if driver.try_wait().unwrap().is_some() {
            read_new(&journal, &mut seen);
            return (seen, peak);
        }
        // pacing: the journal and the RSS are sampled every 100 ms (a measurement, not a wait for a state)
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The runs the kill lost: in flight when the driver died, with neither a container nor a result
/// after it, journalled `lost_in_a_restart` by the resume and run again (a run the resume picked
/// up and finished is its cell's run like any other).
fn lost(seen: &Seen) -> Vec<String> {
    let lost = seen.iter().filter(|(_, e)| e["event"] == "finished" && e["category"] == "lost_in_a_restart");
    lost.filter_map(|(_, e)| e["run_id"].as_str().map(str::to_string)).collect()
}

/// The public archive as perftriage reads it: `status --json`, a commit a line (one build of
/// perftriage serves the reading and the replay).
fn archive_status() -> String {
    let archive = std::env::var("NIGHT_ARCHIVE").unwrap_or_else(|_| "../shared/isobench/archive".into());
    let out = Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .args(["--results", &archive, "status", "--json"])
        .stderr(Stdio::null())
        .output()
        .expect("perftriage status --json over the archive");
    let text = String::from_utf8(out.stdout).expect("status --json is UTF-8");
    println!("night: {} commits read from {archive}", text.lines().count());
    text
}

fn spawn(n: &night::Night, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--config")
        .arg(&n.setup.config)
        .arg("--workspace")
        .arg(n.setup.root.join("ws"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The process's high-water resident set (VmHWM), in KiB; 0 once it is gone.
fn peak_rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap_or("0 kB");
    line.trim().trim_end_matches("kB").trim().parse().unwrap_or(0)
}

fn campaign_status(n: &night::Night) -> serde_json::Value {
    let out = common::engine::perftriage(&n.setup, &["campaign", "status", "night", "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Fixes by recipe, retries by cause, and what is left by category with its next step.
fn outcome(status: &serde_json::Value, seen: &Seen) {
    println!("fixes applied by recipe: {}", status["outcome"]["fixes"]);
    let mut retried: BTreeMap<String, usize> = BTreeMap::new();
    for (_, e) in seen.iter().filter(|(_, e)| e["event"] == "finished" && e["disposition"] == "infra_retry") {
        *retried.entry(e["category"].as_str().unwrap_or("?").to_string()).or_default() += 1;
    }
    println!("infrastructure failures (each retried while retries were left): {retried:?}");
    let mut left: BTreeMap<(String, String), usize> = BTreeMap::new();
    for cell in status["cells"].as_array().into_iter().flatten().filter(|c| c["state"] == "left") {
        let next = cell["next"].as_str().unwrap_or("").split(':').next().unwrap_or("").to_string();
        *left.entry((cell["category"].as_str().unwrap_or("?").to_string(), next)).or_default() += 1;
    }
    println!("left, by category (next step):");
    for ((category, next), n) in left {
        println!("  {n:>4}  {category} ({next})");
    }
}
