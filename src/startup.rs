//! Where the board's start (or a headless command) went: each phase marks when it ended, and once
//! the first frame is drawn the marks are logged as one line (the debug pane and the workspace
//! log; `status --verbose` prints them on stderr), so a slow start says which phase was slow. A
//! mark is a lock and a push: a few hundred nanoseconds.

use std::sync::{Condvar, Mutex};
use std::time::Instant;

/// The phases marked so far, from the first mark (`main`).
static MARKS: Mutex<Vec<(&'static str, Instant)>> = Mutex::new(Vec::new());

/// Whether the board's first frame is drawn, and the threads waiting for it.
static DRAWN: (Mutex<bool>, Condvar) = (Mutex::new(false), Condvar::new());

/// The board's first frame is drawn: the threads that waited for it go on.
pub fn first_frame_drawn() {
    if let Ok(mut drawn) = DRAWN.0.lock() {
        *drawn = true;
        DRAWN.1.notify_all();
    }
}

/// Until the board's first frame is drawn, or `patience` has passed (a command that draws none);
/// whether it was drawn.
pub fn after_first_frame(patience: std::time::Duration) -> bool {
    let Ok(drawn) = DRAWN.0.lock() else { return false };
    DRAWN.1.wait_timeout_while(drawn, patience, |drawn| !*drawn).is_ok_and(|(drawn, _)| *drawn)
}

/// The phase `name` ended now.
pub fn mark(name: &'static str) {
    let now = Instant::now();
    if let Ok(mut marks) = MARKS.lock() {
        marks.push((name, now));
    }
}

/// Each phase's time since the one before, in ms: `"dataset head 4.1, workspace 2.0, …; 9.3 ms
/// from main"`; the marks are taken (a second call says nothing).
pub fn summary() -> Option<String> {
    let marks = std::mem::take(&mut *MARKS.lock().ok()?);
    let (_, first) = *marks.first()?;
    let (_, last) = *marks.last()?;
    let phases: Vec<String> =
        marks.windows(2).map(|pair| format!("{} {:.1}", pair[1].0, ms(pair[1].1 - pair[0].1))).collect();
    Some(format!("{}; {:.1} ms from {}", phases.join(", "), ms(last - first), marks[0].0))
}

/// A duration in milliseconds, as the start's log lines give them.
pub fn ms(elapsed: std::time::Duration) -> f64 {
    elapsed.as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_each_phase_after_the_first_and_takes_the_marks() {
        mark("main");
        mark("config");
        mark("drawn");
        let line = summary().expect("three marks");
        assert!(line.starts_with("config "), "{line}");
        assert!(line.contains(", drawn "), "{line}");
        assert!(line.ends_with(" ms from main"), "{line}");
        assert_eq!(summary(), None, "the marks were taken");
    }

    #[test]
    fn a_thread_waiting_for_the_first_frame_goes_on_once_it_is_drawn() {
        assert!(!after_first_frame(std::time::Duration::ZERO), "not drawn yet");
        let waiting = std::thread::spawn(|| after_first_frame(std::time::Duration::from_secs(600)));
        first_frame_drawn();
        assert!(waiting.join().unwrap(), "it went on because the frame was drawn");
        assert!(after_first_frame(std::time::Duration::ZERO), "and later waits do not wait");
    }
}
