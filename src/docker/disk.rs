//! Disk awareness: ISO-Bench images are 17–22 GB, and a full Docker data root fails a pull, a
//! commit or a build half-way. Before each, the data root's free space is compared with what the
//! step needs; too little is refused with the numbers.

use super::{DockerError, Engine};

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// Free space under the Docker data root.
#[derive(Debug, Clone, PartialEq)]
pub struct Room {
    pub root: String,
    pub free_bytes: u64,
}

fn in_gib(bytes: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let gib = bytes as f64 / GIB;
    format!("{gib:.1} GiB")
}

impl Engine {
    /// The data root's free space, when that directory is on this machine (a remote daemon's is
    /// not: then nothing is known and nothing is refused).
    pub async fn room(&self) -> Option<Room> {
        // A daemon reached over the network has its data root on its own machine.
        if !self.is_on_this_machine() {
            return None;
        }
        let root = self.raw().info().await.ok()?.docker_root_dir?;
        let stat = rustix::fs::statvfs(root.as_str()).ok()?;
        Some(Room { root, free_bytes: stat.f_bavail.saturating_mul(stat.f_frsize) })
    }

    /// Refuse `what` when it needs more than the data root has free.
    pub async fn ensure_room(&self, what: &str, needed: u64) -> Result<(), DockerError> {
        match self.room().await {
            Some(room) if room.free_bytes < needed => Err(DockerError::NoRoom {
                what: what.to_string(),
                needed: in_gib(needed),
                free: in_gib(room.free_bytes),
                root: room.root,
            }),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_read_in_gib() {
        assert_eq!(super::in_gib(1_610_612_736), "1.5 GiB");
        assert_eq!(super::in_gib(0), "0.0 GiB");
    }
}
