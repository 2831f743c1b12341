//! Terminal input on its own thread, translated into `Msg`s (keys, wheel, resize).

use crate::app::{Key, KeyCode, Msg};
use crate::startup::ms;
use crossterm::event::{self, Event, KeyEventKind, KeyModifiers, MouseEventKind};
use tokio::sync::mpsc::UnboundedSender;

/// Read input until the board closes; first ask the terminal where its cursor is and tell
/// `shown` once it answers: a terminal answers after it has drawn everything written before.
pub fn spawn(tx: UnboundedSender<Msg>, shown: std::sync::mpsc::Sender<()>) {
    std::thread::spawn(move || {
        // Keys typed meanwhile wait in crossterm's queue; a terminal that never answers holds
        // them 2 s (crossterm's patience).
        let asked = std::time::Instant::now();
        match crossterm::cursor::position() {
            Ok(_) => log::info!(
                "the terminal showed the first frame {:.1} ms after it was drawn",
                ms(asked.elapsed())
            ),
            Err(e) => log::warn!(
                "the terminal did not say where its cursor is ({e}) in {:.0} ms",
                ms(asked.elapsed())
            ),
        }
        let _ = shown.send(());
        while let Ok(ev) = event::read() {
            if let Some(msg) = translate(&ev)
                && tx.send(msg).is_err()
            {
                break;
            }
        }
    });
}

fn translate(ev: &Event) -> Option<Msg> {
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => {
            let code = match k.code {
                event::KeyCode::Char(c) => KeyCode::Char(c),
                event::KeyCode::Enter => KeyCode::Enter,
                event::KeyCode::Esc => KeyCode::Esc,
                event::KeyCode::Backspace => KeyCode::Backspace,
                event::KeyCode::Tab => KeyCode::Tab,
                event::KeyCode::BackTab => KeyCode::BackTab,
                event::KeyCode::Up => KeyCode::Up,
                event::KeyCode::Down => KeyCode::Down,
                event::KeyCode::Left => KeyCode::Left,
                event::KeyCode::Right => KeyCode::Right,
                event::KeyCode::PageUp => KeyCode::PageUp,
                event::KeyCode::PageDown => KeyCode::PageDown,
                event::KeyCode::Home => KeyCode::Home,
                event::KeyCode::End => KeyCode::End,
                event::KeyCode::Delete => KeyCode::Delete,
                _ => return None,
            };
            Some(Msg::Key(Key { code, ctrl: k.modifiers.contains(KeyModifiers::CONTROL) }))
        }
        Event::Mouse(m) => {
            let wheel = match m.kind {
                MouseEventKind::ScrollUp => -1,
                MouseEventKind::ScrollDown => 1,
                MouseEventKind::Down(event::MouseButton::Left) => 0,
                _ => return None,
            };
            Some(Msg::Mouse { wheel, column: m.column, row: m.row })
        }
        Event::Resize(w, h) => Some(Msg::Resize(*w, *h)),
        _ => None,
    }
}
