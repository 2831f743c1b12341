//! The runs that have ended and whose result files are not written yet: a board that quits, or
//! is stopped by a signal, waits for them (it dropped their writes when it quit in that moment).

use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How many ended runs are still being recorded.
#[derive(Debug, Clone)]
pub struct Recording(Arc<watch::Sender<usize>>);

impl Default for Recording {
    fn default() -> Recording {
        Recording(Arc::new(watch::channel(0).0))
    }
}

impl Recording {
    /// One more run being recorded, until the guard is dropped (written, failed or abandoned).
    pub fn begin(&self) -> RecordingGuard {
        self.0.send_modify(|n| *n += 1);
        RecordingGuard(self.clone())
    }

    /// Whether every run being recorded is done within `patience`.
    pub async fn settled(&self, patience: Duration) -> bool {
        let mut done = self.0.subscribe();
        let waited = tokio::time::timeout(patience, done.wait_for(|n| *n == 0)).await;
        waited.is_ok_and(|seen| seen.is_ok())
    }
}

pub struct RecordingGuard(Recording);

impl Drop for RecordingGuard {
    fn drop(&mut self) {
        self.0.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn settled_waits_for_every_guard_and_gives_up_after_its_patience() {
        let recording = Recording::default();
        assert!(recording.settled(Duration::ZERO).await, "nothing being recorded");
        let (first, second) = (recording.begin(), recording.begin());
        assert!(!recording.settled(Duration::from_millis(1)).await);
        drop(first);
        assert!(!recording.settled(Duration::from_millis(1)).await, "one still being recorded");
        let waiting = tokio::spawn({
            let recording = recording.clone();
            async move { recording.settled(Duration::from_secs(600)).await }
        });
        drop(second);
        assert!(waiting.await.unwrap(), "the wait ends when the last guard drops");
    }
}
