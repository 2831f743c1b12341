//! Debian's `docker-registry` on a free loopback port, storing in a temporary directory; killed
//! and waited for when dropped.

use std::process::{Child, Command};

pub const REGISTRY: &str = "/usr/bin/docker-registry";

pub struct Registry {
    child: Child,
    _dir: tempfile::TempDir,
    pub host: String,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Registry {
    /// Started and listening. Tests that need it are #[ignore]d at build time where the package
    /// was missing (build.rs); missing now, this fails.
    pub fn start() -> Registry {
        assert!(std::path::Path::new(REGISTRY).exists(), "no {REGISTRY} (Debian package docker-registry)");
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.yml");
        let yaml = format!(
            "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: 127.0.0.1:{port}\n",
            dir.path().join("data").display()
        );
        std::fs::write(&config, yaml).unwrap();
        // Its access log (and a line per unknown manifest, which the night asks for on purpose)
        // would bury the test's own output.
        let quiet = || std::process::Stdio::null();
        let child =
            Command::new(REGISTRY).arg("serve").arg(&config).stdout(quiet()).stderr(quiet()).spawn().unwrap();
        let registry = Registry { child, _dir: dir, host: format!("127.0.0.1:{port}") };
        let what = format!("the registry to listen on {}", registry.host);
        let listening = || std::net::TcpStream::connect(&registry.host).is_ok();
        super::wait::holds(&what, 30, listening, || "connection refused".into());
        registry
    }
}
