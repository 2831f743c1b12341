//! The signals that stop a job or the board: SIGINT, SIGTERM and SIGHUP. Each one that arrives is
//! handed to the caller with its name and number (the exit code is 128 + the number).

use std::io::Write;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;

/// Call `stop` for every SIGINT, SIGTERM or SIGHUP; must run inside a tokio runtime.
pub fn on_stop(stop: impl Fn(&'static str, u8) + Clone + Send + 'static) {
    let kinds = [
        ("SIGINT", 2, SignalKind::interrupt()),
        ("SIGTERM", 15, SignalKind::terminate()),
        ("SIGHUP", 1, SignalKind::hangup()),
    ];
    for (name, number, kind) in kinds {
        let Ok(mut stream) = signal(kind) else { continue };
        let stop = stop.clone();
        tokio::spawn(async move {
            while stream.recv().await.is_some() {
                stop(name, number);
            }
        });
    }
}

/// A signal that stopped the job: its name and number.
pub type Stopped = std::sync::Arc<std::sync::Mutex<Option<(&'static str, u8)>>>;

/// SIGINT, SIGTERM or SIGHUP throw `cancel` (the job's container is stopped and removed before
/// the process exits); which signal it was, once one came.
pub fn cancel_on_stop(cancel: &watch::Sender<bool>) -> Stopped {
    let (stopped, cancel) = (Stopped::default(), cancel.clone());
    let record = stopped.clone();
    on_stop(move |name, number| {
        if let Ok(mut s) = record.lock() {
            *s = Some((name, number));
        }
        // Our own words: nothing to sanitise; a closed stderr is no reason to stop stopping.
        let _ = writeln!(std::io::stderr(), "perftriage: {name}: stopping and removing the container");
        let _ = cancel.send(true);
    });
    stopped
}
