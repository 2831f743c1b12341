//! A large block of whole lines worked on as two halves, one on a thread of its own: how the
//! headless readers (`classify`, `metrics`) go through a log at two cores' pace.

/// Blocks this large are cut in two; smaller ones are not worth a thread.
const PARALLEL_BYTES: usize = 1 << 20;

/// `bytes` cut in two after the first newline past its middle when it is large enough to work
/// on two threads, else whole in the first half.
pub fn halves(bytes: &[u8]) -> (&[u8], &[u8]) {
    let half = bytes.len() / 2;
    let after_newline = memchr::memchr(b'\n', &bytes[half..]).map(|i| half + i + 1);
    bytes.split_at(after_newline.filter(|_| bytes.len() >= PARALLEL_BYTES).unwrap_or(bytes.len()))
}

/// `work` on `first` here and on `second` on a thread of its own. A panic on that thread is
/// raised again here, as if the work had been done in one.
pub fn in_two<P: Send, T: Send>(first: P, second: P, work: impl Fn(P) -> T + Sync) -> (T, T) {
    std::thread::scope(|scope| {
        let other = scope.spawn(|| work(second));
        let mine = work(first);
        (mine, other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_block_is_cut_after_a_newline_and_a_small_one_is_not() {
        let line = "x".repeat(99) + "\n";
        let large = line.repeat(PARALLEL_BYTES / 100 + 2);
        let (first, second) = halves(large.as_bytes());
        assert_eq!(first.last(), Some(&b'\n'));
        assert_eq!(first.len() + second.len(), large.len());
        assert!(first.len() >= large.len() / 2 && !second.is_empty());
        assert_eq!(halves(line.as_bytes()), (line.as_bytes(), &b""[..]));
    }

    #[test]
    fn both_halves_are_worked_on_and_come_back_in_order() {
        assert_eq!(in_two(&b"ab"[..], &b"c"[..], <[u8]>::len), (2, 1));
    }
}
