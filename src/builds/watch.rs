//! What a running build looks like, fed by its executor: the phase, the log's progress (split into
//! lines here: output arrives in chunks), the container's memory and CPU from the stats stream
//! with the peak, and whether it has stalled. One status line serves the pane and the command.

use super::failure::FailureScan;
use super::plan::Phase;
use super::progress::BuildProgress;
use super::units::{duration, human_bytes};

#[derive(Debug, Clone, Default)]
pub struct BuildWatch {
    pub phase: Option<Phase>,
    pub progress: BuildProgress,
    pub scan: FailureScan,
    pub memory_bytes: u64,
    pub peak_bytes: u64,
    pub cpu_percent: f64,
    /// Seconds into the build when the last line arrived.
    pub last_line_s: f64,
    partial: String,
}

impl BuildWatch {
    pub fn enter(&mut self, phase: Phase, at_s: f64) {
        self.phase = Some(phase);
        self.last_line_s = at_s;
    }

    /// Output of the running step; complete lines feed the progress and the failure scan.
    pub fn feed(&mut self, text: &str, at_s: f64) {
        self.partial.push_str(text);
        while let Some(end) = self.partial.find(['\n', '\r']) {
            let line: String = self.partial.drain(..=end).collect();
            self.line(line.trim_end(), at_s);
        }
    }

    fn line(&mut self, line: &str, at_s: f64) {
        self.last_line_s = at_s;
        self.progress.feed(line, at_s);
        self.scan.feed(line);
        if self.phase == Some(Phase::Compile) && line.contains("Linking") {
            self.phase = Some(Phase::Link);
        }
    }

    /// A stats sample: memory in use and CPU (100 = one core).
    pub fn sample(&mut self, memory_bytes: u64, cpu_percent: f64) {
        self.memory_bytes = memory_bytes;
        self.peak_bytes = self.peak_bytes.max(memory_bytes);
        self.cpu_percent = cpu_percent;
    }

    /// Seconds without a line, when that is at least `after_s`.
    pub fn stalled_for(&self, now_s: f64, after_s: f64) -> Option<f64> {
        let quiet = now_s - self.last_line_s;
        (quiet >= after_s).then_some(quiet)
    }

    /// `compile [23/35] 66% ETA 12s · 2 warnings · mem 310 MiB (peak 370 MiB) · cpu 190% · 41s`.
    pub fn status(&self, now_s: f64, stall_s: f64) -> String {
        let mut parts = vec![self.phase.map_or("starting", Phase::name).to_string()];
        if let Some(step) =
            self.progress.step.filter(|_| matches!(self.phase, Some(Phase::Compile | Phase::Link)))
        {
            let pct = u64::from(step.done) * 100 / u64::from(step.total);
            let eta = self.progress.eta_s(now_s).map_or("ETA ?".into(), |s| format!("ETA {}", duration(s)));
            parts[0] = format!("{} [{}/{}] {pct}% {eta}", parts[0], step.done, step.total);
        }
        parts.push(format!("{} warnings", self.progress.warnings));
        parts.push(format!("mem {} (peak {})", human_bytes(self.memory_bytes), human_bytes(self.peak_bytes)));
        parts.push(format!("cpu {:.0}%", self.cpu_percent));
        parts.push(duration(now_s));
        if let Some(quiet) = self.stalled_for(now_s, stall_s) {
            parts.push(format!("STALLED: no output for {}", duration(quiet)));
        }
        parts.join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_become_lines_and_the_status_line_says_it_all() {
        let mut w = BuildWatch::default();
        w.enter(Phase::Compile, 0.0);
        w.feed("  [1/35] Building CXX obj", 1.0);
        assert!(w.progress.step.is_none(), "half a line is not a step yet");
        w.feed("ect a.o\n  [2/35] Building CXX object b.o\n", 2.0);
        w.feed("  [11/35] Building CXX object c.o\nx.cc:1:1: warning: unused\n", 12.0);
        w.sample(300 << 20, 190.0);
        w.sample(200 << 20, 150.0);
        let status = w.status(12.0, 300.0);
        assert_eq!(
            status,
            "compile [11/35] 31% ETA 24s · 1 warnings · mem 200 MiB (peak 300 MiB) · cpu 150% · 12s"
        );
        w.feed("  [35/35] Linking CXX executable ninja\n", 20.0);
        assert_eq!(w.phase, Some(Phase::Link));
        assert!(w.status(400.0, 300.0).ends_with("STALLED: no output for 6m20"));
    }
}
