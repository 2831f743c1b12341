//! The bounded in-memory window of decoded lines: the newest `capacity` lines of a log, with
//! absolute line numbers so older lines can be fetched from the spool.

use super::Line;
use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct Ring {
    lines: VecDeque<Line>,
    capacity: usize,
    /// Absolute number (0-based) of `lines[0]`.
    first: usize,
}

impl Ring {
    pub fn new(capacity: usize) -> Ring {
        Ring { lines: VecDeque::with_capacity(capacity.min(4096)), capacity: capacity.max(1), first: 0 }
    }

    pub fn push(&mut self, line: Line) {
        if self.lines.len() == self.capacity {
            self.lines.pop_front();
            self.first += 1;
        }
        self.lines.push_back(line);
    }

    /// Count `n` lines that were never pushed because newer lines fill the ring: it empties, and
    /// numbering goes on after them.
    pub fn skip(&mut self, n: usize) {
        if n > 0 {
            self.first = self.total() + n;
            self.lines.clear();
        }
    }

    /// Lines ever pushed.
    pub fn total(&self) -> usize {
        self.first + self.lines.len()
    }

    /// Absolute number of the oldest line still in memory.
    pub fn first(&self) -> usize {
        self.first
    }

    pub fn get(&self, absolute: usize) -> Option<&Line> {
        self.lines.get(absolute.checked_sub(self.first)?)
    }

    pub fn get_mut(&mut self, absolute: usize) -> Option<&mut Line> {
        self.lines.get_mut(absolute.checked_sub(self.first)?)
    }

    pub fn iter_from(&self, absolute: usize) -> impl Iterator<Item = (usize, &Line)> {
        let skip = absolute.saturating_sub(self.first);
        self.lines.iter().enumerate().skip(skip).map(move |(i, l)| (self.first + i, l))
    }
}
