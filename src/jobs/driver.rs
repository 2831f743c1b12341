//! A campaign's one driver: `campaigns/<name>/driver.lock`, an OS lock the process that runs the
//! campaign holds for its whole life (the kernel lets go when it dies, however it dies), with that
//! process's pid, host and start written in it. Other processes read it and try the lock to learn
//! whether the driver is alive; while it is, they never write the journal but ask the driver
//! (`campaigns/<name>/requests/`), which journals what was asked itself.

use crate::campaigns::{Driver, Liveness};
use crate::ids::{CampaignName, RunId};
use std::fs::{File, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

const LOCK: &str = "driver.lock";
const REQUESTS: &str = "requests";
/// Held for the moment a process checks the workspace's running campaigns and takes its own.
const CLAIMING: &str = ".claiming.lock";
/// A record or a request is a few dozen bytes; a larger file is not one.
const SMALL: u64 = 4096;

#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("campaign `{name}` is driven by another perftriage ({}); watch it with `campaign status {name}`", held_by(.driver))]
    Held { name: CampaignName, driver: Option<Driver> },
    #[error("cannot use {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{} is not a regular file (a symlink, a FIFO or a device?): perftriage will not use it", path.display())]
    NotRegular { path: PathBuf },
    #[error("{} is not a driver's record ({why})", path.display())]
    Record { path: PathBuf, why: String },
    #[error("{} is not a request to a campaign's driver ({why}); it is removed", path.display())]
    Request { path: PathBuf, why: String },
}

fn held_by(driver: &Option<Driver>) -> String {
    driver.as_ref().map_or_else(|| "its record is not written yet".into(), Driver::to_string)
}

/// What another process asks a running campaign's driver to do.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    Pause,
    Cancel,
    /// Stop this run of the campaign and leave its cell for a look.
    CancelRun(RunId),
}

/// `<workspace>/campaigns/<name>`.
pub fn folder(workspace: &Path, name: &CampaignName) -> PathBuf {
    workspace.join("campaigns").join(name.as_str())
}

/// This process drives a campaign while this lives.
#[derive(Debug)]
pub struct DriverLock {
    _file: File,
    pub driver: Driver,
}

impl DriverLock {
    /// Take `name`'s lock for this process's life and write who holds it; `Held` (with the
    /// holder's record) when a live process has it.
    pub fn take(workspace: &Path, name: &CampaignName) -> Result<DriverLock, DriverError> {
        let path = folder(workspace, name).join(LOCK);
        let io = |source| DriverError::Io { path: path.clone(), source };
        crate::files::private_dir(&folder(workspace, name)).map_err(io)?;
        let mut file = open_regular(&path, true)?;
        if !lock_patiently(&file).map_err(io)? {
            let driver = read_record(&mut file, &path).ok();
            return Err(DriverError::Held { name: name.clone(), driver });
        }
        let driver =
            Driver { pid: std::process::id(), host: host_name(), since: crate::session::now_rfc3339() };
        let record = serde_json::to_vec(&driver).unwrap_or_default();
        file.set_len(0).and_then(|()| file.write_all(&record)).and_then(|()| file.sync_data()).map_err(io)?;
        Ok(DriverLock { _file: file, driver })
    }
}

/// The lock, tried for a moment: a reader holds it shared for microseconds to see whether it is free.
fn lock_patiently(file: &File) -> std::io::Result<bool> {
    for _ in 0..40 {
        match file.try_lock() {
            Ok(()) => return Ok(true),
            Err(TryLockError::WouldBlock) => {
                // pacing: a reader's shared hold ends within microseconds; a driver's never does
                std::thread::sleep(std::time::Duration::from_millis(25));
            }
            Err(TryLockError::Error(e)) => return Err(e),
        }
    }
    Ok(false)
}

