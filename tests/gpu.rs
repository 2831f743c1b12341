//! GPU telemetry without a GPU: cgroup parsing over fixture /proc trees, the nvidia-smi CSV
//! parser, replay-driven panes, attribution of processes to our runs, and the headless command.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::{chars, enter, press, state};
use perftriage::app::{DockerMsg, GpuMsg, Key, Msg, update};
use perftriage::gpu::{Replay, container_of, parse_apps, parse_gpus};
use perftriage::telemetry::{GpuSummary, Owner, Owners, attribute};
use std::collections::HashMap;
use std::path::Path;

const CONTAINER: &str = "3f1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a";

#[test]
fn cgroups_name_containers_in_v1_v2_and_containerd_forms() {
    let proc_root = Path::new("fixtures/gpu/proc");
    for pid in [101, 102, 103] {
        assert_eq!(container_of(proc_root, pid).as_deref(), Some(CONTAINER), "pid {pid}");
    }
    for pid in [104, 105, 999] {
        assert_eq!(container_of(proc_root, pid), None, "pid {pid}");
    }
}

#[test]
fn nvidia_smi_csv_with_not_available_fields() {
    let gpus =
        parse_gpus(&std::fs::read_to_string("fixtures/gpu/nvidia-smi-query-gpu.csv").unwrap()).unwrap();
    assert_eq!(gpus.len(), 2);
    let (uuid, g0) = &gpus[0];
    assert!(uuid.starts_with("GPU-5e1f8c2a"));
    assert_eq!(
        (g0.util_gpu, g0.mem_used_mib, g0.mem_total_mib, g0.power_w),
        (Some(87), 63457, 81559, Some(595.31))
    );
    assert_eq!(gpus[1].1.power_w, None, "[N/A]");
    assert_eq!(gpus[1].1.power_limit_w, None);
    let apps =
        parse_apps(&std::fs::read_to_string("fixtures/gpu/nvidia-smi-compute-apps.csv").unwrap(), &gpus);
    assert_eq!(
        apps.iter().map(|p| (p.gpu, p.pid, p.mem_mib)).collect::<Vec<_>>(),
        [(0, 4242, 62036), (1, 777, 0)]
    );
    let err = parse_gpus("0, uuid, name, 1\n").unwrap_err().to_string();
    assert!(err.contains("line 1") && err.contains("12 fields"), "{err}");
}

#[test]
fn replays_load_and_bad_lines_are_named() {
    let mut replay = Replay::load(Path::new("fixtures/gpu/h100x2_serving.jsonl")).unwrap();
    let first = replay.next_sample();
    assert_eq!(first.gpus.len(), 2);
    assert_eq!(first.gpus[0].mem_total_mib, 81559);
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"at_ms\": 0, \"gpus\": []}\n{not json\n").unwrap();
    let err = Replay::load(&bad).unwrap_err().to_string();
    assert!(err.contains("bad.jsonl:2"), "{err}");
}

#[test]
fn processes_in_our_containers_are_attributed_and_accounted() {
    let mut replay = Replay::load(Path::new("fixtures/gpu/h100x2_serving.jsonl")).unwrap();
    let owners: Owners = HashMap::from([(CONTAINER.to_string(), owner("run7"))]);
    let mut ledger: HashMap<perftriage::runs::RunId, GpuSummary> = HashMap::new();
    for _ in 0..40 {
        let mut sample = replay.next_sample();
        attribute(&mut sample, &owners, &mut ledger);
        if let Some(p) = sample.processes.iter().find(|p| p.pid == 4242) {
            assert_eq!(p.owner.as_ref().unwrap().short, "7c01f706");
        }
        assert!(
            sample.processes.iter().find(|p| p.pid == 777).unwrap().owner.is_none(),
            "host processes stay unowned"
        );
    }
    let summary = ledger["run7"].json();
    assert_eq!(summary["peak_memory_mib"], 62000);
    assert!(summary["mean_util_pct"].as_f64().unwrap() > 30.0);
}

fn owner(run: &str) -> Owner {
    Owner { run_id: run.into(), short: "7c01f706".into(), variant: "human".into() }
}

