//! Slurm, first part: the batch script a run becomes. The GPU request comes from the commit's
//! config (`H100:4` → 4), the time limit from the run's timeouts, output and workspace in the
//! shared directory, and the payload is perftriage's own headless run (exec'd, so scancel's
//! SIGTERM reaches it). Then, on a real one-node cluster: a run that waits for resources, runs
//! on the node and is read back; a failed one; and scancel removing the payload's container.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::slurm_cluster::Cluster;
use common::tmux_board::{Board, row_has, row_of};
use std::process::{Command, Output};

fn script(config: &str, short: &str, variant: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, config).unwrap();
    Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--config")
        .arg(&path)
        .arg("--workspace")
        .arg(dir.path().join("ws"))
        .args(["slurm", "script", short, "--variant", variant])
        .output()
        .unwrap()
}

const CONFIG: &str = "[runs]\ngpus = \"auto\"\nrun_timeout_s = 1800\nready_timeout_s = 300\n\
    [slurm]\npartition = \"h100\"\naccount = \"triage\"\nshared_dir = \"/shared/pt\"\nperftriage = \"/opt/pt/perftriage\"\n";

#[test]
fn slurm_job_script_asks_for_the_commits_gpus_and_runs_perftriage_on_the_node() {
    let out = script(CONFIG, "310aca88", "human");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&out.stderr));
    for line in [
        "#SBATCH --job-name=perftriage-310aca88-human",
        "#SBATCH --gres=gpu:4",
        "#SBATCH --time=50",
        "#SBATCH --partition=h100",
        "#SBATCH --account=triage",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}:\n{text}");
    }
    let payload = text.lines().last().unwrap();
    assert!(payload.starts_with("exec /opt/pt/perftriage --config /"), "{payload}");
    assert!(payload.ends_with("run 310aca88 --variant human --json"), "{payload}");
    assert!(text.contains("#SBATCH --output=/shared/pt/") && text.contains("/slurm-%j.out"), "{text}");
    let eight =
        script(&CONFIG.replace("\n[slurm]\n", "\n[slurm]\ngpu_flag = \"gpus\"\n"), "21d93c14", "human");
    assert!(String::from_utf8_lossy(&eight.stdout).contains("#SBATCH --gpus=8\n"));
}

/// The payload repeats as the run was asked to (`[runs] repeat`, or `+` on the board): the node's
/// `perftriage run` once ran a single benchmark whatever was chosen.
#[test]
fn slurm_payload_repeats_as_the_run_was_asked() {
    for (repeat, flag) in [("5", " --repeat 5 "), ("\"auto:6\"", " --repeat auto:6 ")] {
        let config = CONFIG.replace("[runs]\n", &format!("[runs]\nrepeat = {repeat}\n"));
        let out = script(&config, "310aca88", "human");
        let text = String::from_utf8_lossy(&out.stdout);
        let payload = text.lines().last().unwrap_or_default();
        assert!(payload.ends_with(&format!("--variant human{flag}--json")), "{payload}");
    }
}

#[test]
fn slurm_job_script_refuses_what_it_cannot_write_safely() {
    let out = script(&CONFIG.replace("h100", "h100 --wrap=rm"), "310aca88", "human");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("[slurm] partition `h100 --wrap=rm`: letters, digits")
    );
    let out = script("[slurm]\npartition = \"h100\"\n", "310aca88", "human");
    assert!(String::from_utf8_lossy(&out.stderr).contains("set [slurm] shared_dir"));
}

