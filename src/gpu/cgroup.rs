//! Which container a process belongs to, from `/proc/<pid>/cgroup`: cgroup v1 (`…:/docker/<id>`)
//! and v2 (`0::/system.slice/docker-<id>.scope`), docker and containerd (`cri-containerd-<id>`) naming.

use std::path::Path;

/// The 64-hex container id in a cgroup file's text, if any.
pub fn container_id_in(cgroup: &str) -> Option<String> {
    cgroup.lines().find_map(|line| {
        let path = line.splitn(3, ':').nth(2)?;
        path.split('/').rev().find_map(|part| {
            let part = part.strip_suffix(".scope").unwrap_or(part);
            let id = ["docker-", "cri-containerd-", "crio-", "libpod-"]
                .iter()
                .find_map(|p| part.strip_prefix(p))
                .unwrap_or(part);
            (id.len() == 64 && id.chars().all(|c| c.is_ascii_hexdigit())).then(|| id.to_string())
        })
    })
}

/// The container of `pid`, reading `<proc_root>/<pid>/cgroup` (`/proc` on a live system).
pub fn container_of(proc_root: &Path, pid: u32) -> Option<String> {
    let text = std::fs::read_to_string(proc_root.join(pid.to_string()).join("cgroup")).ok()?;
    container_id_in(&text)
}
