//! `[[hosts]]`: the Docker engines runs may go to. Each has a name (unique), an endpoint
//! (`unix://…`, `tcp://host:port` with `tls` = a folder of `ca.pem`/`cert.pem`/`key.pem`,
//! `ssh://user@host`, or a docker CLI context name), an optional GPU count that replaces what the
//! probe finds, the runs it takes at once, and the image its GPU probe starts.

use crate::ids::ImageRef;
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
    pub probe_image: Option<ImageRef>,
}

fn one() -> usize {
    1
}

/// Runs the hosts take at once: every `[[hosts]]` slot, 1 without hosts (this machine's engine).
pub fn total_slots(hosts: &[HostConfig]) -> u32 {
    let slots: usize = hosts.iter().map(|h| h.concurrency).sum();
    u32::try_from(slots.max(1)).unwrap_or(u32::MAX)
}

/// What is wrong with one host of the list (`#N`: its place in the file).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HostsError {
    #[error("[[hosts]] #{0}: a host needs a name")]
    NoName(usize),
    #[error("[[hosts]] #{0} `{1}`: the name is used twice")]
    NameTwice(usize, String),
    #[error("[[hosts]] #{0} `{1}`: endpoint is empty")]
    NoEndpoint(usize, String),
    #[error("[[hosts]] #{0} `{1}`: concurrency must be at least 1")]
    NoSlots(usize, String),
    #[error("[[hosts]] #{0} `{1}`: tls is for tcp:// endpoints")]
    TlsWithoutTcp(usize, String),
}

/// What is wrong with the hosts list, naming the host.
pub fn check(hosts: &[HostConfig]) -> Result<(), HostsError> {
    let mut seen = std::collections::BTreeSet::new();
    for (n, host) in (1..).zip(hosts) {
        let name = host.name.clone();
        if host.name.trim().is_empty() {
            return Err(HostsError::NoName(n));
        }
        if !seen.insert(host.name.as_str()) {
            return Err(HostsError::NameTwice(n, name));
        }
        if host.endpoint.trim().is_empty() {
            return Err(HostsError::NoEndpoint(n, name));
        }
        if host.concurrency == 0 {
            return Err(HostsError::NoSlots(n, name));
        }
        if host.tls.is_some() && !host.endpoint.starts_with("tcp://") {
            return Err(HostsError::TlsWithoutTcp(n, name));
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
        assert_eq!(twice.to_string(), "[[hosts]] #2 `a`: the name is used twice");
        assert_eq!(check(&[host(" ", "unix:///s")]), Err(HostsError::NoName(1)));
        assert_eq!(check(&[host("a", "")]), Err(HostsError::NoEndpoint(1, "a".into())));
        let busy = HostConfig { concurrency: 0, ..host("a", "unix:///s") };
        assert_eq!(check(&[busy]), Err(HostsError::NoSlots(1, "a".into())));
        let tls = HostConfig { tls: Some("/certs".into()), ..host("a", "ssh://u@h") };
        assert!(check(&[tls]).unwrap_err().to_string().contains("tls is for tcp://"));
    }
}
