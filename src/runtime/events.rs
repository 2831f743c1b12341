//! Terminal input on its own thread, translated into `Msg`s (keys, wheel, resize).

use crate::app::{Key, KeyCode, Msg};
use crossterm::event::{self, Event, KeyEventKind, KeyModifiers, MouseEventKind};
use tokio::sync::mpsc::UnboundedSender;

pub fn spawn(tx: UnboundedSender<Msg>) {
    std::thread::spawn(move || {
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
