//! `[[hosts]]`: the Docker engines runs may go to. Each has a name (unique), an endpoint
//! (`unix://…`, `tcp://host:port` with `tls` = a folder of `ca.pem`/`cert.pem`/`key.pem`,
//! `ssh://user@host`, or a docker CLI context name), an optional GPU count that replaces what the
//! probe finds, the runs it takes at once, and the image its GPU probe starts.

use serde::Deserialize;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    pub name: String,
    pub endpoint: String,
    pub tls: Option<PathBuf>,
    pub gpus: Option<u32>,
    #[serde(default = "one")]
    pub concurrency: usize,
    /// An image on that host for the GPU probe (`nvidia-smi` comes from the NVIDIA runtime).
    pub probe_image: Option<String>,
}

fn one() -> usize {
    1
}

/// What is wrong with the hosts list, naming the host.
pub fn check(hosts: &[HostConfig]) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for (n, host) in hosts.iter().enumerate() {
        let which = format!("[[hosts]] #{} `{}`", n + 1, host.name);
        if host.name.trim().is_empty() {
            return Err(format!("[[hosts]] #{}: a host needs a name", n + 1));
        }
        if !seen.insert(host.name.as_str()) {
            return Err(format!("{which}: the name is used twice"));
        }
        if host.endpoint.trim().is_empty() {
            return Err(format!("{which}: endpoint is empty"));
        }
        if host.concurrency == 0 {
            return Err(format!("{which}: concurrency must be at least 1"));
        }
        if host.tls.is_some() && !host.endpoint.starts_with("tcp://") {
            return Err(format!("{which}: tls is for tcp:// endpoints"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str, endpoint: &str) -> HostConfig {
        HostConfig {
            name: name.into(),
            endpoint: endpoint.into(),
            tls: None,
            gpus: None,
            concurrency: 1,
            probe_image: None,
        }
    }

    #[test]
    fn a_bad_hosts_list_names_the_host_and_what_is_wrong() {
        assert_eq!(check(&[host("a", "unix:///s"), host("b", "ssh://u@h")]), Ok(()));
        let twice = check(&[host("a", "unix:///s"), host("a", "tcp://h:2376")]).unwrap_err();
        assert_eq!(twice, "[[hosts]] #2 `a`: the name is used twice");
        assert!(check(&[host(" ", "unix:///s")]).unwrap_err().contains("#1: a host needs a name"));
        assert!(check(&[host("a", "")]).unwrap_err().contains("endpoint is empty"));
        let busy = HostConfig { concurrency: 0, ..host("a", "unix:///s") };
        assert!(check(&[busy]).unwrap_err().contains("concurrency must be at least 1"));
        let tls = HostConfig { tls: Some("/certs".into()), ..host("a", "ssh://u@h") };
        assert!(check(&[tls]).unwrap_err().contains("tls is for tcp://"));
    }
}
