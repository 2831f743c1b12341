//! The tool's own log records (Docker connects and drops, run phases, cleanups, lock takeover,
//! files moved aside) through the `log` facade into tui-logger: the board's debug pane and
//! `<workspace>/perftriage.log`, rotated at start when it passes 5 MB (one old copy is kept).
//! Container output keeps its own store (the spools).

use std::path::Path;

const FILE: &str = "perftriage.log";
const ROTATE_AT: u64 = 5 << 20;
/// Everything at debug and up, but the Docker client's and its HTTP stack's at info and up.
const QUIET_CLIENTS: &str = "debug,bollard=info,hyper=info,hyper_util=info,h2=info";

/// Why the log file cannot be written (the pane still works).
#[derive(Debug, thiserror::Error)]
pub enum OwnLogError {
    #[error("cannot write {}: {source}", path.display())]
    Unwritable { path: std::path::PathBuf, source: std::io::Error },
    #[error("{} is not UTF-8", .0.display())]
    NotUtf8(std::path::PathBuf),
}

/// Start collecting records.
pub fn start(workspace: &Path) -> Result<(), OwnLogError> {
    let _ = tui_logger::init_logger(log::LevelFilter::Debug);
    tui_logger::set_default_level(log::LevelFilter::Debug);
    // The Docker client's debug records are each request and whole answers, every two seconds of
    // the connection's watch: they buried the tool's own records.
    tui_logger::set_env_filter_from_string(QUIET_CLIENTS);
    let path = workspace.join(FILE);
    rotate(&path);
    // tui-logger opens the file itself and panics if it cannot: make sure it can, privately.
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)
        .map_err(|source| OwnLogError::Unwritable { path: path.clone(), source })?;
    let name = path.to_str().ok_or_else(|| OwnLogError::NotUtf8(path.clone()))?;
    tui_logger::set_log_file(tui_logger::TuiLoggerFile::new(name).output_file(false).output_line(false));
    log::info!("perftriage {} started; workspace {}", env!("CARGO_PKG_VERSION"), workspace.display());
    Ok(())
}

fn rotate(path: &Path) {
    if std::fs::metadata(path).is_ok_and(|m| m.len() > ROTATE_AT) {
        let _ = std::fs::rename(path, path.with_extension("log.1"));
    }
}

/// Hand collected records to the pane (tui-logger keeps new records aside until asked).
pub fn collect() {
    tui_logger::move_events();
}

use std::os::unix::fs::OpenOptionsExt;
