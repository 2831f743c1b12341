//! The job service's look at campaigns: a campaign runs in a process of its own (`perftriage
//! campaign`), and the board reads its journal to say how it stands.

use super::JobService;
use crate::app::Msg;

impl JobService {
    /// Answer with `Msg::Campaign`: how the workspace's newest campaign stands.
    pub fn read_campaign(&self) {
        let (workspace, tx) = (self.setup.workspace.clone(), self.tx.clone());
        tokio::task::spawn_blocking(move || {
            let _ = tx.send(Msg::Campaign(crate::jobs::journal::newest_snapshot(&workspace)));
        });
    }
}
