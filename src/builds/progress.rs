//! A build's progress from its log lines: ninja's `[N/M]` steps (a vLLM build runs several ninja
//! projects one after another, each counting from 1), an ETA from the recent rate, compiler
//! warnings folded into a count, and how long nothing has moved (a stall is marked, never killed).

use std::collections::VecDeque;

/// How far back the rate for the ETA looks, in seconds.
const RATE_WINDOW_S: f64 = 120.0;

/// A ninja step line: `[N/M] …`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub done: u32,
    pub total: u32,
}

impl Step {
    /// `[12/345] Building CXX object …` → 12 of 345; anything else is not a step.
    pub fn parse(line: &str) -> Option<Step> {
        let rest = line.trim_start().strip_prefix('[')?;
        let (inside, _) = rest.split_once(']')?;
        let (done, total) = inside.split_once('/')?;
        let step = Step { done: done.trim().parse().ok()?, total: total.trim().parse().ok()? };
        (step.total > 0 && step.done <= step.total).then_some(step)
    }
}

#[derive(Debug, Clone, Default)]
pub struct BuildProgress {
    /// The ninja project being built now (numbered from 1), and its latest step.
    pub project: u32,
    pub step: Option<Step>,
    pub warnings: u32,
    /// Seconds since the build started when a step last moved.
    pub last_move_s: f64,
    /// (seconds, steps done) of the current project, oldest first, for the rate.
    samples: VecDeque<(f64, u32)>,
}

impl BuildProgress {
    /// One log line, seen `at_s` seconds into the build.
    pub fn feed(&mut self, line: &str, at_s: f64) {
        if line.contains("warning:") {
            self.warnings += 1;
        }
        let Some(step) = Step::parse(line) else { return };
        let new_project = self.step.is_none_or(|s| step.total != s.total || step.done < s.done);
        if new_project {
            self.project += 1;
            self.samples.clear();
        }
        self.step = Some(step);
        self.last_move_s = at_s;
        self.samples.push_back((at_s, step.done));
        while self.samples.front().is_some_and(|(t, _)| at_s - t > RATE_WINDOW_S) {
            self.samples.pop_front();
        }
    }

    /// Done fraction of the current project.
    pub fn fraction(&self) -> Option<f64> {
        self.step.map(|s| f64::from(s.done) / f64::from(s.total))
    }

    /// Seconds left in the current project at `now_s`, at the rate since the oldest step of the
    /// last two minutes (time without a step slows the rate, so a stuck build's ETA grows).
    pub fn eta_s(&self, now_s: f64) -> Option<f64> {
        let (&(t0, d0), &(_, d1)) = (self.samples.front()?, self.samples.back()?);
        let step = self.step?;
        let rate = f64::from(d1.checked_sub(d0).filter(|d| *d > 0)?) / (now_s - t0).max(f64::EPSILON);
        Some(f64::from(step.total - step.done) / rate)
    }

    /// Nothing has moved for `after_s` seconds at `now_s`.
    pub fn stalled(&self, now_s: f64, after_s: f64) -> bool {
        now_s - self.last_move_s >= after_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ninja_steps_parse_and_other_lines_do_not() {
        let line = "[12/345] Building CXX object CMakeFiles/_C.dir/csrc/cache_kernels.cu.o";
        assert_eq!(Step::parse(line), Some(Step { done: 12, total: 345 }));
        assert_eq!(
            Step::parse("  [1/2] Linking CXX shared module _C.abi3.so"),
            Some(Step { done: 1, total: 2 })
        );
        for other in ["[0/0] x", "[5/3] x", "[a/b] x", "-- Build files written", "[INFO] x"] {
            assert_eq!(Step::parse(other), None, "{other}");
        }
    }

    #[test]
    fn the_eta_follows_the_recent_rate_and_a_new_project_starts_over() {
        let mut p = BuildProgress::default();
        for (t, n) in [(0.0, 1), (10.0, 11), (20.0, 21)] {
            p.feed(&format!("[{n}/101] Building CXX object a.o"), t);
        }
        assert_eq!((p.project, p.fraction().map(|f| (f * 100.0).round())), (1, Some(21.0)));
        // 20 steps in 20 s: 80 left take 80 s.
        assert!((p.eta_s(20.0).unwrap() - 80.0).abs() < 1e-9);
        // Twenty more seconds without a step: 20 steps in 40 s, 80 left take 160 s.
        assert!((p.eta_s(40.0).unwrap() - 160.0).abs() < 1e-9);
        p.feed("[1/7] Building CXX object moe.o", 30.0);
        assert_eq!((p.project, p.eta_s(30.0)), (2, None), "one sample gives no rate yet");
    }

    #[test]
    fn warnings_are_counted_and_a_stall_is_only_marked() {
        let mut p = BuildProgress::default();
        p.feed("[3/9] Building CXX object a.o", 5.0);
        p.feed("csrc/ops.cu(12): warning: variable \"x\" was declared but never referenced", 6.0);
        p.feed("/usr/include/c++/12/bits/stl_vector.h:3:1: warning: unused [-Wunused]", 7.0);
        assert_eq!(p.warnings, 2);
        assert!(!p.stalled(60.0, 300.0));
        assert!(p.stalled(305.0, 300.0));
    }
}
