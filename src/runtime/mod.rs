//! The board's event loop: terminal, input, signals, the saver thread; effects are handed to the
//! job service. Nothing else lives here.

mod background;
mod effects;
mod events;
pub mod own_log;
mod saver;
mod terminal;
mod tui;

pub use background::{lower_this_thread, lowly_rayon};
pub use tui::run_tui;