/// Replay samples into the board; with `run`, Docker says the replay's container is that run's.
fn feed(s: &mut perftriage::app::AppState, n: usize, run: Option<&str>) {
    let mut replay = Replay::load(Path::new("fixtures/gpu/h100x2_serving.jsonl")).unwrap();
    if let Some(run) = run {
        update(s, Msg::Docker(DockerMsg::Owners(HashMap::from([(CONTAINER.to_string(), owner(run))]))));
    }
    for _ in 0..n {
        let sample = replay.next_sample();
        update(s, Msg::Tick("t".into()));
        update(s, Msg::Gpu(GpuMsg::Sample { source: "replay".into(), sample }));
    }
}

fn screen(s: &mut perftriage::app::AppState, w: u16, h: u16) -> String {
    update(s, Msg::Resize(w, h));
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    term.draw(|f| perftriage::ui::view(f, s, &theme)).unwrap();
    let buf = term.backend().buffer().clone();
    let cells: Vec<&str> = buf.content.iter().map(|c| c.symbol()).collect();
    cells.chunks(w as usize).map(|r| r.concat().trim_end().to_string()).collect::<Vec<_>>().join("\n")
}

#[test]
fn gpu_pane_snapshots_from_a_replay() {
    let mut s = state();
    press(&mut s, Key::ch('p'));
    feed(&mut s, 45, None);
    let wide = screen(&mut s, 160, 48);
    assert!(
        wide.contains("GPU0 NVIDIA H100 80GB HBM3") && wide.contains("container 3f1c2a9b8d7e (not ours)")
    );
    insta::assert_snapshot!("gpu_pane_160x48", wide);
    insta::assert_snapshot!("gpu_pane_80x24", screen(&mut s, 80, 24));
    for _ in 0..5 {
        update(&mut s, Msg::Tick("t".into()));
    }
    assert!(screen(&mut s, 160, 48).contains("STALE (last good sample)"), "no sample for 5 s");
}

#[test]
fn no_gpu_is_a_dim_line_and_a_live_run_shows_its_gpu_memory() {
    let mut s = state();
    update(
        &mut s,
        Msg::Gpu(GpuMsg::Unavailable("NVML: libnvidia-ml.so.1: cannot open shared object file".into())),
    );
    update(&mut s, Msg::Docker(DockerMsg::Connected("test engine".into())));
    let top = screen(&mut s, 160, 48);
    assert!(top.lines().next().unwrap().contains("GPU: unavailable — NVML: libnvidia-ml.so.1"));
    press(&mut s, Key::ch('/'));
    chars(&mut s, "7c01f706");
    press(&mut s, enter());
    let mut planner = common::Planner::new();
    planner.press(&mut s, Key::ch('r'));
    planner.press(&mut s, Key::ch('h'));
    let effects = press(&mut s, Key::ch('y'));
    let Some(perftriage::app::Effect::StartRun { run_id, .. }) = effects.first() else { panic!() };
    feed(&mut s, 30, Some(run_id));
    let row = s.board.rows.iter().find(|r| r.short == "7c01f706").unwrap();
    assert_eq!(row.gpus, "60.5G", "62000 MiB held by the run's server");
}

#[test]
fn interval_keys_respect_the_floor() {
    let mut s = state();
    for _ in 0..5 {
        press(&mut s, Key::ch('+'));
    }
    assert_eq!(s.gpu.interval_ms, 250);
    let effects = press(&mut s, Key::ch('-'));
    assert_eq!(effects, vec![perftriage::app::Effect::GpuInterval(500)]);
}

#[test]
fn headless_gpu_reads_a_replay_and_fails_clearly_without_a_gpu() {
    let ws = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_perftriage");
    let out = std::process::Command::new(bin)
        .args([
            "--workspace",
            ws.path().to_str().unwrap(),
            "--gpu-replay",
            "fixtures/gpu/h100x2_serving.jsonl",
            "gpu",
            "--once",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["source"], "replay");
    assert_eq!(v["gpus"][0]["name"], "NVIDIA H100 80GB HBM3");
    let none = std::process::Command::new(bin)
        .args(["--workspace", ws.path().to_str().unwrap(), "gpu", "--once"])
        .output()
        .unwrap();
    if none.status.success() {
        eprintln!("this machine has a readable GPU; the no-GPU path was not exercised");
    } else {
        assert_eq!(none.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&none.stderr).contains("no GPU can be read"));
    }
}
