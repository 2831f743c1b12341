//! A one-node Slurm cluster for the slurm tests, from Debian's packages: munged (as the munge
//! user), slurmctld and slurmd in the foreground of their own sessions, a config of our own
//! (`SLURM_CONF`) with two GPUs Slurm really counts (`Gres=gpu:2`, one device file each) and 2
//! CPUs. Jobs run as root and reach the Docker engine. Stopped, its jobs cancelled, when dropped.
//! Its own ports and `NodeAddr=127.0.0.1`: a daemon left over from an earlier run on Slurm's fixed
//! ports, or a host name that does not resolve, made the node never register in CI.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// One cluster at a time: two would compete for the 2 CPUs the jobs are sized for.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub struct Cluster {
    dir: tempfile::TempDir,
    _one: std::sync::MutexGuard<'static, ()>,
}

fn have(tool: &str) -> bool {
    Command::new("which").arg(tool).output().is_ok_and(|o| o.status.success())
}

/// A port nobody listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn config(dir: &Path, host: &str) -> String {
    let d = dir.display();
    let (ctld, slurmd) = (free_port(), free_port());
    format!(
        "ClusterName=perftriage-test\nSlurmctldHost={host}(127.0.0.1)\nSlurmctldPort={ctld}\nSlurmdPort={slurmd}\nSlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\n\
         StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\nSlurmctldPidFile={d}/slurmctld.pid\n\
         SlurmdPidFile={d}/slurmd.pid\nSlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
         ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nReturnToService=2\nSchedulerType=sched/backfill\n\
         SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nGresTypes=gpu\nMinJobAge=300\nKillWait=30\n\
         NodeName={host} NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 Gres=gpu:2 State=UNKNOWN\n\
         PartitionName=pt Nodes={host} Default=YES MaxTime=INFINITE State=UP\n"
    )
}

/// munged answering: a socket left by a munged that died is not enough (every Slurm message then
/// fails to encode and the node never registers, as seen in CI).
fn munged() {
    let answers = || Command::new("munge").arg("-n").output().is_ok_and(|o| o.status.success());
    if answers() {
        return;
    }
    std::fs::create_dir_all("/run/munge").unwrap();
    Command::new("chown").args(["munge:munge", "/run/munge"]).status().unwrap();
    // --force: start even where a dead munged's socket is still there.
    let started = Command::new("runuser").args(["-u", "munge", "--", "munged", "--force"]).status();
    assert!(started.is_ok_and(|s| s.success()) && answers(), "munged did not start");
}

impl Cluster {
    pub fn start() -> Option<Cluster> {
        let missing: Vec<&str> =
            ["slurmctld", "slurmd", "sbatch", "munged", "munge"].into_iter().filter(|t| !have(t)).collect();
        if !missing.is_empty() {
            // Tests that need them are #[ignore]d where they were missing at build time (build.rs).
            panic!(
                "the slurm tests need {missing:?} (.ci/run installs them): without them they fail, never pass"
            );
        }
        let one = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = tempfile::tempdir().unwrap();
        for sub in ["state", "spool"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        let host =
            String::from_utf8(Command::new("hostname").output().unwrap().stdout).unwrap().trim().to_string();
        std::fs::write(dir.path().join("slurm.conf"), config(dir.path(), &host)).unwrap();
        std::fs::write(dir.path().join("gres.conf"), "Name=gpu File=/dev/null,/dev/zero\n").unwrap();
        munged();
        let cluster = Cluster { dir, _one: one };
        for daemon in ["slurmctld", "slurmd"] {
            let output = std::fs::File::create(cluster.dir.path().join(format!("{daemon}.out"))).unwrap();
            let started = Command::new("setsid")
                .args(["-f", daemon, "-D"])
                .env("SLURM_CONF", cluster.conf())
                .stdout(output.try_clone().unwrap())
                .stderr(output)
                .status();
            assert!(started.is_ok_and(|s| s.success()), "{daemon} did not start");
        }
        cluster.wait_idle();
        Some(cluster)
    }

    pub fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    /// `perftriage ARGS` on `setup`'s config and workspace, Slurm's client pointed at this cluster,
    /// stdout and stderr piped.
    pub fn perftriage(&self, setup: &super::engine::Setup, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_perftriage"));
        command.arg("--config").arg(&setup.config).arg("--workspace").arg(setup.root.join("ws")).args(args);
        command.env("SLURM_CONF", self.conf());
        command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        command
    }

    /// A Slurm client command against this cluster: its trimmed output; one that fails fails
    /// the test (an empty answer is only ever a real one).
    pub fn client(&self, program: &str, args: &[&str]) -> String {
        let out = self.try_client(program, args);
        assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// A Slurm client command that may fail (the controller still starting, a cleanup).
    fn try_client(&self, program: &str, args: &[&str]) -> std::process::Output {
        Command::new(program).args(args).env("SLURM_CONF", self.conf()).output().unwrap()
    }

    fn wait_idle(&self) {
        super::wait::until("the node to go idle", Duration::from_secs(60), || {
            let out = self.try_client("sinfo", &["-h", "-o", "%T"]);
            let state = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if state == "idle" { Ok(()) } else { Err(format!("state `{state}`\n{}", self.logs())) }
        });
    }

    /// Every daemon's log and output, for a failure message.
    fn logs(&self) -> String {
        let names = ["slurmctld.log", "slurmctld.out", "slurmd.log", "slurmd.out"];
        let read = |n: &&str| std::fs::read_to_string(self.dir.path().join(n)).unwrap_or_default();
        names.iter().map(|n| format!("--- {n}\n{}", read(n))).collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.try_client("scancel", &["--user", "root"]);
        for pid_file in ["slurmd.pid", "slurmctld.pid"] {
            if let Ok(pid) = std::fs::read_to_string(self.dir.path().join(pid_file)) {
                stop(pid.trim());
            }
        }
    }
}

/// SIGTERM, then SIGKILL after 5 s: no daemon outlives its cluster (an exited one stays a zombie
/// where nothing reaps it, so "gone" is read from its state).
fn stop(pid: &str) {
    let _ = Command::new("kill").arg(pid).status();
    if !super::wait::within(Duration::from_secs(5), || !running(pid)) {
        let _ = Command::new("kill").args(["-9", pid]).status();
    }
}

fn running(pid: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit(')').next().unwrap_or_default().split_whitespace().next();
    !matches!(state, None | Some("Z" | "X"))
}
