//! The board in a real terminal: a tmux session of its own on a config and workspace, read back
//! as text, driven with keys; quit and gone when dropped.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

pub struct Board {
    session: String,
    /// The board's own tmux server (`tmux -L`): a server whose last session was killed exits
    /// while a new session on the same socket may be asking it ("server exited unexpectedly").
    socket: String,
    socket_path: String,
    /// Its workspace: a timed-out wait shows the board's own log (`perftriage.log`) from there.
    workspace: std::path::PathBuf,
}

impl Board {
    /// `width` columns, 45 rows; `name` keeps sessions of parallel tests apart.
    pub fn start(config: &Path, workspace: &Path, name: &str, width: u16) -> Board {
        Board::start_with(config, workspace, name, width, &[])
    }

    /// `start`, with `env` set for the board (`SLURM_CONF`, …).
    pub fn start_with(
        config: &Path,
        workspace: &Path,
        name: &str,
        width: u16,
        env: &[(&str, &Path)],
    ) -> Board {
        Board::spawn(config, workspace, name, (width, 45), env)
    }

    /// A board in a terminal of `width` × `height`.
    pub fn start_sized(config: &Path, workspace: &Path, name: &str, (width, height): (u16, u16)) -> Board {
        Board::spawn(config, workspace, name, (width, height), &[])
    }

