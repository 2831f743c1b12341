//! A second Docker daemon for the hosts tests, on this machine: its own config file (the main
//! daemon's storage driver), unix socket, data and exec roots, pid file, `--iptables=false`, and a
//! bridge of its own that it is given with `-b` (never `--bridge=none`: that deletes the host's
//! docker0). Reached over TCP with TLS certificates made here with openssl. Stopped, its bridge
//! deleted, when dropped. `start_elsewhere` runs it in a network namespace of its own, reached
//! over a veth pair: its 127.0.0.1 is not ours, as another machine's is not.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct SecondDaemon {
    dir: tempfile::TempDir,
    pub port: u16,
    bridge: String,
    /// The network namespace it runs in, when it has one of its own.
    netns: Option<String>,
    /// The address its TCP endpoint listens at.
    addr: String,
}

/// Where the daemon's network is: this machine's, or a namespace of its own.
#[derive(Clone, Copy, PartialEq)]
enum Network {
    Shared,
    OwnNamespace,
}

/// `nsenter`'s arguments that put a program in the network namespace `ns` and nothing else (`ip
/// netns exec` also mounts a `/sys` of its own, without the cgroups dockerd needs).
fn entering(ns: &str) -> [String; 2] {
    ["nsenter".to_string(), format!("--net=/run/netns/{ns}")]
}

/// `program args`, inside the network namespace `netns` when there is one.
fn run_in(netns: Option<&str>, program: &str, args: &[&str]) -> String {
    match netns.map(entering) {
        Some([nsenter, net]) => run(&nsenter, &[&[net.as_str(), program], args].concat()),
        None => run(program, args),
    }
}

/// A network namespace `ptns<tag>` with loopback up, joined to this one by a veth pair on
/// `10.213.<n>.0/24` (this side `.1`, its side `.2`).
fn own_namespace(tag: &str, n: u32) -> String {
    let (ns, here, there) = (format!("ptns{tag}"), format!("ptvh{tag}"), format!("ptvn{tag}"));
    run("ip", &["netns", "add", &ns]);
    run("ip", &["link", "add", &here, "type", "veth", "peer", "name", &there]);
    run("ip", &["link", "set", &there, "netns", &ns]);
    run("ip", &["addr", "add", &format!("10.213.{n}.1/24"), "dev", &here]);
    run("ip", &["link", "set", &here, "up"]);
    run_in(Some(&ns), "ip", &["addr", "add", &format!("10.213.{n}.2/24"), "dev", &there]);
    run_in(Some(&ns), "ip", &["link", "set", &there, "up"]);
    run_in(Some(&ns), "ip", &["link", "set", "lo", "up"]);
    ns
}

