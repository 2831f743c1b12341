//! Caps glibc's malloc arenas. glibc gives each thread that allocates while the others do an
//! arena of its own (up to 8 per core), and each arena keeps its freed memory resident: over
//! 10,000 commits read on several threads, 24 MB of perftriage's 124 MB. This is the one unsafe
//! call perftriage makes, kept in a crate of its own so the tool itself forbids unsafe code.

/// Allow at most `arenas` malloc arenas from now on (arenas already made stay): call it first in
/// `main`, before any thread starts. `false` where glibc refused, or this is not glibc.
pub fn cap(arenas: usize) -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let Ok(arenas) = libc::c_int::try_from(arenas) else { return false };
        // SAFETY: mallopt sets a tuning parameter of glibc's allocator and touches no memory of
        // ours; M_ARENA_MAX takes any positive int and is read when a thread next needs an arena.
        unsafe { libc::mallopt(libc::M_ARENA_MAX, arenas) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = arenas;
        false
    }
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn glibc_takes_a_cap() {
        assert!(super::cap(4));
    }
}
