//! Container output: decoding raw bytes into safe styled lines, redacting secrets, the
//! never-truncated spool file with a sparse line index, and the bounded ring a log view keeps.
//! No terminal, no tokio.
//! Container output must never reach the terminal as control data: only SGR colours survive,
//! as styles; every other control or escape sequence is dropped here.

mod backlog;
mod block;
mod decode;
mod display;
mod halves;
mod line;
mod pieces;
mod redact;
mod ring;
mod safe_writer;
mod search;
mod spool;
mod spool_index;
mod style;

pub use backlog::{Backlog, Batch};
pub use block::{decode_after, decoded_block};
pub use decode::{Decoder, Output};
pub use display::{display_text, is_blank};
pub use halves::{halves, in_two};
pub use line::{Level, Line, Stream, joined};
pub use pieces::{LINE_CAP, PiecesError, ReadStats, read_blocks, read_pieces, text_of};
pub use redact::{REDACTED, Redactor};
pub use ring::Ring;
pub use safe_writer::SafeWriter;
pub use search::{Hit, SpoolSearch};
pub use spool::{SpoolReader, SpoolWriter};
pub use style::{CellStyle, Color};

/// Characters kept in memory per line; longer lines are capped for display (the spool has them whole).
pub const DISPLAY_CAP: usize = 4096;
/// Lines a view is sent at a time while a log pours in: more than any screen shows.
pub const SCREENFUL: usize = 1_000;
/// Default number of decoded lines held in memory per run.
pub const DEFAULT_RING: usize = 50_000;

/// A chatty vLLM server log of `lines` lines for tests: colours, progress bars rewritten by a
/// carriage return, access lines, the shapes `perftriage synth-log` writes.
#[cfg(test)]
pub(crate) fn chatty_log(lines: usize) -> String {
    const SHAPES: [&str; 6] = [
        "INFO 07-24 13:15:43 [loader.py:458] Loading weights took 3.21 seconds",
        "\x1b[1;36m(APIServer pid=996)\x1b[0;0m INFO 07-24 13:15:44 [api_server.py:1818] Starting vLLM API server",
        "INFO:     127.0.0.1:44458 - \"POST /v1/completions HTTP/1.1\" 200 OK",
        "Capturing CUDA graph shapes:  52%|\u{2588}\u{2588}\u{2588}\u{2588}\u{2588}\u{258f}    | 35/67 [00:42<00:37,  1.17s/it]",
        "WARNING 07-24 13:15:45 [config.py:1234] Possibly too large swap space. 4.00 GiB out of the 7.70 GiB",
        "  0%|          | 0/100 [00:00<?, ?it/s]\r 50%|\u{2588}\u{2588}\u{2588}\u{2588}\u{2588}     | 50/100",
    ];
    (0..lines).map(|i| SHAPES[i % SHAPES.len()]).collect::<Vec<_>>().join("\n") + "\n"
}
