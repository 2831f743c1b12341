//! `campaign pause|cancel [--run]` of a campaign whose driver is alive: the driver is asked, and
//! the journal (which only the driver writes) is watched until it says the driver did it.

use crate::campaigns::Driver;
use crate::ids::RunId;
use crate::jobs::driver::Request;
use crate::jobs::journal::Journal;
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// How long `pause` waits for the driver's word: it looks for requests every two seconds.
const PATIENCE: Duration = Duration::from_secs(15);

/// Ask the live driver to pause (or `cancel`), then wait (a while) for its journal to say it.
pub fn ask_driver(
    journal: &Journal,
    workspace: &Path,
    cancel: bool,
    driver: Option<Driver>,
) -> Result<ExitCode> {
    let request = if cancel { Request::Cancel } else { Request::Pause };
    crate::jobs::driver::ask(workspace, &journal.name, &request)?;
    let by = driver.map_or_else(|| "its driver".into(), |d| format!("its driver ({d})"));
    let word = if cancel { "cancelled" } else { "paused" };
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        let state = journal.state()?;
        if state.cancelled || (!cancel && state.paused) {
            crate::cli::out::err(&format!("perftriage: campaign {} {word} by {by}", journal.name));
            return Ok(ExitCode::SUCCESS);
        }
        // pacing: the driver looks for requests every two seconds; the journal is read meanwhile
        std::thread::sleep(Duration::from_millis(100));
    }
    crate::cli::out::err(&format!(
        "perftriage: asked {by} to {}; it has not journalled it in {} s (it does before its next step)",
        if cancel { "cancel" } else { "pause" },
        PATIENCE.as_secs()
    ));
    Ok(ExitCode::SUCCESS)
}

/// How long `cancel --run` waits for the run's end: its container is stopped and removed first.
const RUN_PATIENCE: Duration = Duration::from_secs(60);

/// Ask the live driver to stop `run_id`, then wait (a while) for the journal to say it ended.
pub fn ask_to_stop_run(
    journal: &Journal,
    workspace: &Path,
    run_id: &RunId,
    driver: Option<Driver>,
) -> Result<ExitCode> {
    crate::jobs::driver::ask(workspace, &journal.name, &Request::CancelRun(run_id.clone()))?;
    let by = driver.map_or_else(|| "its driver".into(), |d| format!("its driver ({d})"));
    let deadline = Instant::now() + RUN_PATIENCE;
    while Instant::now() < deadline {
        if !journal.state()?.runs_in_flight().contains(run_id) {
            crate::cli::out::err(&format!("perftriage: run {run_id} stopped by {by}; its cell is left"));
            return Ok(ExitCode::SUCCESS);
        }
        // pacing: the driver looks for requests every two seconds, then stops the run's container
        std::thread::sleep(Duration::from_millis(100));
    }
    let secs = RUN_PATIENCE.as_secs();
    crate::cli::out::err(&format!(
        "perftriage: asked {by} to stop run {run_id}; it has not ended in {secs} s"
    ));
    Ok(ExitCode::SUCCESS)
}