/// Names that break a shell line or run something when pasted in unquoted: a quote, `$()`,
/// backticks and a newline, each trying to create `pwned` in `root`.
fn hostile(root: &std::path::Path, what: &str) -> std::path::PathBuf {
    let pwned = root.join("pwned");
    let name = format!("{what} bob's '$(touch {p})' `touch {p}`\n$(touch {p})", p = pwned.display());
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `perftriage slurm script` run in `cwd` with `flags` before the command.
fn script_in(cwd: &std::path::Path, flags: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .current_dir(cwd)
        .args(flags)
        .args(["slurm", "script", "310aca88", "--variant", "human"])
        .output()
        .unwrap()
}

#[test]
fn slurm_job_script_quotes_every_value_and_a_hostile_one_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // The perftriage the script execs: a stand-in that writes down the words it was given.
    let tools = hostile(root, "tools");
    let argv = root.join("argv");
    let stand_in = tools.join("perftriage");
    std::fs::write(&stand_in, format!("#!/bin/sh\nprintf '%s\\0' \"$@\" > '{}'\n", argv.display())).unwrap();
    std::fs::set_permissions(&stand_in, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // A shared directory sbatch can read (no space or quote) that still holds `$()` and backticks.
    let shared =
        root.join(format!("s$(touch${{IFS}}{p})x`touch${{IFS}}{p}`", p = root.join("pwned").display()));
    let config_dir = hostile(root, "config");
    let config = config_dir.join("perftriage.toml");
    let toml = |v: &std::path::Path| serde_json::to_string(&v.to_string_lossy()).unwrap();
    let text = format!("[slurm]\nshared_dir = {}\nperftriage = {}\n", toml(&shared), toml(&stand_in));
    std::fs::write(&config, text).unwrap();
    let data = hostile(root, "data");
    std::fs::write(data.join("ds.jsonl"), perftriage::dataset::EMBEDDED).unwrap();
    let results = hostile(root, "results");
    let (ws, dataset) = (root.join("ws"), data.join("ds.jsonl"));
    let flags = [
        "--config".as_ref(),
        config.as_os_str(),
        "--dataset".as_ref(),
        dataset.as_os_str(),
        "--results".as_ref(),
        results.as_os_str(),
        "--workspace".as_ref(),
        ws.as_os_str(),
    ];
    let out = script_in(root, &flags);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let job = root.join("job.sh");
    std::fs::write(&job, &out.stdout).unwrap();
    let syntax = Command::new("bash").arg("-n").arg(&job).output().unwrap();
    assert!(syntax.status.success(), "bash -n: {}", String::from_utf8_lossy(&syntax.stderr));
    let ran = Command::new("bash").arg(&job).current_dir(root).output().unwrap();
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    assert!(
        !root.join("pwned").exists(),
        "a value ran as a command:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let got = std::fs::read(&argv).unwrap();
    let words: Vec<String> = got
        .split(|b| *b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect();
    let lossy = |p: &std::path::Path| p.to_string_lossy().into_owned();
    assert_eq!(
        words[..6],
        [
            "--config".to_string(),
            lossy(&config),
            "--dataset".into(),
            lossy(&data.join("ds.jsonl")),
            "--results".into(),
            lossy(&results),
        ]
    );
    assert_eq!(words[6], "--workspace");
    assert!(words[7].starts_with(&lossy(&shared)) && words[7].ends_with("/ws"), "{words:?}");
    assert_eq!(words[8..], ["run", "310aca88", "--variant", "human", "--json"]);
}

#[test]
fn slurm_payload_carries_the_views_flags_as_absolute_paths() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("cfg.toml"),
        "[slurm]\nshared_dir = \"/shared/pt\"\nperftriage = \"/opt/pt/perftriage\"\n",
    )
    .unwrap();
    std::fs::write(root.join("ds.jsonl"), perftriage::dataset::EMBEDDED).unwrap();
    std::fs::create_dir(root.join("res")).unwrap();
    let flags = ["--config", "cfg.toml", "--dataset", "ds.jsonl", "--results", "res", "--workspace", "ws"];
    let flags: Vec<&std::ffi::OsStr> = flags.iter().map(std::ffi::OsStr::new).collect();
    let out = script_in(root, &flags);
    let text = String::from_utf8_lossy(&out.stdout);
    let payload = text.lines().last().unwrap_or_default();
    let at = |name: &str| root.join(name).display().to_string();
    let want = format!(
        "--config {} --dataset {} --results {} --workspace",
        at("cfg.toml"),
        at("ds.jsonl"),
        at("res")
    );
    assert!(payload.contains(&want), "{payload}\n{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn slurm_job_script_refuses_a_shared_dir_sbatch_would_cut_at_a_space() {
    for shared in ["/shared/bob's runs", "/shared/a%b", "/shared/x\ny"] {
        let config = format!("[slurm]\nshared_dir = {}\n", serde_json::to_string(shared).unwrap());
        let out = script(&config, "310aca88", "human");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{shared:?}: {}", String::from_utf8_lossy(&out.stdout));
        assert!(
            stderr.contains("[slurm] shared_dir") && stderr.contains("sbatch reads an #SBATCH path"),
            "{stderr}"
        );
    }
}

const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --num-prompts 5";

/// A setup whose runs go to Slurm, with `runs_extra` in `[runs]`.
fn slurm_setup(image: &str, runs_extra: &str, shared: &std::path::Path) -> common::engine::Setup {
    slurm_setup_with(image, runs_extra, shared, "")
}

/// `slurm_setup` with `slurm_extra` in `[slurm]`.
fn slurm_setup_with(
    image: &str,
    runs_extra: &str,
    shared: &std::path::Path,
    slurm_extra: &str,
) -> common::engine::Setup {
    let extra = format!(
        "{runs_extra}\n[slurm]\n{slurm_extra}shared_dir = \"{}\"\nperftriage = \"{}\"\n",
        shared.display(),
        env!("CARGO_BIN_EXE_perftriage")
    );
    common::engine::setup(image, SERVING, &extra)
}

fn submit(s: &common::engine::Setup, cluster: &Cluster, wait: bool) -> std::process::Child {
    let mut args = vec!["slurm", "submit", s.short.as_str(), "--variant", "human"];
    if wait {
        args.push("--wait");
    }
    cluster.perftriage(s, &args).spawn().unwrap()
}

/// A cluster, the test images and a shared directory; `None` (the test skips) without them.
fn cluster_and_shared() -> Option<(Cluster, tempfile::TempDir)> {
    let cluster = Cluster::start()?;
    images_ready().then(|| (cluster, tempfile::tempdir().unwrap()))
}

/// Our containers of the setup's commit, on the main engine.
fn containers(s: &common::engine::Setup) -> String {
    let ours = format!("label=perftriage.commit={}", s.short);
    let out = Command::new("docker").args(["ps", "-aq", "--filter", &ours]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn images_ready() -> bool {
    let rt = common::engine::runtime();
    let Some(engine) = common::engine::engine(&rt) else { return false };
    common::engine::ensure_images(&rt, &engine);
    true
}

#[test]
#[cfg_attr(
    not(all(has_slurm, has_docker)),
    ignore = "needs Slurm (slurmctld, slurmd, sbatch), munge and a Docker engine"
)]
fn slurm_a_run_waits_for_resources_runs_on_the_node_and_its_result_is_read_back() {
    let Some((cluster, shared)) = cluster_and_shared() else { return };
    let s = slurm_setup("perftriage-test/vllm:ok", "", shared.path());
    let blocker =
        cluster.client("sbatch", &["--parsable", "-c", "2", "--wrap", "sleep 30", "-o", "/dev/null"]);
    let child = common::wait::Watched::new(submit(&s, &cluster, true));
    child.printed("PENDING (Resources)", 60);
    cluster.client("scancel", &[&blocker]);
    let (status, stdout, stderr) = child.finish();
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    let pending = stderr.find("PENDING (Resources)").expect(&stderr);
    let running = stderr.find("RUNNING on").expect(&stderr);
    assert!(pending < running, "pending, then running: {stderr}");
    assert!(
        stdout.contains("Serving Benchmark Result"),
        "the payload's log streamed from the shared directory: {stdout}"
    );
    assert!(stderr.contains("result success"), "{stderr}");
    assert_eq!(common::engine::result(&s, "human")["status"], "success", "read back into this workspace");
}

#[test]
#[cfg_attr(
    not(all(has_slurm, has_docker)),
    ignore = "needs Slurm (slurmctld, slurmd, sbatch), munge and a Docker engine"
)]
fn slurm_a_failed_run_is_read_back_as_a_failure() {
    let Some((cluster, shared)) = cluster_and_shared() else { return };
    let s = slurm_setup("perftriage-test/vllm:aimv2", "", shared.path());
    let out = submit(&s, &cluster, true).wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("result error"), "{stderr}");
    let result = common::engine::result(&s, "human");
    assert_eq!(result["perftriage"]["classification"]["category"], "aimv2", "{result:#}");
}

