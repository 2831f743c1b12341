//! Several Docker hosts, for real: the main engine over its unix socket and a second daemon
//! started here, reached over TCP with TLS (by endpoint and by docker CLI context), probed for
//! GPUs ("none" here: no NVIDIA runtime), an image copied to it without a registry, and a host
//! that stops answering said to be unreachable, then back once it is started again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::second_daemon::SecondDaemon;
use common::tmux_board::{Board, row_has, row_of};
use common::wait::Watched;
use std::process::{Command, Output};

fn hosts(config_text: &str, env: &[(&str, &std::path::Path)]) -> (Output, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, config_text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--config")
        .arg(&config)
        .arg("--workspace")
        .arg(dir.path().join("ws"))
        .args(["hosts", "--json"])
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out, json)
}

/// A second daemon holding the test images, copied there without a registry; an engine on it.
fn second_with_test_image() -> Option<(SecondDaemon, perftriage::docker::Engine, tokio::runtime::Runtime)> {
    SecondDaemon::start()?.with_test_images()
}

/// `[[hosts]]` naming the second daemon `gpu2`; `before` lands in `[runs]` (the setup's section).
fn gpu2(second: &SecondDaemon, before: &str, after: &str) -> String {
    format!(
        "{before}[[hosts]]\nname = \"gpu2\"\nendpoint = \"{}\"\ntls = \"{}\"\n{after}",
        second.endpoint(),
        second.tls().display()
    )
}

/// `perftriage run SHORT --variant human` of a setup, started (stderr kept).
fn spawn_run(s: &common::engine::Setup) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .arg("--config")
        .arg(&s.config)
        .arg("--workspace")
        .arg(s.root.join("ws"))
        .args(["run", &s.short, "--variant", "human"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait until `done` holds (at most `secs`), saying `what` it waited for.
fn wait_until(what: &str, secs: u64, done: impl Fn() -> bool) {
    common::wait::holds(what, secs, done, String::new);
}

/// The board on a setup, 200 columns wide.
fn board(s: &common::engine::Setup, name: &str) -> Board {
    Board::start(&s.config, &s.root.join("ws"), name, 200)
}

/// Once the header shows `hosts`: `r`, the chooser's `variants` key, and the run confirm.
fn confirm_runs(board: &Board, hosts: &str, variants: &str) {
    board.until("the hosts", 90, |t| t.contains(hosts));
    board.keys("r");
    board.keys(variants);
    board.until("the confirm", 90, |t| t.contains("host: placed when it starts"));
}

/// The commit's row on a board screen.
fn host<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json.as_array().unwrap().iter().find(|h| h["name"] == name).unwrap()
}

#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn hosts_over_unix_and_tls_are_probed_and_one_that_stops_is_unreachable_until_it_is_back() {
    let Some(second) = SecondDaemon::start() else { return };
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let config = format!(
        "[[hosts]]\nname = \"local\"\nendpoint = \"unix:///var/run/docker.sock\"\nconcurrency = 2\n\
         [[hosts]]\nname = \"gpu2\"\nendpoint = \"{}\"\ntls = \"{}\"\ngpus = 8\n\
         [[hosts]]\nname = \"gone\"\nendpoint = \"tcp://127.0.0.1:{closed}\"\n",
        second.endpoint(),
        second.tls().display()
    );
    let (out, json) = hosts(&config, &[]);
    assert_eq!(out.status.code(), Some(3), "one host does not answer: {json:#}");
    let local = host(&json, "local");
    assert!(local["engine"].as_str().unwrap().starts_with("engine "), "{json:#}");
    assert_eq!((local["nvidia_runtime"].as_bool(), local["gpu_count"].as_u64()), (Some(false), Some(0)));
    assert_eq!(local["gpus"]["state"], "none");
    let gpu2 = host(&json, "gpu2");
    assert!(gpu2["unreachable"].is_null() && gpu2["engine"].is_string(), "over TLS: {json:#}");
    assert_eq!(gpu2["gpu_count"], 8, "the config's count replaces the probe's");
    assert!(host(&json, "gone")["unreachable"].as_str().unwrap().contains("Docker unreachable"), "{json:#}");
    second.stop();
    let (_, json) = hosts(&config, &[]);
    assert!(host(&json, "gpu2")["unreachable"].is_string(), "stopped: {json:#}");
    second.resume();
    let (_, json) = hosts(&config, &[]);
    assert!(host(&json, "gpu2")["unreachable"].is_null(), "back: {json:#}");
}