/// Whether `name`'s driver is alive: its record, and the lock tried without waiting.
pub fn liveness(workspace: &Path, name: &CampaignName) -> Liveness {
    let path = folder(workspace, name).join(LOCK);
    let Ok(mut file) = open_regular(&path, false) else { return Liveness::Unknown };
    let Ok(driver) = read_record(&mut file, &path) else { return Liveness::Unknown };
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            Liveness::Gone(driver)
        }
        Err(TryLockError::WouldBlock) => Liveness::Driving(driver),
        Err(TryLockError::Error(_)) => Liveness::Unknown,
    }
}

fn read_record(file: &mut File, path: &Path) -> Result<Driver, DriverError> {
    let bad = |why: String| DriverError::Record { path: path.into(), why };
    let text = read_small(file, path)?;
    serde_json::from_str(&text).map_err(|e| bad(e.to_string()))
}

/// A file of at most `SMALL` bytes, from its start, as text.
fn read_small(file: &mut File, path: &Path) -> Result<String, DriverError> {
    let io = |source| DriverError::Io { path: path.into(), source };
    file.rewind().map_err(io)?;
    let mut text = String::new();
    file.take(SMALL + 1).read_to_string(&mut text).map_err(io)?;
    if text.len() as u64 > SMALL {
        return Err(DriverError::Record { path: path.into(), why: format!("over {SMALL} bytes") });
    }
    Ok(text)
}

fn open_regular(path: &Path, create: bool) -> Result<File, DriverError> {
    crate::files::open_regular(path, create).map_err(|e| match e {
        crate::files::RegularError::NotRegular { path } => DriverError::NotRegular { path },
        crate::files::RegularError::Io { path, source } => DriverError::Io { path, source },
        crate::files::RegularError::TooBig { path, max } => {
            DriverError::Record { path, why: format!("over {max} bytes") }
        }
    })
}

/// This machine's name, as the kernel has it.
fn host_name() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    match name.trim() {
        "" => "this host".into(),
        name => crate::logs::display_text(name),
    }
}

/// Ask `name`'s running driver for `request`: a file of its own in `campaigns/<name>/requests/`,
/// written whole (so two asks at once are both read).
pub fn ask(workspace: &Path, name: &CampaignName, request: &Request) -> Result<(), DriverError> {
    let dir = folder(workspace, name).join(REQUESTS);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let path = dir.join(format!("{nanos:024}-{}.json", std::process::id()));
    let text = serde_json::to_vec(request).unwrap_or_default();
    crate::files::write_atomic(&path, &text).map_err(|source| DriverError::Io { path, source })
}

/// The driver's side: every request since it last looked, oldest first, each taken away; one
/// that is not a request (or not a regular file) is said and removed.
pub fn take_requests(workspace: &Path, name: &CampaignName) -> Vec<Result<Request, DriverError>> {
    let dir = folder(workspace, name).join(REQUESTS);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| !is_temp(p)).collect();
    paths.sort();
    paths.into_iter().map(|path| taken(&path)).collect()
}

/// `write_atomic`'s temporary file, not yet a request.
fn is_temp(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "tmp")
}

fn taken(path: &Path) -> Result<Request, DriverError> {
    let read = open_regular(path, false).and_then(|mut file| read_small(&mut file, path));
    let _ = std::fs::remove_file(path);
    let bad = |e: serde_json::Error| DriverError::Request { path: path.into(), why: e.to_string() };
    serde_json::from_str(&read?).map_err(bad)
}

/// Held while a process checks which campaigns of the workspace run and takes its own, so two
/// starting at once see each other.
pub struct Claiming {
    _file: File,
}

impl Claiming {
    pub fn take(workspace: &Path) -> Result<Claiming, DriverError> {
        let dir = workspace.join("campaigns");
        let path = dir.join(CLAIMING);
        let io = |source| DriverError::Io { path: path.clone(), source };
        crate::files::private_dir(&dir).map_err(io)?;
        let file = open_regular(&path, true)?;
        file.lock().map_err(io)?;
        Ok(Claiming { _file: file })
    }
}
