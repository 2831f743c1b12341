//! What a spool knows of its lines: where every 64th starts, which lines' text is not their bytes
//! (a byte the decoder changes, or invalid UTF-8), and of those, which have their decoded text in
//! the spool's text file, a line each in order — so a search scans bytes and never decodes.

/// Lines 0, 64, 128, … start at `checkpoints`.
pub(super) const STRIDE: usize = 64;

/// The lines of a stream of bytes: checkpoints, how many ended, where the next starts.
#[derive(Debug, Default, Clone)]
pub(super) struct Lines {
    pub checkpoints: Vec<u64>,
    pub lines: usize,
    pub bytes: u64,
    pub last_line_start: u64,
}

impl Lines {
    /// A line ended at byte `at` of the stream (its newline).
    pub fn ended_at(&mut self, at: u64) {
        if self.lines.is_multiple_of(STRIDE) {
            self.checkpoints.push(self.last_line_start);
        }
        self.lines += 1;
        self.last_line_start = at + 1;
    }

    /// The checkpoint of `line` (the line of its group of `STRIDE`): (its line, where it starts).
    pub fn checkpoint(&self, line: usize) -> Option<(usize, u64)> {
        let group = line / STRIDE;
        self.checkpoints.get(group).map(|&at| (group * STRIDE, at))
    }

    /// The last checkpoint at or before byte `offset`: (its line, where it starts).
    pub fn checkpoint_before(&self, offset: u64) -> (usize, u64) {
        let k = self.checkpoints.partition_point(|&c| c <= offset).saturating_sub(1);
        self.checkpoints.get(k).map_or((0, 0), |&c| (k * STRIDE, c))
    }

    /// The last checkpoint after `from` and at or before `end`: (its line, where it starts).
    pub fn checkpoint_in(&self, from: u64, end: u64) -> Option<(usize, u64)> {
        let k = self.checkpoints.partition_point(|&c| c <= end).checked_sub(1)?;
        (self.checkpoints[k] > from).then(|| (k * STRIDE, self.checkpoints[k]))
    }
}

/// A bit a line.
#[derive(Debug, Default, Clone)]
pub struct LineBits(Vec<u64>);

impl LineBits {
    pub fn set(&mut self, line: usize) {
        let word = line / 64;
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << (line % 64);
    }

    pub fn get(&self, line: usize) -> bool {
        self.0.get(line / 64).is_some_and(|w| w & (1 << (line % 64)) != 0)
    }

    /// The set lines of `lines` that `except` does not have, in order.
    pub fn ones_in<'a>(
        &'a self,
        lines: std::ops::Range<usize>,
        except: &'a LineBits,
    ) -> impl Iterator<Item = usize> + 'a {
        let words = lines.start / 64..lines.end.div_ceil(64).min(self.0.len());
        let set_bits = words.flat_map(move |w| {
            let mut bits = self.0[w] & !except.0.get(w).copied().unwrap_or(0);
            std::iter::from_fn(move || {
                let bit = (bits != 0).then(|| bits.trailing_zeros() as usize)?;
                bits &= bits - 1;
                Some(w * 64 + bit)
            })
        });
        set_bits.filter(move |n| lines.contains(n))
    }
}

/// Finds the line of the k-th set bit, for k going up (each call at or after the last).
pub struct Select<'a> {
    bits: &'a LineBits,
    /// Word `word` holds set bits number `before..`.
    word: usize,
    before: usize,
}

impl<'a> Select<'a> {
    pub fn new(bits: &'a LineBits) -> Select<'a> {
        Select { bits, word: 0, before: 0 }
    }

    pub fn line_of(&mut self, k: usize) -> Option<usize> {
        loop {
            let word = *self.bits.0.get(self.word)?;
            let here = word.count_ones() as usize;
            if k < self.before + here {
                let mut bits = word;
                for _ in 0..k - self.before {
                    bits &= bits - 1;
                }
                return Some(self.word * 64 + bits.trailing_zeros() as usize);
            }
            (self.word, self.before) = (self.word + 1, self.before + here);
        }
    }
}

/// The index as the writer keeps it.
#[derive(Debug, Default)]
pub(super) struct Index {
    pub spool: Lines,
    /// Lines whose text is not their bytes.
    pub changed: LineBits,
    /// Changed lines whose decoded text is a line of the text file.
    pub texted: LineBits,
    pub text: Lines,
    /// The line being written began in an earlier append (a line longer than an append).
    pub continuing: bool,
}

impl Index {
    /// Index `raw`, the stream's next bytes: every line it ends, and each whole line of it whose
    /// text is not its bytes handed to `on_changed` (its range in `raw`) to mark; a changed line
    /// that goes on past `raw` is marked now.
    pub fn append<E>(
        &mut self,
        raw: &[u8],
        mut on_changed: impl FnMut(&mut Index, std::ops::Range<usize>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut changed = super::block::changed_or_invalid(raw).into_iter().peekable();
        let (base, mut line_start) = (self.spool.bytes, 0);
        for nl in memchr::memchr_iter(b'\n', raw) {
            if changed.next_if(|&start| start <= nl).is_some() {
                on_changed(self, line_start..nl)?;
            }
            self.spool.ended_at(base + nl as u64);
            (self.continuing, line_start) = (false, nl + 1);
        }
        if changed.peek().is_some() {
            self.changed.set(self.spool.lines);
        }
        self.continuing |= line_start < raw.len();
        self.spool.bytes += raw.len() as u64;
        Ok(())
    }
}

/// What a whole-spool search needs of the index, copied: a live run goes on appending.
#[derive(Debug, Clone, Default)]
pub struct IndexCopy {
    pub(super) spool: Lines,
    pub changed: LineBits,
    pub texted: LineBits,
    pub(super) text: Lines,
}

impl IndexCopy {
    pub(super) fn of(index: &Index) -> IndexCopy {
        IndexCopy {
            spool: index.spool.clone(),
            changed: index.changed.clone(),
            texted: index.texted.clone(),
            text: index.text.clone(),
        }
    }

    /// The index of bytes that are no spool (no text file: every changed line is decoded).
    pub fn of_block(raw: &[u8]) -> IndexCopy {
        let mut index = Index::default();
        let marked = index.append(raw, |index, _| {
            index.changed.set(index.spool.lines);
            Ok::<(), std::convert::Infallible>(())
        });
        let Ok(()) = marked;
        IndexCopy::of(&index)
    }

    pub(super) fn lines(&self) -> &Lines {
        &self.spool
    }

    /// The text file's own index, as a spool of lines whose text is their bytes.
    pub fn text_file(&self) -> IndexCopy {
        IndexCopy { spool: self.text.clone(), ..IndexCopy::default() }
    }
}
