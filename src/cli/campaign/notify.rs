//! `--notify CMD`: when a campaign's driver ends (the campaign ended, was paused or cancelled),
//! `sh -c CMD` runs with the campaign's summary JSON (as `campaign status --json` gives it) on its
//! standard input — a mail, a chat message, a pager, whatever the operator has.

use crate::jobs::journal::Journal;
use crate::session::Context;
use std::io::Write;
use std::process::{Command, Stdio};

/// Run `command` with the summary on stdin; a command that cannot run or fails is said, never
/// fatal (the campaign itself is over).
pub(super) fn notify(ctx: &Context, journal: &Journal, command: &str) {
    let summary =
        journal.state().map_err(anyhow::Error::from).and_then(|s| super::status::summary_json(ctx, &s));
    let line = match summary.and_then(|s| Ok(crate::cli::out::json(&s)?)) {
        Ok(line) => line,
        Err(why) => return crate::cli::out::err(&format!("perftriage: --notify not run: {why}")),
    };
    match run(command, &line) {
        Ok(status) if status.success() => {}
        Ok(status) => crate::cli::out::err(&format!("perftriage: --notify `{command}` exited {status}")),
        Err(why) => crate::cli::out::err(&format!("perftriage: --notify `{command}` did not run: {why}")),
    }
}

fn run(command: &str, summary: &str) -> std::io::Result<std::process::ExitStatus> {
    let mut child = Command::new("sh").arg("-c").arg(command).stdin(Stdio::piped()).spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its input (a bell, a beep) closes the pipe: not an error.
        let _ = writeln!(stdin, "{summary}");
    }
    child.wait()
}