#[test]
#[cfg_attr(
    not(all(has_slurm, has_docker)),
    ignore = "needs Slurm (slurmctld, slurmd, sbatch), munge and a Docker engine"
)]
fn slurm_scancel_stops_the_payload_and_its_container_is_removed() {
    let Some((cluster, shared)) = cluster_and_shared() else { return };
    let s = slurm_setup("perftriage-test/vllm:ok", "server = \"sleep 100000\"", shared.path());
    let out = submit(&s, &cluster, false).wait_with_output().unwrap();
    let job = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(job.parse::<u64>().is_ok(), "a job id: {job} {}", String::from_utf8_lossy(&out.stderr));
    common::wait::holds("the payload's container", 60, || !containers(&s).is_empty(), String::new);
    let cancelled = Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .args(["slurm", "cancel", &job])
        .env("SLURM_CONF", cluster.conf())
        .output()
        .unwrap();
    assert!(cancelled.status.success(), "{}", String::from_utf8_lossy(&cancelled.stderr));
    common::wait::holds("the container gone after scancel", 40, || containers(&s).is_empty(), String::new);
    let log = std::fs::read_dir(shared.path())
        .unwrap()
        .flatten()
        .find_map(|run| std::fs::read_to_string(run.path().join(format!("slurm-{job}.out"))).ok());
    assert!(log.unwrap_or_default().contains("SIGTERM"), "the payload saw scancel's SIGTERM");
}

