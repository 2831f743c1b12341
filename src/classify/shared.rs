//! The embedded rules, compiled once on a thread of their own from the moment a command starts:
//! whoever needs them first waits for them. The board draws its first frame meanwhile (it
//! classifies nothing before it); a headless command reads the dataset.

use super::Classifier;
use std::sync::{Arc, LazyLock};

type Compile = fn() -> Classifier;

/// A handle on the rules being compiled, cheap to clone; it derefs to the compiled classifier,
/// waiting for the compile the first time.
#[derive(Clone)]
pub struct SharedClassifier(Arc<LazyLock<Classifier, Compile>>);

impl SharedClassifier {
    /// The embedded rules, compiling now on a thread named `rules` (where no thread can be made,
    /// the first to need them compiles them).
    pub fn embedded() -> SharedClassifier {
        SharedClassifier::embedded_after(|| {})
    }

    /// `embedded`, the compiling thread running `first` before it starts (the board lowers its
    /// priority: on two cores it took the board's own thread's core while it drew).
    pub fn embedded_after(first: fn()) -> SharedClassifier {
        let shared = SharedClassifier(Arc::new(LazyLock::new(compile_embedded)));
        let compiling = shared.clone();
        let thread = std::thread::Builder::new().name("rules".into());
        if let Err(e) = thread.spawn(move || {
            first();
            LazyLock::force(&compiling.0);
        }) {
            log::info!("the rules compile when first needed: {e}");
        }
        shared
    }
}

/// The embedded rules are the binary's own and every classifier test compiles them: a failure
/// here is a build's defect.
fn compile_embedded() -> Classifier {
    Classifier::embedded().unwrap_or_else(|e| panic!("the built-in classifier rules: {e}"))
}

impl std::ops::Deref for SharedClassifier {
    type Target = Classifier;

    fn deref(&self) -> &Classifier {
        LazyLock::force(&self.0)
    }
}

impl std::fmt::Debug for SharedClassifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedClassifier")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every handle is the one compile: a clone waits for it, never compiles again.
    #[test]
    fn clones_share_one_compiled_classifier() {
        let shared = SharedClassifier::embedded();
        let other = shared.clone();
        assert!(std::ptr::eq(&*shared, &*other));
        let line = "ValueError: 'aimv2' is already used by a Transformers config, pick another name.";
        assert_eq!(shared.classify(line).map(|v| v.category).as_deref(), Some("aimv2"));
    }

    static FIRST_ON: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

    fn note_thread() {
        *FIRST_ON.lock().unwrap() = std::thread::current().name().map(str::to_string);
    }

    /// What the board asks first (its lowest priority) runs on the compiling thread, before the
    /// compile is done.
    #[test]
    fn the_thread_that_compiles_runs_first_what_it_was_given() {
        let _shared = SharedClassifier::embedded_after(note_thread);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while FIRST_ON.lock().unwrap().is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(FIRST_ON.lock().unwrap().as_deref(), Some("rules"));
    }
}