#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn hosts_by_docker_context_and_a_gpu_probe_in_a_copied_image() {
    let Some((second, remote, rt)) = second_with_test_image() else { return };
    assert!(rt.block_on(remote.has_image("perftriage-test/vllm:ok")).unwrap(), "copied without a registry");
    let docker_config = tempfile::tempdir().unwrap();
    let tls = second.tls();
    let spec = format!(
        "host={},ca={},cert={},key={}",
        second.endpoint(),
        tls.join("ca.pem").display(),
        tls.join("cert.pem").display(),
        tls.join("key.pem").display()
    );
    let made = Command::new("docker")
        .env("DOCKER_CONFIG", docker_config.path())
        .args(["context", "create", "pt-second", "--docker", &spec])
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let config =
        "[[hosts]]\nname = \"ctx\"\nendpoint = \"pt-second\"\nprobe_image = \"perftriage-test/vllm:ok\"\n";
    let (out, json) = hosts(config, &[("DOCKER_CONFIG", docker_config.path())]);
    assert_eq!(out.status.code(), Some(0), "{json:#} {}", String::from_utf8_lossy(&out.stderr));
    let ctx = host(&json, "ctx");
    assert_eq!(ctx["gpus"]["state"], "none", "no GPU runtime is a normal answer: {json:#}");
    assert!(ctx["gpus"]["detail"].as_str().unwrap().contains("could not select device driver"), "{json:#}");
    assert!(second.ps("-aq").is_empty(), "the probe container is removed");
}

const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --num-prompts 5";

#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn hosts_a_run_goes_to_the_host_with_a_free_slot_and_its_logs_and_result_come_back() {
    let Some((second, _remote, _rt)) = second_with_test_image() else { return };
    let hosts = format!(
        "[[hosts]]\nname = \"here\"\nendpoint = \"unix:///var/run/docker.sock\"\nconcurrency = 1\n\
         [[hosts]]\nname = \"gpu2\"\nendpoint = \"{}\"\ntls = \"{}\"\n",
        second.endpoint(),
        second.tls().display()
    );
    let s = common::engine::setup("perftriage-test/vllm:ok", SERVING, &hosts);
    // A run of ours already holds the one slot of `here`.
    let ws = s.root.join("ws").display().to_string();
    let label = format!("perftriage.workspace={ws}");
    let busy = Command::new("docker")
        .args([
            "run",
            "-d",
            "--rm",
            "--label",
            &label,
            "--entrypoint",
            "sleep",
            "perftriage-test/vllm:ok",
            "120",
        ])
        .output()
        .unwrap();
    assert!(busy.status.success(), "{}", String::from_utf8_lossy(&busy.stderr));
    let out = common::engine::run(&s, "human");
    let removed =
        Command::new("docker").args(["rm", "-f", String::from_utf8_lossy(&busy.stdout).trim()]).output();
    assert!(removed.unwrap().status.success(), "the busy container is removed");
    let text = common::engine::text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("on host gpu2"), "placed on the host with a free slot: {text}");
    assert!(text.contains("Serving Benchmark Result"), "the benchmark's log streamed back: {text}");
    let result = common::engine::result(&s, "human");
    assert_eq!(result["status"], "success", "{result:#}");
    assert!(second.ps("-aq").is_empty(), "its container is removed on gpu2");
}

#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn hosts_a_host_elsewhere_is_asked_for_readiness_inside_the_container_and_its_disk_is_not_read_here() {
    // Its published port is on its own 127.0.0.1: asked from here, the server never answered.
    let started = SecondDaemon::start_elsewhere().and_then(SecondDaemon::with_test_images);
    let Some((second, remote, rt)) = started else { return };
    assert!(second.endpoint().starts_with("tcp://10.213."), "reached over the veth pair");
    let s = common::engine::setup("perftriage-test/vllm:ok", SERVING, &gpu2(&second, "", ""));
    let out = common::engine::run(&s, "human");
    let text = common::engine::text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("on host gpu2"), "{text}");
    assert_eq!(common::engine::result(&s, "human")["status"], "success");
    assert!(second.ps("-aq").is_empty(), "its container is removed on gpu2");
    // Its data root is a folder here only because the test put it here: a remote daemon's is not.
    assert_eq!(rt.block_on(remote.room()), None, "no free space read here for a daemon over tcp");
}

