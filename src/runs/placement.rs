//! Where a run goes when there are several hosts: one that answers, has a run slot free (its
//! `concurrency`), and enough free GPUs for the commit; of those the one left with the fewest
//! free GPUs (an 8-GPU commit later still finds a whole box). Why no host fits is said per host.

use super::GpuRequest;

/// Why one host cannot take a run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Misfit {
    #[error("{host}: {why}")]
    Down { host: String, why: String },
    #[error("{host}: {running} of {slots} run slot(s) busy")]
    SlotsBusy { host: String, running: usize, slots: usize },
    #[error("{host}: its GPUs are unknown (set gpus or probe_image)")]
    GpusUnknown { host: String },
    #[error("{host}: {free} of {total} GPU(s) free, needs {wanted}")]
    TooFewGpus { host: String, free: usize, total: usize, wanted: usize },
}

/// No host can take the run: each one's reason, in the config's order.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
pub struct NoHostFits(pub Vec<Misfit>);

/// A host as placement sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct HostSlot {
    pub name: String,
    /// Its GPUs (the config's count, else the probe's); `None`: unknown.
    pub gpus: Option<usize>,
    pub concurrency: usize,
    /// Our runs on it now, and the GPUs they hold.
    pub running: usize,
    pub gpus_busy: usize,
    /// Why it cannot be used at all (unreachable).
    pub down: Option<String>,
}

impl HostSlot {
    /// `gpu2 ●0/1 8gpu` (runs of its slots, GPUs when it has any), or `gone ✗` when down.
    pub fn summary(&self) -> String {
        if self.down.is_some() {
            return format!("{} ✗", self.name);
        }
        let gpus = self.gpus.filter(|n| *n > 0).map(|n| format!(" {n}gpu")).unwrap_or_default();
        format!("{} ●{}/{}{gpus}", self.name, self.running, self.concurrency)
    }

    /// GPUs left after this run, or why it does not fit.
    fn fit(&self, need: &GpuRequest) -> Result<usize, Misfit> {
        let host = self.name.clone();
        if let Some(why) = &self.down {
            return Err(Misfit::Down { host, why: why.clone() });
        }
        if self.running >= self.concurrency {
            return Err(Misfit::SlotsBusy { host, running: self.running, slots: self.concurrency });
        }
        let free = match (self.gpus, need) {
            (_, GpuRequest::None) => return Ok(self.gpus.unwrap_or(0).saturating_sub(self.gpus_busy)),
            (None, _) => return Err(Misfit::GpusUnknown { host }),
            (Some(total), _) => total.saturating_sub(self.gpus_busy),
        };
        let wanted = match need {
            GpuRequest::Count(n) => *n as usize,
            _ => self.gpus.unwrap_or(0).max(1),
        };
        if free >= wanted && (!matches!(need, GpuRequest::All) || self.gpus_busy == 0) {
            Ok(free - wanted)
        } else {
            Err(Misfit::TooFewGpus { host, free, total: self.gpus.unwrap_or(0), wanted })
        }
    }
}

/// The host for a run needing `need`, or every host's reason it cannot take it.
pub fn place(hosts: &[HostSlot], need: &GpuRequest) -> Result<String, NoHostFits> {
    let fits: Vec<(usize, &HostSlot)> =
        hosts.iter().filter_map(|h| h.fit(need).ok().map(|left| (left, h))).collect();
    match fits.iter().min_by_key(|(left, h)| (*left, h.running)) {
        Some((_, host)) => Ok(host.name.clone()),
        None => Err(NoHostFits(hosts.iter().filter_map(|h| h.fit(need).err()).collect())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(name: &str, gpus: Option<usize>, running: usize, gpus_busy: usize) -> HostSlot {
        HostSlot { name: name.into(), gpus, concurrency: 2, running, gpus_busy, down: None }
    }

    #[test]
    fn the_tightest_host_that_fits_takes_the_run() {
        let hosts = [slot("big", Some(8), 0, 0), slot("small", Some(2), 0, 0), slot("half", Some(8), 1, 4)];
        assert_eq!(place(&hosts, &GpuRequest::Count(2)), Ok("small".into()));
        assert_eq!(place(&hosts, &GpuRequest::Count(4)), Ok("half".into()));
        assert_eq!(place(&hosts, &GpuRequest::Count(8)), Ok("big".into()));
        assert_ne!(place(&hosts, &GpuRequest::All), Ok("half".into()), "all of a host: an idle one");
    }

    #[test]
    fn when_nothing_fits_each_host_says_why() {
        let down =
            HostSlot { down: Some("unreachable: connection refused".into()), ..slot("gone", Some(8), 0, 0) };
        let full = HostSlot { concurrency: 1, ..slot("busy", Some(8), 1, 1) };
        let unknown = slot("mystery", None, 0, 0);
        let hosts = [down, full, unknown, slot("small", Some(2), 0, 1)];
        let why = place(&hosts, &GpuRequest::Count(2)).unwrap_err().to_string();
        assert_eq!(
            why,
            "gone: unreachable: connection refused; busy: 1 of 1 run slot(s) busy; \
             mystery: its GPUs are unknown (set gpus or probe_image); small: 1 of 2 GPU(s) free, needs 2"
        );
        let cpu_only = place(&hosts, &GpuRequest::None);
        assert_eq!(cpu_only, Ok("mystery".into()), "a CPU-only run needs a slot, and leaves GPUs free");
    }
}
