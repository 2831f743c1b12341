//! A campaign run's live log: the spool its driver writes for one pane, read as it grows and fed
//! through the board's own line path (decoded, redacted, classified again), until the campaign's
//! journal says the run ended. It only reads the driver's files.

use super::journal::Journal;
use super::lines::LinePath;
use crate::app::{LogId, LogKey};
use crate::ids::RunId;
use crate::logs::{Batch, Stream};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often a quiet spool is looked at again.
const LOOK_AGAIN: Duration = Duration::from_millis(300);
/// How often lines are forwarded while they come.
const SEND_EVERY: Duration = Duration::from_millis(100);
/// Bytes read at a time.
const CHUNK: usize = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    #[error("{:?} is not a campaign run's log", .0)]
    NotACampaignLog(LogId),
    #[error("run {run_id} ended with no log in {}", dir.display())]
    NoSpool { run_id: RunId, dir: PathBuf },
    #[error("cannot follow {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
}

/// What to follow: the run's folder of logs (`logs/<short>/<variant>/`), its key, its journal.
pub struct Follow {
    pub dir: PathBuf,
    pub key: LogKey,
    pub journal: Journal,
}

impl Follow {
    /// Feed the run's spool into `lines` as it grows, `send` each batch (the last with `true`).
    pub fn run(&self, lines: &mut LinePath, send: impl Fn(Batch, bool)) -> Result<(), FollowError> {
        let LogId::Campaign { run_id, pane } = &self.key.log else {
            return Err(FollowError::NotACampaignLog(self.key.log.clone()));
        };
        let prefix = format!("{run_id}-{}", pane.name());
        let (mut source, mut sent) = (None, Instant::now());
        loop {
            let running = self.journal.state().is_ok_and(|s| s.runs_in_flight().contains(run_id));
            if source.is_none() {
                source = newest_spool(&self.dir, &prefix).map(|p| Source::open(&p)).transpose()?;
            }
            let fed = match source.as_mut() {
                Some(source) => source.feed(lines)?,
                None if running => 0,
                None => return Err(FollowError::NoSpool { run_id: run_id.clone(), dir: self.dir.clone() }),
            };
            if sent.elapsed() >= SEND_EVERY {
                send(lines.take_newest(crate::logs::SCREENFUL), false);
                sent = Instant::now();
            }
            if fed == 0 && !running {
                break;
            }
            if fed == 0 {
                // pacing: a quiet spool is looked at again; the run writes it at its own pace
                std::thread::sleep(LOOK_AGAIN);
            }
        }
        let path = lines.path().to_path_buf();
        let last = lines.finish_batch().map_err(|source| FollowError::Read { path, source })?;
        send(last, true);
        Ok(())
    }
}

/// The newest file of `dir` named `<prefix>…​.log` (a resumed run spools anew).
fn newest_spool(dir: &Path, prefix: &str) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?.flatten();
    let spools = entries.filter(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.starts_with(prefix) && name.ends_with(".log") && e.file_type().is_ok_and(|t| t.is_file())
    });
    let dated = spools.filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())));
    dated.max().map(|(_, path)| path)
}

/// The spool being read, and where.
struct Source {
    path: PathBuf,
    file: std::fs::File,
}

impl Source {
    fn open(path: &Path) -> Result<Source, FollowError> {
        let file =
            std::fs::File::open(path).map_err(|source| FollowError::Read { path: path.into(), source })?;
        Ok(Source { path: path.into(), file })
    }

    /// What the spool gained since the last read, pushed into `lines`; how many bytes.
    fn feed(&mut self, lines: &mut LinePath) -> Result<usize, FollowError> {
        let mut buf = vec![0; CHUNK];
        let mut fed = 0;
        loop {
            let read = |source| FollowError::Read { path: self.path.clone(), source };
            let n = self.file.read(&mut buf).map_err(read)?;
            if n == 0 {
                return Ok(fed);
            }
            lines.push(Stream::Stdout, &buf[..n]).map_err(read)?;
            fed += n;
        }
    }
}