#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn hosts_a_fix_and_its_rerun_happen_on_one_host() {
    let Some((second, remote, rt)) = second_with_test_image() else { return };
    let s = common::engine::setup("perftriage-test/vllm:aimv2", SERVING, &gpu2(&second, "", ""));
    let out = common::engine::perftriage(
        &s,
        &["fix", "apply", &s.short, "--variant", "human", "--recipe", "aimv2_exist_ok"],
    );
    let text = common::engine::text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("in perftriage-test/vllm:aimv2 on host gpu2"), "the fix on gpu2: {text}");
    assert!(text.contains("Docker connected on host gpu2"), "its re-run on gpu2 too: {text}");
    assert_eq!(common::engine::result(&s, "human")["status"], "success");
    let fixed = common::engine::fixed_tag(&s, perftriage::dataset::Variant::Human, None);
    assert!(
        rt.block_on(remote.has_image(&fixed)).unwrap(),
        "the fixed tag is on gpu2, where the re-run found it"
    );
}

#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn hosts_a_run_on_a_host_that_drops_says_connection_lost_and_cleans_up_there_when_it_is_back() {
    let Some((second, _remote, _rt)) = second_with_test_image() else { return };
    let hosts = gpu2(&second, "server = \"sleep 100000\"\n", "");
    let s = common::engine::setup("perftriage-test/vllm:ok", SERVING, &hosts);
    let child = Watched::new(spawn_run(&s));
    wait_until("the run on gpu2", 60, || !second.ps("-q").is_empty());
    second.stop();
    child.printed("connection lost", 60);
    second.resume();
    let (status, _, err) = child.finish();
    assert_eq!(status.code(), Some(3), "{err}");
    assert!(second.ps("-aq").is_empty(), "removed on gpu2 once it was back, not looked for elsewhere");
}

#[test]
fn hosts_in_the_header_with_their_runs_and_gpus_or_down() {
    use perftriage::app::DockerMsg;
    use perftriage::runs::HostSlot;
    let mut s = common::state();
    let host = |name: &str, running, gpus, down: Option<&str>| HostSlot {
        name: name.into(),
        gpus,
        concurrency: 2,
        running,
        gpus_busy: 0,
        down: down.map(String::from),
    };
    let hosts = vec![
        host("local", 1, Some(0), None),
        host("gpu2", 0, Some(8), None),
        host("gone", 0, None, Some("refused")),
    ];
    perftriage::app::update(&mut s, perftriage::app::Msg::Docker(DockerMsg::Hosts(hosts)));
    let screen = common::screen_of(&s, 160, 48);
    assert!(screen.contains("hosts: local ●1/2 gpu2 ●0/2 8gpu gone ✗"), "{screen}");
}

#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn hosts_the_board_watches_each_host_in_its_header_and_its_gpus_in_the_gpu_pane() {
    let Some((second, _remote, _rt)) = second_with_test_image() else { return };
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let gone = format!(
        "gpus = 8\nprobe_image = \"perftriage-test/vllm:ok\"\n[[hosts]]\nname = \"gone\"\nendpoint = \"tcp://127.0.0.1:{closed}\"\n"
    );
    let s = common::engine::setup("perftriage-test/vllm:ok", SERVING, &gpu2(&second, "", &gone));
    let board = board(&s, "hosts");
    board.until("the hosts in the header", 60, |t| t.contains("hosts: gpu2 ●0/1 8gpu gone ✗"));
    board.keys("H");
    // The probe ran nvidia-smi in a container on gpu2, which has no NVIDIA runtime.
    let pane = board.until("gpu2 in the GPU pane", 30, |t| t.contains("[gpu2]") && t.contains("no GPUs: "));
    assert!(pane.contains("hosts: this machine [gpu2] gone"), "{pane}");
    assert!(pane.contains("could not select device driver"), "{pane}");
    board.keys("H");
    board.until("gone in the GPU pane", 10, |t| {
        t.contains("[gone]") && t.contains("GPUs unknown: not probed")
    });
    board.keys("H");
    board.until("this machine again", 10, |t| t.contains("[this machine]"));
}

