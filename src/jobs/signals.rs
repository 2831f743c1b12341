//! The signals that stop a job or the board: SIGINT, SIGTERM and SIGHUP. Each one that arrives is
//! handed to the caller with its name and number (the exit code is 128 + the number).

use tokio::signal::unix::{SignalKind, signal};

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