fn run(program: &str, args: &[&str]) -> String {
    let out = Command::new(program).args(args).output().unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// CA, server and client certificates: `ca.pem`, `server-cert.pem`/`server-key.pem`, and the
/// client's `cert.pem`/`key.pem` (the names `DOCKER_CERT_PATH` and `[[hosts]] tls` expect).
fn certificates(tls: &Path, addr: &str) {
    let p = |name: &str| tls.join(name).display().to_string();
    let subj = |cn: &str| format!("/CN={cn}");
    run(
        "openssl",
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            &p("ca-key.pem"),
            "-out",
            &p("ca.pem"),
            "-days",
            "2",
            "-subj",
            &subj("perftriage-test-ca"),
        ],
    );
    for (who, key, cert, ext) in [
        (
            "localhost",
            "server-key.pem",
            "server-cert.pem",
            "subjectAltName=IP:{addr},DNS:localhost\nextendedKeyUsage=serverAuth\n",
        ),
        ("client", "key.pem", "cert.pem", "extendedKeyUsage=clientAuth\n"),
    ] {
        std::fs::write(tls.join("ext.cnf"), ext.replace("{addr}", addr)).unwrap();
        run(
            "openssl",
            &[
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                &p(key),
                "-out",
                &p("req.csr"),
                "-subj",
                &subj(who),
            ],
        );
        run(
            "openssl",
            &[
                "x509",
                "-req",
                "-in",
                &p("req.csr"),
                "-CA",
                &p("ca.pem"),
                "-CAkey",
                &p("ca-key.pem"),
                "-CAcreateserial",
                "-out",
                &p(cert),
                "-days",
                "2",
                "-extfile",
                &p("ext.cnf"),
            ],
        );
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn missing_tools() -> Option<String> {
    let root = run("id", &["-u"]) == "0";
    let have = |tool: &str| Command::new("which").arg(tool).output().is_ok_and(|o| o.status.success());
    let missing: Vec<&str> =
        ["dockerd", "openssl", "ip", "nsenter"].into_iter().filter(|t| !have(t)).collect();
    match (root, missing.is_empty()) {
        (true, true) => None,
        (false, _) => Some("root (a second dockerd and a bridge)".into()),
        (_, false) => Some(format!("{missing:?}")),
    }
}

impl SecondDaemon {
    /// This daemon, holding the mock images the tests run (copied without a registry); an engine
    /// on it.
    pub fn with_test_images(
        self,
    ) -> Option<(SecondDaemon, perftriage::docker::Engine, tokio::runtime::Runtime)> {
        let rt = super::engine::runtime();
        let engine = super::engine::engine(&rt)?;
        super::engine::ensure_images(&rt, &engine);
        let endpoint =
            perftriage::docker::endpoint::Endpoint::resolve(&self.endpoint(), Some(&self.tls())).unwrap();
        let remote = rt.block_on(perftriage::docker::Engine::connect_to(&endpoint)).unwrap();
        for image in ["perftriage-test/vllm:ok", "perftriage-test/vllm:aimv2"] {
            rt.block_on(engine.copy_image_to(&remote, image)).unwrap();
        }
        Some((self, remote, rt))
    }

    /// Started and answering, or `None` (a notice) where it cannot be; under CI that fails.
    pub fn start() -> Option<SecondDaemon> {
        SecondDaemon::start_with(false, Network::Shared)
    }

    /// `start`, in a network namespace of its own: the ports it publishes on its 127.0.0.1 are
    /// not this machine's, as on a host elsewhere.
    pub fn start_elsewhere() -> Option<SecondDaemon> {
        SecondDaemon::start_with(false, Network::OwnNamespace)
    }

    /// `start`, its containers outliving a stop of the daemon (`live-restore`): a host that drops
    /// and comes back with its runs still running.
    pub fn start_live_restore() -> Option<SecondDaemon> {
        SecondDaemon::start_with(true, Network::Shared)
    }

    fn start_with(live_restore: bool, network: Network) -> Option<SecondDaemon> {
        if let Some(why) = missing_tools() {
            // Tests that need it are #[ignore]d where it was missing at build time (build.rs).
            panic!("the hosts tests need {why}: without it they fail, never pass");
        }
        let dir = tempfile::tempdir().unwrap();
        let driver = run("docker", &["info", "--format", "{{.Driver}}"]);
        let config = format!("{{\"storage-driver\": \"{driver}\", \"live-restore\": {live_restore}}}");
        std::fs::write(dir.path().join("daemon.json"), config).unwrap();
        // One bridge and subnet per daemon: tests of one binary start theirs side by side.
        static STARTED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let k = STARTED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let n = (std::process::id() * 4 + k) % 200 + 20;
        let tag = format!("{}-{k}", std::process::id() % 100_000);
        let (netns, addr, port) = match network {
            Network::Shared => (None, "127.0.0.1".to_string(), free_port()),
            Network::OwnNamespace => (Some(own_namespace(&tag, n)), format!("10.213.{n}.2"), 2376),
        };
        let tls = dir.path().join("tls");
        std::fs::create_dir_all(&tls).unwrap();
        certificates(&tls, &addr);
        let bridge = format!("ptbr{tag}");
        let ip = |args: &[&str]| run_in(netns.as_deref(), "ip", args);
        ip(&["link", "add", &bridge, "type", "bridge"]);
        ip(&["addr", "add", &format!("172.31.{n}.1/24"), "dev", &bridge]);
        ip(&["link", "set", &bridge, "up"]);
        let daemon = SecondDaemon { dir, port, bridge, netns, addr };
        daemon.resume();
        Some(daemon)
    }

    pub fn tls(&self) -> PathBuf {
        self.dir.path().join("tls")
    }

    pub fn endpoint(&self) -> String {
        format!("tcp://{}:{}", self.addr, self.port)
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// The docker CLI on it, over its own socket.
    pub fn docker(&self, args: &[&str]) -> std::process::Output {
        let host = format!("unix://{}", self.path("docker.sock"));
        Command::new("docker").arg("-H").arg(host).args(args).output().unwrap()
    }

    /// `docker ps FLAGS` on this daemon: its output; a daemon that does not answer fails the test.
    pub fn ps(&self, flags: &str) -> String {
        let out = self.docker(&["ps", flags]);
        assert!(out.status.success(), "docker ps {flags}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Start it (again) and wait until it answers.
    pub fn resume(&self) {
        let tls = self.tls();
        let t = |name: &str| tls.join(name).display().to_string();
        let args = [
            "--config-file",
            &self.path("daemon.json"),
            "-H",
            &format!("unix://{}", self.path("docker.sock")),
            "-H",
            &self.endpoint(),
            "--tlsverify",
            "--tlscacert",
            &t("ca.pem"),
            "--tlscert",
            &t("server-cert.pem"),
            "--tlskey",
            &t("server-key.pem"),
            "--data-root",
            &self.path("data"),
            "--exec-root",
            &self.path("exec"),
            "--pidfile",
            &self.path("docker.pid"),
            "--iptables=false",
            "-b",
            &self.bridge,
        ]
        .map(String::from);
        let log = std::fs::File::create(self.path("dockerd.log")).unwrap();
        // `setsid -f`: the daemon is not our child, so a stopped one leaves no zombie to wait for.
        let in_ns = self.netns.as_deref().map(entering);
        let started = Command::new("setsid")
            .arg("-f")
            .args(in_ns.iter().flatten())
            .arg("dockerd")
            .args(args)
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .status();
        assert!(started.is_ok_and(|s| s.success()), "cannot start a second dockerd");
        super::wait::holds(
            "the second dockerd to answer",
            60,
            || self.docker(&["version"]).status.success(),
            || std::fs::read_to_string(self.path("dockerd.log")).unwrap_or_default(),
        );
    }

    /// Stop it (SIGTERM) and wait until it is gone.
    pub fn stop(&self) {
        let Ok(pid) = std::fs::read_to_string(self.path("docker.pid")) else { return };
        let _ = Command::new("kill").arg(pid.trim()).status();
        let proc = format!("/proc/{}", pid.trim());
        super::wait::holds(
            "the second dockerd to exit",
            30,
            || !Path::new(&proc).exists(),
            || std::fs::read_to_string(self.path("dockerd.log")).unwrap_or_default(),
        );
    }
}

impl Drop for SecondDaemon {
    fn drop(&mut self) {
        self.stop();
        // Deleting the namespace deletes the bridge and the veth pair in it too.
        let _ = match &self.netns {
            Some(ns) => Command::new("ip").args(["netns", "del", ns]).status(),
            None => Command::new("ip").args(["link", "del", &self.bridge]).status(),
        };
    }
}