#[test]
fn hosts_the_gpu_pane_shows_a_hosts_probed_gpus_and_our_runs_there() {
    use perftriage::app::{DockerMsg, JobMsg, Key, Msg, update};
    use perftriage::docker::Gpus;
    use perftriage::runs::RunRequest;
    let csv = std::fs::read_to_string("fixtures/gpu/nvidia-smi-query-gpu.csv").unwrap();
    let probe = Gpus::Found(csv.lines().map(String::from).collect());
    let gpus = vec![
        ("gpu2".to_string(), perftriage::jobs::fleet::host_gpus(Some(&probe))),
        ("odd".to_string(), perftriage::jobs::fleet::host_gpus(Some(&Gpus::Found(vec!["0, x".into()])))),
    ];
    let mut s = common::state();
    update(&mut s, Msg::Docker(DockerMsg::HostGpus(gpus)));
    let request = RunRequest {
        short: "7c01f706".into(),
        variant: perftriage::dataset::Variant::Human,
        image: None,
        fixes: Vec::new(),
        host: None,
        repeat: perftriage::runs::RepeatPlan::Times(1),
    };
    let run_id = s.queue_run(request);
    let phase = perftriage::runs::RunPhase::Placed { host: "gpu2".into() };
    update(&mut s, Msg::Job(JobMsg::phase(&run_id, phase)));
    update(&mut s, Msg::Key(Key::ch('H')));
    let screen = common::screen_of(&s, 160, 48);
    assert!(screen.contains("hosts: this machine [gpu2] odd · H on gpu2"), "{screen}");
    assert!(screen.contains("GPU0 NVIDIA H100 80GB HBM3"), "{screen}");
    assert!(screen.contains("62.0/79.6 GiB"), "GPU0's memory, read as the local sampler reads it: {screen}");
    assert!(screen.contains(&format!("run {run_id} · 7c01f706 human · placed")), "{screen}");
    update(&mut s, Msg::Key(Key::ch('H')));
    let screen = common::screen_of(&s, 160, 48);
    assert!(
        screen.contains("GPUs unknown: its probe's answer: nvidia-smi: line 1: expected 12 fields"),
        "{screen}"
    );
}

#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn hosts_a_run_from_the_board_is_placed_shown_in_the_host_column_and_finishes_there() {
    let Some((second, _remote, _rt)) = second_with_test_image() else { return };
    let s = common::engine::setup("perftriage-test/vllm:ok", SERVING, &gpu2(&second, "", ""));
    let board = board(&s, "place");
    board.until("the hosts", 90, |t| t.contains("hosts: gpu2 ●0/1"));
    board.keys("r");
    board.keys("h");
    let confirm = board.until("the confirm", 90, |t| t.contains("host: placed when it starts"));
    assert!(confirm.contains("gpu2 ●0/1"), "{confirm}");
    board.keys("y");
    let done = board.until("the run on gpu2", 90, |t| {
        let row = t.lines().find(|l| l.contains(&s.short[..8])).unwrap_or_default();
        t.contains("Host") && row.contains(" gpu2 ") && row.contains("✓")
    });
    wait_until("its container to be removed on gpu2", 30, || second.ps("-aq").is_empty());
    assert_eq!(common::engine::result(&s, "human")["status"], "success", "{done}");
    drop(board);
}

#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn hosts_the_board_reattaches_a_run_left_on_a_host_and_cancels_it_there() {
    let Some((second, _remote, _rt)) = second_with_test_image() else { return };
    let hosts = gpu2(&second, "server = \"sleep 100000\"\n", "");
    let s = common::engine::setup("perftriage-test/vllm:ok", SERVING, &hosts);
    // A headless run on gpu2 whose perftriage is then killed: its container is left running there.
    let mut headless = spawn_run(&s);
    let running = || !second.ps("-q").is_empty();
    wait_until("the run on gpu2", 60, running);
    headless.kill().unwrap();
    headless.wait().unwrap();
    let board = board(&s, "reattach");
    board.until("the run re-attached on gpu2", 60, |t| row_has(t, &s.short[..8], " gpu2 "));
    board.keys("x");
    board.until("the cancel confirm", 30, |t| t.contains(&format!("Cancel {} human?", &s.short[..8])));
    board.keys("y");
    // Stopped, then removed: a check between the two once found the stopped container (CI).
    wait_until("the cancel to remove its container on gpu2", 60, || second.ps("-aq").is_empty());
    drop(board);
}

#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn hosts_the_confirm_chooses_the_host_the_runs_go_to() {
    let Some((second, _remote, _rt)) = second_with_test_image() else { return };
    // Placement would pick `here` (no GPUs to keep free); the confirm sends the run to gpu2.
    let hosts = format!(
        "[[hosts]]\nname = \"here\"\nendpoint = \"unix:///var/run/docker.sock\"\n{}gpus = 8\n",
        gpu2(&second, "", "")
    );
    let s = common::engine::setup("perftriage-test/vllm:ok", SERVING, &hosts);
    let board = board(&s, "choose");
    confirm_runs(&board, "hosts: here ●0/1 gpu2 ●0/1 8gpu", "h");
    board.keys("o");
    board.until("here chosen", 10, |t| t.contains("host: here, chosen here"));
    board.keys("o");
    board.until("gpu2 chosen", 10, |t| t.contains("host: gpu2, chosen here"));
    board.keys("y");
    let done = board.until("the run on gpu2", 90, |t| {
        let row = t.lines().find(|l| l.contains(&s.short[..8])).unwrap_or_default();
        row.contains(" gpu2 ") && row.contains("✓")
    });
    assert_eq!(common::engine::result(&s, "human")["status"], "success", "{done}");
    drop(board);
}

