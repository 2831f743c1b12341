//! Sizes and durations as the build's status line and outcome say them.

/// `1.5 GiB`, `312 MiB`.
pub fn human_bytes(bytes: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    #[allow(clippy::cast_precision_loss)]
    let mib = bytes as f64 / MIB;
    if mib >= 1024.0 { format!("{:.1} GiB", mib / 1024.0) } else { format!("{mib:.0} MiB") }
}

/// Whole seconds (negative: none).
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub fn whole_secs(secs: f64) -> u64 {
    secs.max(0.0) as u64
}

/// `42s`, `3m05`, `1h02`.
pub fn duration(secs: f64) -> String {
    let s = whole_secs(secs);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}", s / 60, s % 60),
        _ => format!("{}h{:02}", s / 3600, s % 3600 / 60),
    }
}
