//! Waiting for a state, never for a time: one deadline per wait, and a timeout that says what was
//! awaited and what was seen last. Processes a test starts are killed when it ends, failing or not.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::BufRead;
use std::process::{Child, ExitStatus};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often a probe is asked again.
const PACE: Duration = Duration::from_millis(100);

/// Every limit a test names is stretched this many times. A limit bounds a hang, it is no budget:
/// a wait ends as soon as its state holds, and on the shared 2-core machine a loaded CI run took
/// over 2× a limit that an idle run met with room (the board reading 100,000 results, a real
/// vLLM's import). Only a failing test waits the longer.
pub const PATIENCE: u32 = 3;

/// `limit` as a wait holds it: × `PATIENCE`.
pub fn stretched(limit: Duration) -> Duration {
    limit * PATIENCE
}

/// Ask `probe` until it answers `Ok` or `limit` (× `PATIENCE`) has passed: its value, or the last
/// `Err` (what the probe saw).
pub fn poll<T>(limit: Duration, probe: impl FnMut() -> Result<T, String>) -> Result<T, String> {
    poll_paced(limit, PACE, probe)
}

/// `poll`, asking every `pace`: a costly probe whose state takes minutes to come is asked less
/// often.
pub fn poll_paced<T>(
    limit: Duration,
    pace: Duration,
    mut probe: impl FnMut() -> Result<T, String>,
) -> Result<T, String> {
    let deadline = Instant::now() + stretched(limit);
    loop {
        match probe() {
            Ok(value) => return Ok(value),
            Err(seen) if Instant::now() >= deadline => return Err(seen),
            // pacing between two probes, not a wait for a state
            Err(_) => std::thread::sleep(pace),
        }
    }
}

/// `poll`, and past `limit` the test fails naming `what` and what the probe saw last.
pub fn until<T>(what: &str, limit: Duration, probe: impl FnMut() -> Result<T, String>) -> T {
    until_paced(what, limit, PACE, probe)
}

/// `until`, asking every `pace` (`poll_paced`).
pub fn until_paced<T>(
    what: &str,
    limit: Duration,
    pace: Duration,
    probe: impl FnMut() -> Result<T, String>,
) -> T {
    poll_paced(limit, pace, probe).unwrap_or_else(|seen| {
        panic!("timed out after {} s waiting for {what}; last seen:\n{seen}", stretched(limit).as_secs())
    })
}

/// Whether `done` came to hold within `limit` (for a wait that has a fallback, not a failure).
pub fn within(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    poll(limit, || if done() { Ok(()) } else { Err(String::new()) }).is_ok()
}

/// `until` a condition holds; `seen` says what was there instead.
pub fn holds(what: &str, secs: u64, mut done: impl FnMut() -> bool, seen: impl Fn() -> String) {
    until(what, Duration::from_secs(secs), || if done() { Ok(()) } else { Err(seen()) });
}

/// A child killed and reaped when the test ends, whether it passes or fails (nextest reports a
/// process a failed test left behind as a leak).
pub struct Reaped(pub Child);

impl std::ops::Deref for Reaped {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Reaped {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Reaped {
    pub fn new(child: Child) -> Reaped {
        Reaped(child)
    }

    /// Whether it has ended (reaped if so).
    pub fn exited(&mut self) -> bool {
        self.0.try_wait().is_ok_and(|s| s.is_some())
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A child whose piped output is read as it comes (a thread per stream keeps it), so a test can
/// wait for a line it prints; killed and reaped on drop.
pub struct Watched {
    child: Reaped,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

/// A thread appending what `pipe` gives to `into`, line by line.
fn keep(pipe: impl std::io::Read + Send + 'static, into: &Arc<Mutex<String>>) -> std::thread::JoinHandle<()> {
    let kept = into.clone();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(pipe).lines().map_while(Result::ok) {
            let mut text = kept.lock().unwrap_or_else(|p| p.into_inner());
            text.push_str(&line);
            text.push('\n');
        }
    })
}

fn read(text: &Arc<Mutex<String>>) -> String {
    text.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

impl Watched {
    /// `child` with its stderr (and maybe its stdout) piped.
    pub fn new(mut child: Child) -> Watched {
        let (stdout, stderr) = (Arc::default(), Arc::default());
        let mut readers =
            vec![keep(child.stderr.take().expect("a Watched child's stderr is piped"), &stderr)];
        readers.extend(child.stdout.take().map(|pipe| keep(pipe, &stdout)));
        Watched { child: Reaped(child), stdout, stderr, readers }
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    pub fn stderr(&self) -> String {
        read(&self.stderr)
    }

    /// What it printed on stdout so far (empty where stdout was not piped).
    pub fn stdout(&self) -> String {
        read(&self.stdout)
    }

    /// Until its stderr holds `text`.
    pub fn printed(&self, text: &str, secs: u64) {
        let what = format!("`{text}` on the child's stderr");
        holds(&what, secs, || self.stderr().contains(text), || self.stderr());
    }

    /// Its exit, its stdout (empty where it was not piped) and its stderr.
    pub fn finish(mut self) -> (ExitStatus, String, String) {
        let status = self.child.wait().unwrap();
        for reader in std::mem::take(&mut self.readers) {
            reader.join().unwrap();
        }
        (status, read(&self.stdout), read(&self.stderr))
    }
}