/// The board on a setup whose runs are Slurm jobs of `cluster`.
fn board(s: &common::engine::Setup, cluster: &Cluster, name: &str) -> Board {
    Board::start_with(&s.config, &s.root.join("ws"), name, 200, &[("SLURM_CONF", &cluster.conf())])
}

/// `r h`, the Slurm confirm (returned), `y`.
fn start_human_run(board: &Board) -> String {
    board.keys("r");
    board.keys("h");
    let confirm = board.until("the confirm", 60, |t| t.contains("Slurm: each run a batch job"));
    board.keys("y");
    confirm
}

#[test]
#[cfg_attr(
    not(all(has_slurm, has_docker)),
    ignore = "needs Slurm (slurmctld, slurmd, sbatch), munge and a Docker engine"
)]
fn slurm_a_run_from_the_board_is_a_job_whose_state_node_logs_and_result_are_shown() {
    let Some((cluster, shared)) = cluster_and_shared() else { return };
    let s = slurm_setup_with("perftriage-test/vllm:ok", "", shared.path(), "board = true\n");
    let blocker =
        cluster.client("sbatch", &["--parsable", "-c", "2", "--wrap", "sleep 60", "-o", "/dev/null"]);
    let board = board(&s, &cluster, "slurm-run");
    let confirm = start_human_run(&board);
    assert!(confirm.contains("the default partition"), "{confirm}");
    let short = &s.short[..8];
    let pending = board.until("the job pending for its reason", 60, |t| {
        row_has(t, short, " pend ") && t.contains("PENDING (Resources)")
    });
    assert!(row_of(&pending, short).contains(" #"), "the job id in the Host column: {pending}");
    cluster.client("scancel", &[&blocker]);
    let host = String::from_utf8(Command::new("hostname").output().unwrap().stdout).unwrap();
    let done = board.until("the job done", 120, |t| row_has(t, short, "✓"));
    assert!(row_of(&done, short).contains(&format!(" {}", host.trim())), "the node: {done}");
    board.keys("L");
    // The payload's `--json` line events, each in its own pane.
    // Its last lines, which the pane (following the end) always shows: how many health checks
    // came before them depends on the machine's load, and once pushed the startup lines out of view.
    let server = board.until("the server's log", 30, |t| {
        t.contains("END server") && t.contains("\"POST /v1/completions HTTP/1.1\" 200 OK")
    });
    assert!(!server.contains("{\"event\""), "events decoded: {server}");
    board.until("the benchmark's log", 30, |t| t.contains("END benchmark") && t.contains("Mean TTFT (ms)"));
    drop(board);
    assert_eq!(common::engine::result(&s, "human")["status"], "success", "read back into this workspace");
}

