//! Container output: decoding raw bytes into safe styled lines, redacting secrets, the
//! never-truncated spool file with a sparse line index, and the bounded ring a log view keeps.
//! No terminal, no tokio.
//! Container output must never reach the terminal as control data: only SGR colours survive,
//! as styles; every other control or escape sequence is dropped here.

mod decode;
mod line;
mod redact;
mod ring;
mod spool;
mod style;

pub use decode::{Decoder, Output};
pub use line::{Level, Line, Stream};
pub use redact::{REDACTED, Redactor};
pub use ring::Ring;
pub use spool::{SpoolReader, SpoolWriter};
pub use style::{CellStyle, Color};

/// Characters kept in memory per line; longer lines are capped for display (the spool has them whole).
pub const DISPLAY_CAP: usize = 4096;
/// Default number of decoded lines held in memory per run.
pub const DEFAULT_RING: usize = 50_000;
