//! Reaching a named Docker engine: `unix://` sockets, `tcp://` (with a TLS folder of `ca.pem`,
//! `cert.pem`, `key.pem`, as `DOCKER_CERT_PATH`), `ssh://user@host` (the remote's `docker system
//! dial-stdio`), or a docker CLI context by name (its `meta.json` and TLS files under
//! `$DOCKER_CONFIG/contexts`, `~/.docker` by default).

use super::{DockerError, Engine};
use bollard::{API_DEFAULT_VERSION, Docker};
use std::path::{Path, PathBuf};

/// The daemon's socket when `DOCKER_HOST` names none, as the docker CLI has it.
pub const DEFAULT_SOCKET: &str = "unix:///var/run/docker.sock";

/// Seconds a request to a host may take.
const TIMEOUT_S: u64 = 30;

#[derive(Debug, Clone, PartialEq)]
pub enum Endpoint {
    Unix(String),
    Tcp { addr: String, tls: Option<PathBuf> },
    Ssh(String),
}

/// Why an endpoint names no daemon.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EndpointError {
    #[error("`{endpoint}`: unknown scheme {scheme}:// (unix, tcp, ssh, or a context name)")]
    UnknownScheme { endpoint: String, scheme: String },
    #[error("no docker context `{name}` ({where_}{})", .why.as_ref().map(|w| format!(": {w}")).unwrap_or_default())]
    NoContext { name: String, where_: String, why: Option<String> },
    #[error("docker context `{0}` has no docker endpoint")]
    NoDockerEndpoint(String),
}

impl Endpoint {
    /// An endpoint as `[[hosts]]` gives it; a bare word is a docker CLI context.
    pub fn resolve(endpoint: &str, tls: Option<&Path>) -> Result<Endpoint, EndpointError> {
        let tls = tls.map(Path::to_path_buf);
        match endpoint.split_once("://") {
            Some(("unix", _)) => Ok(Endpoint::Unix(endpoint.to_string())),
            Some(("tcp" | "http" | "https", _)) => Ok(Endpoint::Tcp { addr: endpoint.to_string(), tls }),
            Some(("ssh", _)) => Ok(Endpoint::Ssh(endpoint.to_string())),
            Some((scheme, _)) => Err(EndpointError::UnknownScheme {
                endpoint: endpoint.to_string(),
                scheme: scheme.to_string(),
            }),
            None => context(&docker_config_dir(), endpoint),
        }
    }
}

fn docker_config_dir() -> PathBuf {
    std::env::var_os("DOCKER_CONFIG").map_or_else(
        || std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default().join(".docker"),
        PathBuf::from,
    )
}

/// The docker CLI context `name`: its endpoint and, when it has them, its TLS files.
pub fn context(config_dir: &Path, name: &str) -> Result<Endpoint, EndpointError> {
    let meta = config_dir.join("contexts").join("meta");
    let missing = |why: Option<String>| EndpointError::NoContext {
        name: name.to_string(),
        where_: meta.display().to_string(),
        why,
    };
    let entries = std::fs::read_dir(&meta).map_err(|e| missing(Some(e.to_string())))?;
    for dir in entries.flatten() {
        let Ok(text) = std::fs::read_to_string(dir.path().join("meta.json")) else { continue };
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        if json["Name"] != name {
            continue;
        }
        let host = json["Endpoints"]["docker"]["Host"]
            .as_str()
            .ok_or_else(|| EndpointError::NoDockerEndpoint(name.to_string()))?;
        let tls_dir = config_dir.join("contexts").join("tls").join(dir.file_name()).join("docker");
        let tls = tls_dir.join("ca.pem").exists().then_some(tls_dir);
        return Endpoint::resolve(host, tls.as_deref());
    }
    Err(missing(None))
}

impl Endpoint {
    /// Whether it is known to be a daemon on this machine: only a unix socket is (a `tcp://`
    /// address, even a loopback one, may be a tunnel to another machine).
    pub fn is_on_this_machine(&self) -> bool {
        matches!(self, Endpoint::Unix(_))
    }

    /// `DOCKER_HOST`'s endpoint; unset or empty, the default socket.
    pub fn from_docker_host() -> Result<Endpoint, EndpointError> {
        match std::env::var("DOCKER_HOST") {
            Ok(host) if !host.is_empty() => Endpoint::resolve(&host, None),
            _ => Ok(Endpoint::Unix(DEFAULT_SOCKET.into())),
        }
    }
}

fn connect(endpoint: &Endpoint) -> Result<Docker, bollard::errors::Error> {
    match endpoint {
        Endpoint::Unix(path) => Docker::connect_with_unix(path, TIMEOUT_S, API_DEFAULT_VERSION),
        Endpoint::Tcp { addr, tls: Some(dir) } => Docker::connect_with_ssl(
            addr,
            &dir.join("key.pem"),
            &dir.join("cert.pem"),
            &dir.join("ca.pem"),
            TIMEOUT_S,
            API_DEFAULT_VERSION,
        ),
        Endpoint::Tcp { addr, tls: None } => Docker::connect_with_http(addr, TIMEOUT_S, API_DEFAULT_VERSION),
        Endpoint::Ssh(addr) => Docker::connect_with_ssh(addr, TIMEOUT_S, API_DEFAULT_VERSION, None),
    }
}

impl Engine {
    /// Connect to one named endpoint and agree on an API version.
    pub async fn connect_to(endpoint: &Endpoint) -> Result<Engine, DockerError> {
        let docker = connect(endpoint).map_err(|e| DockerError::Unreachable(e.to_string()))?;
        let mut engine = Engine::agree(docker).await?;
        engine.origin = Some(endpoint.clone());
        Ok(engine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_by_scheme_and_context_and_what_is_wrong_with_them() {
        assert_eq!(
            Endpoint::resolve("unix:///run/d.sock", None),
            Ok(Endpoint::Unix("unix:///run/d.sock".into()))
        );
        assert_eq!(Endpoint::resolve("ssh://me@gpu1", None), Ok(Endpoint::Ssh("ssh://me@gpu1".into())));
        let tcp = Endpoint::resolve("tcp://gpu2:2376", Some(Path::new("/certs")));
        assert_eq!(tcp, Ok(Endpoint::Tcp { addr: "tcp://gpu2:2376".into(), tls: Some("/certs".into()) }));
        assert!(!tcp.is_ok_and(|t| t.is_on_this_machine()), "tcp may reach another machine");
        assert!(Endpoint::resolve("unix:///run/d.sock", None).is_ok_and(|u| u.is_on_this_machine()));
        assert!(!Endpoint::Ssh("ssh://me@localhost".into()).is_on_this_machine());
        assert!(
            Endpoint::resolve("ftp://x", None)
                .is_err_and(|e| e.to_string().contains("unknown scheme ftp://"))
        );
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let meta = dir.path().join("contexts/meta/0123abcd");
        std::fs::create_dir_all(&meta).unwrap_or_else(|e| panic!("{e}"));
        let json = r#"{"Name":"gpu3","Endpoints":{"docker":{"Host":"tcp://10.0.0.3:2376"}}}"#;
        std::fs::write(meta.join("meta.json"), json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            context(dir.path(), "gpu3"),
            Ok(Endpoint::Tcp { addr: "tcp://10.0.0.3:2376".into(), tls: None })
        );
        assert!(
            context(dir.path(), "gpu4").is_err_and(|e| e.to_string().contains("no docker context `gpu4`"))
        );
    }
}
