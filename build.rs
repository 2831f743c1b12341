//! Probes the outside components the real-tier tests need and sets a `has_<component>` cfg for
//! each one present, so a test whose component is missing is compiled `#[ignore]`d with the reason
//! (shown as ignored, never as passed). Under `CI` every cfg is set: a missing component fails.
//! The program itself never reads these cfgs.

use std::path::{Path, PathBuf};

/// Each component: its cfg and what it needs, a program on the PATH or (from `/` or `.`) a path.
const COMPONENTS: &[(&str, &[&str])] = &[
    ("has_docker", &["/var/run/docker.sock", "busybox"]),
    ("has_mmdebstrap", &["mmdebstrap", "/var/run/docker.sock"]),
    ("has_registry", &["docker-registry", "/var/run/docker.sock", "busybox"]),
    ("has_second_daemon", &["dockerd", "openssl", "ip", "nsenter", "busybox"]),
    ("has_slurm", &["slurmctld", "slurmd", "sbatch", "munged", "munge"]),
    ("has_tmux", &["tmux"]),
    ("has_archive", &["../shared/isobench/archive"]),
    ("has_shared_trajectories", &["../shared/isobench/trajectories"]),
    ("has_chromium", &["chromium-headless-shell"]),
    ("has_html5lib", &["/usr/lib/python3/dist-packages/html5lib"]),
];

/// The folders of the PATH, and the system ones a root shell has.
fn search_path() -> Vec<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    dirs.extend(["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map(PathBuf::from));
    dirs
}

fn present(need: &str, dirs: &[PathBuf]) -> bool {
    if need.starts_with(['/', '.']) {
        return Path::new(need).exists();
    }
    dirs.iter().any(|d| d.join(need).is_file())
}

fn main() {
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=PATH");
    // Installing a package changes these folders: the probes run again.
    for dir in ["/usr/bin", "/usr/sbin", "/usr/local/bin"] {
        if Path::new(dir).is_dir() {
            println!("cargo::rerun-if-changed={dir}");
        }
    }
    let (ci, dirs) = (std::env::var_os("CI").is_some(), search_path());
    for (cfg, needs) in COMPONENTS {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if ci || needs.iter().all(|n| present(n, &dirs)) {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}
