//! The only place with tokio, terminal I/O and background threads: loads the session, runs the
//! event loop for the TUI, and carries out effects.

mod clock;
mod context;
mod events;
pub mod fix;
pub mod fix_cli;
pub mod gpu;
pub mod headless;
pub mod inspect;
pub mod logs;
pub mod run;
pub mod run_cli;
pub mod runs;
mod saver;
mod terminal;
mod tui;

pub use clock::{now_compact, now_rfc3339};
pub use context::{Context, Options, Workspace};
pub use tui::run_tui;