#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn hosts_runs_placed_at_once_never_share_a_hosts_last_slot() {
    let Some((second, _remote, _rt)) = second_with_test_image() else { return };
    // Three board slots, one on gpu2: baseline and human are dispatched together.
    let s =
        common::engine::setup("perftriage-test/vllm:ok", SERVING, &gpu2(&second, "concurrency = 3\n", ""));
    let board = board(&s, "race");
    confirm_runs(&board, "hosts: gpu2 ●0/1", "3");
    board.keys("y");
    // Sampled at every look until both are done: the most runs gpu2 ever had at once.
    let (mut most, mut waited) = (0, false);
    common::wait::until("both runs done", std::time::Duration::from_secs(120), || {
        most = most.max(second.ps("-q").lines().count());
        let screen = board.screen();
        waited |= screen.contains("host?");
        let row = row_of(&screen, &s.short[..8]);
        if row.matches('✓').count() >= 2 { Ok(()) } else { Err(screen) }
    });
    assert_eq!(most, 1, "gpu2 has one run slot: never two of its runs at once");
    assert!(waited, "the second run waited for the slot (host?)");
}

#[test]
#[cfg_attr(
    not(has_second_daemon),
    ignore = "needs dockerd, openssl, ip, nsenter and busybox-static for a second Docker daemon"
)]
fn hosts_a_run_left_on_a_host_whose_daemon_restarts_is_resumed_from_its_launch_record() {
    let Some((second, _remote, _rt)) =
        SecondDaemon::start_live_restore().and_then(SecondDaemon::with_test_images)
    else {
        return;
    };
    // Three runs a start, a server that takes 8 s: the board is left while the run starts.
    let slow = "repeat = 3\nserver = \"env MOCK_STARTUP_MS=8000 python3 -m vllm.entrypoints.openai.api_server --model {model} --port 8000\"\n";
    let s = common::engine::setup("perftriage-test/vllm:ok", SERVING, &gpu2(&second, slow, ""));
    let first = board(&s, "restart-first");
    confirm_runs(&first, "hosts: gpu2 ●0/1", "h");
    first.keys("y");
    let running = || second.ps("-q").trim().to_string();
    wait_until("the run on gpu2", 60, || !running().is_empty());
    let inspect = second.docker(&["inspect", "-f", "{{.Image}}", &running()]);
    let image = String::from_utf8_lossy(&inspect.stdout).trim().to_string();
    first.keys("q");
    first.until("the quit confirm", 30, |t| t.contains("leaves them running"));
    first.keys("L");
    first.until("the board gone", 30, |t| !t.contains("Commit"));
    drop(first);
    // The host goes away while no board follows the run, and comes back under the next one.
    second.stop();
    let again = board(&s, "restart-again");
    again.until("the next board", 60, |t| t.contains(&s.short[..8]));
    second.resume();
    let ended = |t: &str| ["✓", "✗", "◷"].iter().any(|mark| row_has(t, &s.short[..8], mark));
    let screen = again.until("the run picked up on gpu2 and ended", 300, ended);
    let r = common::engine::result(&s, "human");
    drop(again);
    assert!(row_has(&screen, &s.short[..8], "✓"), "{screen}\n{r:#}");
    let ours = &r["perftriage"];
    assert_eq!(ours["repeats"]["n"], 3, "three runs a start, as launched: {r:#}");
    assert_eq!(ours["image_digest"].as_str(), Some(image.as_str()), "docker inspect's image on gpu2: {r:#}");
    let runs = std::fs::read_dir(s.root.join("ws/runs")).unwrap().next().unwrap().unwrap().path();
    let launch: serde_json::Value =
        serde_json::from_slice(&std::fs::read(runs.join("launch.json")).unwrap()).unwrap();
    assert_eq!(launch["host"], "gpu2", "{launch:#}");
    assert_eq!(ours["final_command"], launch["plan"]["final_command"], "{r:#}");
}
