//! Entering and leaving the full-screen terminal; the panic hook restores it before reporting.

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{BufWriter, Stdout, stdout};

/// The board's terminal. Its frames go through a buffer of their own: stdout's is 1 KiB, so a
/// 160x48 frame of the 10k set left it as a dozen writes the terminal took one by one; ratatui
/// flushes once per frame.
pub type Term = Terminal<CrosstermBackend<BufWriter<Stdout>>>;

/// Larger than a full frame of a big terminal with its colours.
const FRAME_BUFFER: usize = 256 * 1024;

pub fn enter() -> std::io::Result<Term> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        leave();
        hook(info);
    }));
    enable_raw_mode()?;
    LEFT.store(false, std::sync::atomic::Ordering::SeqCst);
    execute!(stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    Terminal::new(CrosstermBackend::new(BufWriter::with_capacity(FRAME_BUFFER, stdout())))
}

/// Set once the terminal is given back (cleared when it is taken): the panic hook and the way
/// out restore it once.
static LEFT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Give the terminal back: mouse, alternate screen, cursor (shown before and after leaving the
/// alternate screen, whatever the terminal keeps per screen), raw mode. Only the first call acts.
pub fn leave() {
    if LEFT.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    let _ = execute!(
        stdout(),
        DisableMouseCapture,
        crossterm::cursor::Show,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

/// Take the mouse, or leave it to the terminal (for selecting text).
pub fn mouse_capture(on: bool) {
    let _ = if on { execute!(stdout(), EnableMouseCapture) } else { execute!(stdout(), DisableMouseCapture) };
}

/// Put `text` on the clipboard through the terminal (OSC 52): it works over SSH and in tmux with
/// `set-clipboard on`. Control characters are dropped first, so the text cannot end the sequence.
pub fn copy(text: &str) {
    use base64::Engine as _;
    use std::io::Write;
    let clean: String = text.chars().filter(|c| !c.is_control()).collect();
    let encoded = base64::engine::general_purpose::STANDARD.encode(clean);
    let mut out = stdout();
    let _ = write!(out, "\x1b]52;c;{encoded}\x07");
    let _ = out.flush();
}

/// Ring the terminal's bell and ask for a desktop notification with `text` (OSC 9: terminals that
/// do not take it ignore it). Only printable text goes out, the escape's own terminator included.
pub fn notify(text: &str) {
    use std::io::Write;
    let clean = crate::logs::display_text(text).replace(|c: char| c.is_control(), " ");
    let mut out = stdout();
    let _ = write!(out, "\x07\x1b]9;{clean}\x07");
    let _ = out.flush();
}
