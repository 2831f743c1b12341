//! Lines completed but not handed out yet, kept only as far as a ring of `keep` lines would hold
//! them: lines that arrive in bulk (a 1 GB file opened) are spooled and classified, but only the
//! newest are ever decoded into `Line`s.

use super::{Line, Stream, block};
use std::collections::VecDeque;
use std::sync::Arc;

/// What a log view gets: the newest lines, after `skipped` older ones it will never hold.
#[derive(Debug, Default, PartialEq)]
pub struct Batch {
    pub skipped: usize,
    pub lines: Vec<Line>,
}

#[derive(Debug)]
enum Item {
    Decoded(Vec<Line>),
    /// Whole lines, raw, decoded when taken.
    Raw {
        stream: Stream,
        bytes: Arc<[u8]>,
        lines: usize,
    },
}

impl Item {
    fn lines(&self) -> usize {
        match self {
            Item::Decoded(lines) => lines.len(),
            Item::Raw { lines, .. } => *lines,
        }
    }

    /// Its lines after the first `skip`.
    fn into_lines(self, skip: usize) -> Vec<Line> {
        match self {
            Item::Decoded(mut lines) => lines.split_off(skip.min(lines.len())),
            Item::Raw { stream, bytes, .. } => block::decode_after(&bytes, skip, stream),
        }
    }
}

#[derive(Debug)]
pub struct Backlog {
    items: VecDeque<Item>,
    lines: usize,
    skipped: usize,
    keep: usize,
}

impl Backlog {
    pub fn new(keep: usize) -> Backlog {
        Backlog { items: VecDeque::new(), lines: 0, skipped: 0, keep: keep.max(1) }
    }

    pub fn push_decoded(&mut self, lines: Vec<Line>) {
        if !lines.is_empty() {
            self.push(Item::Decoded(lines));
        }
    }

    /// `bytes`: whole raw lines, `lines` of them, shared with the spool writer (never copied).
    /// Their decoded lines are not redacted here.
    pub fn push_raw(&mut self, stream: Stream, bytes: Arc<[u8]>, lines: usize) {
        if lines > 0 {
            self.push(Item::Raw { stream, bytes, lines });
        }
    }

    fn push(&mut self, item: Item) {
        self.lines += item.lines();
        self.items.push_back(item);
        // Whole items the newest `keep` lines no longer reach are dropped now.
        while let Some(front) = self.items.front()
            && self.lines - front.lines() >= self.keep
        {
            self.lines -= front.lines();
            self.skipped += front.lines();
            self.items.pop_front();
        }
    }

    /// The newest `keep` lines, decoded, and how many older ones were dropped; empties the backlog.
    /// Lines are skipped only when `keep` lines follow them.
    pub fn take(&mut self) -> Batch {
        self.take_newest(self.keep)
    }

    /// `take`, decoding only the newest `n` (at most `keep`): while lines pour in, a view needs a
    /// screenful now and its whole ring only when they stop.
    pub fn take_newest(&mut self, n: usize) -> Batch {
        let mut excess = self.lines.saturating_sub(n.clamp(1, self.keep));
        let mut batch =
            Batch { skipped: self.skipped + excess, lines: Vec::with_capacity(self.lines - excess) };
        for item in self.items.drain(..) {
            let skip = excess.min(item.lines());
            excess -= skip;
            batch.lines.extend(item.into_lines(skip));
        }
        (self.lines, self.skipped) = (0, 0);
        batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Line {
        Line { text: text.into(), ..Line::default() }
    }

    fn texts(batch: &Batch) -> Vec<&str> {
        batch.lines.iter().map(Line::text).collect()
    }

    #[test]
    fn only_the_newest_lines_are_decoded_and_the_rest_counted() {
        let mut backlog = Backlog::new(3);
        backlog.push_decoded(vec![line("a"), line("b")]);
        backlog.push_raw(Stream::Stdout, "c\n\x1b[31md\x1b[0m\n".as_bytes().into(), 2);
        backlog.push_raw(Stream::Stderr, "e\n".as_bytes().into(), 1);
        let batch = backlog.take();
        assert_eq!((batch.skipped, texts(&batch)), (2, vec!["c", "d", "e"]));
        assert_eq!(batch.lines[2].stream, Stream::Stderr);
        assert!(!batch.lines[1].styles.is_empty(), "decoded as the stream decoder does: {batch:?}");
        assert_eq!(backlog.take(), Batch::default());
    }

    #[test]
    fn a_raw_item_is_cut_inside_when_the_newest_lines_start_there() {
        let mut backlog = Backlog::new(2);
        backlog.push_raw(Stream::Stdout, "1\n2\n3\n".as_bytes().into(), 3);
        backlog.push_decoded(vec![line("4")]);
        let batch = backlog.take();
        assert_eq!((batch.skipped, texts(&batch)), (2, vec!["3", "4"]));
    }

    #[test]
    fn a_screenful_is_taken_while_lines_pour_in() {
        let mut backlog = Backlog::new(4);
        backlog.push_raw(Stream::Stdout, "1\n2\n3\n4\n5\n".as_bytes().into(), 5);
        let batch = backlog.take_newest(2);
        assert_eq!((batch.skipped, texts(&batch)), (3, vec!["4", "5"]));
    }

    #[test]
    fn a_screenful_may_start_items_after_the_first() {
        let mut backlog = Backlog::new(10);
        backlog.push_raw(Stream::Stdout, "1\n2\n3\n".as_bytes().into(), 3);
        backlog.push_raw(Stream::Stdout, "4\n5\n6\n".as_bytes().into(), 3);
        backlog.push_decoded(vec![line("7"), line("8")]);
        let batch = backlog.take_newest(2);
        assert_eq!((batch.skipped, texts(&batch)), (6, vec!["7", "8"]));
    }

    #[test]
    fn fewer_lines_than_kept_are_all_handed_out() {
        let mut backlog = Backlog::new(10);
        backlog.push_raw(Stream::Stdout, "x\ny\n".as_bytes().into(), 2);
        let batch = backlog.take();
        assert_eq!((batch.skipped, texts(&batch)), (0, vec!["x", "y"]));
    }
}
