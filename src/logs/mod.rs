//! Container output: decoding raw bytes into safe styled lines, the never-truncated spool file
//! with a sparse line index, and the bounded in-memory ring. No terminal, no tokio.
//! Container output must never reach the terminal as control data: only SGR colours survive,
//! as styles; every other control or escape sequence is dropped here.

mod decode;
mod line;
mod ring;
mod spool;
mod store;
mod style;

pub use decode::{Decoder, Output};
pub use line::{Level, Line, Stream};
pub use ring::Ring;
pub use spool::{SpoolReader, SpoolWriter};
pub use store::LogStore;
pub use style::{CellStyle, Color};

/// Characters kept in memory per line; longer lines are capped for display (the spool has them whole).
pub const DISPLAY_CAP: usize = 4096;
/// Default number of decoded lines held in memory per run.
pub const DEFAULT_RING: usize = 50_000;
