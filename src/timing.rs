//! Phase timings of a run, printed with `--verbose` (never written to the index).

use std::time::{Duration, Instant};

/// Wall-clock durations of the phases of one command.
#[derive(Debug, Clone)]
pub struct Timings {
    last: Instant,
    /// (phase, duration) in the order they ran.
    pub phases: Vec<(&'static str, Duration)>,
}

impl Default for Timings {
    fn default() -> Self {
        Timings {
            last: Instant::now(),
            phases: Vec::new(),
        }
    }
}

impl Timings {
    /// Close the current phase under `name` and start the next.
    pub fn mark(&mut self, name: &'static str) {
        let now = Instant::now();
        self.phases.push((name, now - self.last));
        self.last = now;
    }

    /// `scan 41.2ms, parse 80.3ms, …`
    pub fn render(&self) -> String {
        let parts: Vec<String> = self
            .phases
            .iter()
            .map(|(n, d)| format!("{n} {:.1}ms", d.as_secs_f64() * 1000.0))
            .collect();
        let total: Duration = self.phases.iter().map(|(_, d)| *d).sum();
        format!(
            "timings: {} (total {:.1}ms)",
            parts.join(", "),
            total.as_secs_f64() * 1000.0
        )
    }
}
