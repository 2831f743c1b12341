//! The board's background work, reading the result files on the reader's thread and rayon's,
//! runs at the lowest priority (nice 19): on two cores the terminal, tmux or sshd showing a
//! frame, and the board's own loop, come first; an idle machine gives the reading every cycle.

/// The reader's thread's name (`/proc`'s `comm`: at most 15 bytes).
pub const READER: &str = "results-reader";

/// Rayon's threads (named `reading-N`) made at the lowest priority: called first thing, before
/// any parallel work makes the pool (were it made already, the log would say so).
pub fn lowly_rayon() {
    let pool = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("reading-{i}"));
    let built = pool.start_handler(|_| lower_this_thread()).build_global();
    if let Err(e) = built {
        log::info!("the reading threads keep their priority: {e}");
    }
}

/// This thread at the lowest priority (a thread cannot raise its own back).
pub fn lower_this_thread() {
    if let Err(e) = thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Min) {
        log::info!("a reading thread keeps its priority: {e:?}");
    }
}
