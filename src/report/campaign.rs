//! A campaign's outcome as the report and `campaign status` give it (counted from its journal by
//! `campaigns::outcome`).

use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CampaignOutcome {
    pub commits: usize,
    /// Usable 3-way commits of the campaign's when it started (`None`: a journal from before
    /// this was counted).
    pub usable_before: Option<usize>,
    pub usable_now: usize,
    /// Cells whose newest run failed, by its category.
    pub left: BTreeMap<String, usize>,
    /// Verified fixes, by recipe.
    pub fixes: BTreeMap<String, usize>,
    /// Runs that followed an infrastructure failure.
    pub retries: usize,
    /// Every run's time from launch to end, in seconds.
    pub run_s: i64,
    /// When it started and, once it ended, when (RFC 3339), and the wall time between.
    pub started: String,
    pub ended: Option<String>,
    pub wall_s: Option<i64>,
}

impl CampaignOutcome {
    /// `usable 3-way: 12 → 27 of 30` and the rest, one line each, as `campaign status` and the
    /// report say it.
    pub fn lines(&self) -> Vec<String> {
        let before = self.usable_before.map_or("?".to_string(), |n| n.to_string());
        let list = |m: &BTreeMap<String, usize>| {
            let each: Vec<String> = m.iter().map(|(k, n)| format!("{k} {n}")).collect();
            if each.is_empty() { "none".to_string() } else { each.join(", ") }
        };
        vec![
            format!("usable 3-way: {before} before → {} now, of {} commits", self.usable_now, self.commits),
            format!("left failed: {}", list(&self.left)),
            format!("fixes applied: {}", list(&self.fixes)),
            format!(
                "retries spent: {} · runs' time (launch to end): {}h{:02}",
                self.retries,
                self.run_s / 3600,
                self.run_s % 3600 / 60
            ),
            self.when(),
        ]
    }

    /// `started … · ended … · wall 5h12`, or `started … · not ended`.
    fn when(&self) -> String {
        match (&self.ended, self.wall_s) {
            (Some(ended), Some(s)) => {
                format!("started {} · ended {ended} · wall {}h{:02}", self.started, s / 3600, s % 3600 / 60)
            }
            _ => format!("started {} · not ended", self.started),
        }
    }
}