#[test]
#[cfg_attr(
    not(all(has_slurm, has_docker)),
    ignore = "needs Slurm (slurmctld, slurmd, sbatch), munge and a Docker engine"
)]
fn slurm_x_on_the_board_scancels_the_job_and_the_payload_removes_its_container() {
    let Some((cluster, shared)) = cluster_and_shared() else { return };
    let s = slurm_setup_with(
        "perftriage-test/vllm:ok",
        "server = \"sleep 100000\"",
        shared.path(),
        "board = true\n",
    );
    let board = board(&s, &cluster, "slurm-cancel");
    start_human_run(&board);
    let started = || !containers(&s).is_empty();
    common::wait::holds("the payload's container", 60, started, || board.screen());
    board.keys("x");
    board.until("the cancel confirm", 10, |t| t.contains("Cancel "));
    board.keys("y");
    common::wait::holds("the container gone after x", 60, || containers(&s).is_empty(), || board.screen());
    board.keys("R");
    let runs = board.until("the run cancelled", 60, |t| t.contains("cancelled"));
    assert!(!row_of(&runs, &s.short[..8]).contains(" job "), "no longer live: {runs}");
    let queue = cluster.client("squeue", &["-h", "-t", "PENDING,RUNNING"]);
    assert!(queue.is_empty(), "the job is gone from the queue: {queue}");
}

#[test]
#[cfg_attr(
    not(all(has_slurm, has_docker)),
    ignore = "needs Slurm (slurmctld, slurmd, sbatch), munge and a Docker engine"
)]
fn slurm_a_job_left_running_by_the_board_is_followed_again_at_the_next_start() {
    let Some((cluster, shared)) = cluster_and_shared() else { return };
    let s = slurm_setup_with("perftriage-test/vllm:ok", "", shared.path(), "board = true\n");
    let blocker =
        cluster.client("sbatch", &["--parsable", "-c", "2", "--wrap", "sleep 60", "-o", "/dev/null"]);
    let short = &s.short[..8];
    let first = board(&s, &cluster, "slurm-leave");
    start_human_run(&first);
    first.until("the job pending", 60, |t| row_has(t, short, " pend "));
    first.keys("q");
    first.until("the quit confirm", 10, |t| t.contains("leaves them running"));
    first.keys("L");
    first.until("the board gone", 10, |t| !t.contains("Commit"));
    drop(first);
    cluster.client("scancel", &[&blocker]);
    let second = board(&s, &cluster, "slurm-again");
    let done = second.until("the job followed to its end", 120, |t| row_has(t, short, "✓"));
    assert!(row_of(&done, short).contains(" #"), "the job id in the Host column: {done}");
    drop(second);
    assert_eq!(common::engine::result(&s, "human")["status"], "success", "read back into this workspace");
    let third = board(&s, &cluster, "slurm-third");
    // The jobs to follow again are looked for before Docker is connected to: once the header says
    // Docker is connected, any job found is on the board.
    let started = third.until_connected("the board connected to Docker", 60, |_| true);
    assert!(!row_of(&started, short).contains(" #"), "read back once: not followed again");
}