    fn spawn(config: &Path, workspace: &Path, name: &str, size: (u16, u16), env: &[(&str, &Path)]) -> Board {
        static STARTED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let session = format!("pt-{name}-{}", std::process::id());
        let k = STARTED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let socket = format!("perftriage-{}-{k}", std::process::id());
        let env: Vec<String> = env.iter().map(|(k, v)| format!("{k}={}", v.display())).collect();
        let cmd = format!(
            "env {} {} --config {} --workspace {}; sleep 30",
            env.join(" "),
            env!("CARGO_BIN_EXE_perftriage"),
            config.display(),
            workspace.display()
        );
        let (width, height) = (size.0.to_string(), size.1.to_string());
        let mut board =
            Board { session, socket, socket_path: String::new(), workspace: workspace.to_path_buf() };
        let out = board
            .tmux()
            .args(["new-session", "-d", "-s", &board.session, "-x", &width, "-y", &height, &cmd])
            .output()
            .expect("tmux (the tests install it through .ci/run)");
        let why = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "tmux new-session {}: {why}", board.session);
        let path = board.tmux().args(["display-message", "-p", "#{socket_path}"]).output().unwrap();
        board.socket_path = String::from_utf8_lossy(&path.stdout).trim().to_string();
        board
    }

    /// tmux, on the board's server.
    fn tmux(&self) -> Command {
        let mut tmux = Command::new("tmux");
        tmux.args(["-L", &self.socket]);
        tmux
    }

    /// The name and nice value of each thread of the board's process (the pane's shell's
    /// child), the process's own thread first.
    pub fn thread_nices(&self) -> Vec<(String, i32)> {
        let out =
            self.tmux().args(["display-message", "-p", "-t", &self.session, "#{pane_pid}"]).output().unwrap();
        let shell = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).unwrap();
        let pid = children.split_whitespace().next().expect("the board runs in the pane");
        let thread =
            |tid: &str| name_and_nice(&std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/stat")).ok()?);
        let mut tids: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/task"))
            .unwrap()
            .filter_map(|t| t.ok()?.file_name().into_string().ok())
            .collect();
        tids.sort_by_key(|t| t != pid);
        tids.iter().filter_map(|t| thread(t)).collect()
    }

    pub fn screen(&self) -> String {
        let out = self.tmux().args(["capture-pane", "-p", "-t", &self.session]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen once `done` holds of it (at most `secs` × `wait::PATIENCE`), captured again a
    /// moment later: a capture taken while the board writes a frame shows the frame's upper part
    /// over the last one's lower part, and a test asserting what lies below the text it waited for
    /// read a frame half drawn (seen in a suite run: a confirm without its last lines). The second capture
    /// is returned where `done` still holds of it, else the first (a state that was brief).
    pub fn until(&self, what: &str, secs: u64, done: impl Fn(&str) -> bool) -> String {
        let seen = super::wait::poll(std::time::Duration::from_secs(secs), || {
            let now = self.screen();
            if done(&now) { Ok(now) } else { Err(now) }
        });
        let first = seen.unwrap_or_else(|screen| self.timed_out(what, secs, &screen));
        // pacing: the frame being written when the first capture was taken is written by now
        std::thread::sleep(std::time::Duration::from_millis(100));
        let again = self.screen();
        if done(&again) { again } else { first }
    }

    /// The screen once `done` holds, waited for as long as `progress` (a count read off the screen)
    /// keeps moving: a loaded machine reads slowly and is waited for, a stuck board stops moving
    /// and fails after `stall_secs` without a change.
    pub fn until_moving(
        &self,
        what: &str,
        stall_secs: u64,
        progress: impl Fn(&str) -> Option<String>,
        done: impl Fn(&str) -> bool,
    ) -> String {
        let mut last = None;
        loop {
            let step = super::wait::poll(std::time::Duration::from_secs(stall_secs), || {
                let now = self.screen();
                let moved = progress(&now);
                if done(&now) || moved != last { Ok((now, moved)) } else { Err(now) }
            });
            match step {
                Ok((now, _)) if done(&now) => return now,
                Ok((_, moved)) => last = moved,
                Err(screen) => self.timed_out(&format!("{what} (nothing moved)"), stall_secs, &screen),
            }
        }
    }

    /// A wait that did not end: what was awaited, the screen, and the board's own log's last lines
    /// (where it was: a Docker connection dropped, a job refused or stuck).
    pub fn timed_out(&self, what: &str, secs: u64, screen: &str) -> ! {
        let log = std::fs::read_to_string(self.workspace.join("perftriage.log")).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        panic!(
            "timed out after {} s waiting for {what}; last seen:\n{screen}\nthe board's perftriage.log, last lines:\n{}",
            super::wait::stretched(std::time::Duration::from_secs(secs)).as_secs(),
            tail.join("\n")
        )
    }

    /// `until` `done` holds and the header says Docker is connected, not only "connecting…": a key
    /// that needs Docker (a build, the fix menu's image probe) pressed before is refused.
    pub fn until_connected(&self, what: &str, secs: u64, done: impl Fn(&str) -> bool) -> String {
        self.until(what, secs, |t| t.contains("Docker: connected") && done(t))
    }

    /// `until`, and then the same screen twice 300 ms apart: nothing is being drawn (for a
    /// snapshot, which a capture mid-redraw would break).
    pub fn settled(&self, what: &str, secs: u64, done: impl Fn(&str) -> bool) -> String {
        let mut last = self.until(what, secs, &done);
        loop {
            // pacing: two captures 300 ms apart are compared (the state waited for is "unchanged")
            std::thread::sleep(std::time::Duration::from_millis(300));
            let now = self.until(what, secs, &done);
            if now == last {
                return now;
            }
            last = now;
        }
    }

    pub fn keys(&self, keys: &str) {
        self.tmux().args(["send-keys", "-t", &self.session, keys]).output().unwrap();
    }
}

impl Drop for Board {
    fn drop(&mut self) {
        self.keys("q");
        let _ = self.tmux().args(["kill-server"]).output();
        // tmux leaves its socket file behind.
        let _ = std::fs::remove_file(&self.socket_path);
    }
}

/// The board row of `short`; a screen without it fails the test.
/// A thread's name and nice value from its `/proc/…/stat`: `pid (comm) state …`, nice being
/// the 17th field after the name.
pub fn name_and_nice(stat: &str) -> Option<(String, i32)> {
    let (name, rest) = stat.split_once(" (")?.1.rsplit_once(") ")?;
    Some((name.to_string(), rest.split_whitespace().nth(16)?.parse().ok()?))
}

pub fn row_of(screen: &str, short: &str) -> String {
    let row = screen.lines().find(|l| l.contains(short));
    row.unwrap_or_else(|| panic!("no row of {short} on the screen:\n{screen}")).to_string()
}

/// Whether the board row of `short` is on the screen and holds `what` (for polling, while the
/// board may still be drawing).
pub fn row_has(screen: &str, short: &str, what: &str) -> bool {
    screen.lines().any(|l| l.contains(short) && l.contains(what))
}
