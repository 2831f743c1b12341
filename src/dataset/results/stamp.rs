//! A result record's own time, however its file spelled it. Records compare by it: the newest
//! dated record wins, and a record without a time never beats a dated one (`None < Some`).

use serde::{Serialize, Serializer};
use time::PrimitiveDateTime;
use time::macros::format_description;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stamp(PrimitiveDateTime);

impl Stamp {
    /// `2026-01-18 12:12:46`, `2026-01-12T13:06:28.244855`, `2026-11-22T01:02:03Z` (read as UTC,
    /// as the harness wrote local H100-host times without a zone) or a progress log's
    /// `20251231_125113`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Stamp> {
        let text = text.trim().trim_end_matches('Z');
        let iso = format_description!(
            "[year]-[month]-[day][first [T][ ]][hour]:[minute]:[second][optional [.[subsecond]]]"
        );
        let compact = format_description!("[year][month][day]_[hour][minute][second]");
        PrimitiveDateTime::parse(text, iso)
            .or_else(|_| PrimitiveDateTime::parse(text, compact))
            .ok()
            .map(Stamp)
    }

    /// Whole seconds from `earlier` to this (negative when it is later).
    pub fn seconds_since(self, earlier: Stamp) -> i64 {
        (self.0 - earlier.0).whole_seconds()
    }

    /// The UTC time of unix seconds (an image's creation time, say).
    pub fn from_unix(secs: i64) -> Option<Stamp> {
        let t = time::OffsetDateTime::from_unix_timestamp(secs).ok()?;
        Some(Stamp(PrimitiveDateTime::new(t.date(), t.time())))
    }
}

impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = self.0;
        write!(
            f,
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            d.year(),
            u8::from(d.month()),
            d.day(),
            d.hour(),
            d.minute(),
            d.second()
        )
    }
}

impl Serialize for Stamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A stamp to the nanosecond, as `[unix seconds, nanoseconds]`: what the digest cache keeps
/// (`Display` drops the fraction, which orders records).
pub mod exact {
    use super::Stamp;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(stamp: &Option<Stamp>, s: S) -> Result<S::Ok, S::Error> {
        let parts = stamp.map(|Stamp(d)| {
            let utc = d.assume_utc();
            (utc.unix_timestamp(), utc.nanosecond())
        });
        parts.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Stamp>, D::Error> {
        let Some((secs, nanos)) = Option::<(i64, u32)>::deserialize(d)? else { return Ok(None) };
        let at = time::OffsetDateTime::from_unix_timestamp(secs)
            .and_then(|t| t.replace_nanosecond(nanos))
            .map_err(serde::de::Error::custom)?;
        Ok(Some(Stamp(time::PrimitiveDateTime::new(at.date(), at.time()))))
    }
}

#[cfg(test)]
mod tests {
    use super::Stamp;

    #[test]
    fn every_spelling_in_the_archive_reads_and_orders_by_time_not_by_text() {
        let progress = Stamp::parse("20260102_091500").unwrap();
        let result = Stamp::parse("2026-01-10 08:00:00").unwrap();
        assert!(progress < result, "as text, \"20260102…\" sorts after \"2026-01-10…\"");
        let rerun = Stamp::parse("2026-01-12T13:06:28.244855").unwrap();
        assert_eq!(rerun.to_string(), "2026-01-12 13:06:28");
        assert_eq!(Stamp::parse("2026-11-22T01:02:03Z").unwrap().to_string(), "2026-11-22 01:02:03");
        assert_eq!(Stamp::parse("yesterday"), None);
        assert!(None < Some(progress));
    }
}
