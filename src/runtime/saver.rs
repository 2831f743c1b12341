//! The triage saver: one thread owns the store and writes books in order, keeping only the newest
//! of any that queue up, and reports each save back as a message.

use crate::app::Msg;
use crate::triage::{TriageBook, TriageStore};
use std::sync::mpsc;
use tokio::sync::mpsc::UnboundedSender;

pub struct Saver {
    queue: mpsc::Sender<TriageBook>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Saver {
    pub fn spawn(store: TriageStore, reply: UnboundedSender<Msg>) -> Saver {
        let (queue, books) = mpsc::channel::<TriageBook>();
        let thread = std::thread::spawn(move || {
            while let Ok(mut book) = books.recv() {
                while let Ok(newer) = books.try_recv() {
                    book = newer;
                }
                let result = store.save(&book).map_err(crate::app::JobError::from);
                let _ = reply.send(Msg::Saved(result));
            }
        });
        Saver { queue, thread: Some(thread) }
    }

    pub fn save(&self, book: TriageBook) {
        let _ = self.queue.send(book);
    }

    /// Finish pending saves before the process exits.
    pub fn finish(mut self) {
        let (dead, _) = mpsc::channel();
        drop(std::mem::replace(&mut self.queue, dead));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
