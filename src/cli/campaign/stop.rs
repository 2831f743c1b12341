//! `campaign pause|cancel` of a campaign whose driver is alive: the driver is asked, and the
//! journal (which only the driver writes) is watched until it says the driver did it.

use crate::campaigns::{Driver, Event};
use crate::jobs::driver::Request;
use crate::jobs::journal::Journal;
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// How long `pause` waits for the driver's word: it looks for requests every two seconds.
const PATIENCE: Duration = Duration::from_secs(15);

pub fn event(request: Request) -> Event {
    let at = crate::session::now_rfc3339();
    match request {
        Request::Pause => Event::Paused { at },
        Request::Cancel => Event::Cancelled { at },
    }
}

/// Ask the live driver for `request`, then wait (a while) for its journal to say it.
pub fn ask_driver(
    journal: &Journal,
    workspace: &Path,
    request: Request,
    driver: Option<Driver>,
) -> Result<ExitCode> {
    crate::jobs::driver::ask(workspace, &journal.name, request)?;
    let by = driver.map_or_else(|| "its driver".into(), |d| format!("its driver ({d})"));
    let word = if request == Request::Cancel { "cancelled" } else { "paused" };
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        let state = journal.state()?;
        if state.cancelled || (request == Request::Pause && state.paused) {
            crate::cli::out::err(&format!("perftriage: campaign {} {word} by {by}", journal.name));
            return Ok(ExitCode::SUCCESS);
        }
        // pacing: the driver looks for requests every two seconds; the journal is read meanwhile
        std::thread::sleep(Duration::from_millis(100));
    }
    crate::cli::out::err(&format!(
        "perftriage: asked {by} to {}; it has not journalled it in {} s (it does before its next step)",
        if request == Request::Cancel { "cancel" } else { "pause" },
        PATIENCE.as_secs()
    ));
    Ok(ExitCode::SUCCESS)
}
