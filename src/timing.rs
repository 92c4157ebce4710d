//! Phase timings of a run, printed with `--verbose` (never written to the index).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Whether marks record memory ([`record_memory`]).
static MEMORY: AtomicBool = AtomicBool::new(false);

/// Record the resident and peak memory at each mark from now on (`--verbose`): a read of
/// `/proc/self/status` per phase, which queries do not pay otherwise.
pub fn record_memory(on: bool) {
    MEMORY.store(on, Ordering::Relaxed);
}

/// Wall-clock durations of the phases of one command.
#[derive(Debug, Clone)]
pub struct Timings {
    last: Instant,
    /// (phase, duration) in the order they ran.
    pub phases: Vec<(&'static str, Duration)>,
    /// (resident, peak resident) memory in bytes at the end of each phase, where the
    /// system tells it (Linux); empty elsewhere.
    pub memory: Vec<(u64, u64)>,
}

impl Default for Timings {
    fn default() -> Self {
        Timings {
            last: Instant::now(),
            phases: Vec::new(),
            memory: Vec::new(),
        }
    }
}

impl Timings {
    /// Close the current phase under `name` and start the next.
    pub fn mark(&mut self, name: &'static str) {
        let now = Instant::now();
        self.phases.push((name, now - self.last));
        if MEMORY.load(Ordering::Relaxed)
            && let Some(m) = resident()
        {
            self.memory.push(m);
        }
        self.last = Instant::now();
    }

    /// `scan 41.2ms, parse 80.3ms, …`
    pub fn render(&self) -> String {
        let parts: Vec<String> = self
            .phases
            .iter()
            .map(|(n, d)| format!("{n} {:.1}ms", d.as_secs_f64() * 1000.0))
            .collect();
        let total: Duration = self.phases.iter().map(|(_, d)| *d).sum();
        let mut out = format!(
            "timings: {} (total {:.1}ms)",
            parts.join(", "),
            total.as_secs_f64() * 1000.0
        );
        if self.memory.len() == self.phases.len() && !self.memory.is_empty() {
            let mb = |b: u64| b as f64 / 1e6;
            let parts: Vec<String> = self
                .phases
                .iter()
                .zip(&self.memory)
                .map(|((n, _), (rss, peak))| format!("{n} {:.0}/{:.0}", mb(*rss), mb(*peak)))
                .collect();
            let peak = self.memory.iter().map(|m| m.1).max().unwrap_or(0);
            out.push_str(&format!(
                "\nmemory: resident/peak MB after {} (peak {:.0} MB)",
                parts.join(", "),
                mb(peak)
            ));
        }
        out
    }
}

/// This process's (resident, peak resident) memory in bytes, from `/proc/self/status`.
fn resident() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line[name.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kb * 1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Memory is read at each mark only when asked (`-v`), and then rendered.
    #[test]
    fn memory_is_recorded_only_when_asked() {
        let mut t = Timings::default();
        t.mark("quiet");
        assert!(t.memory.is_empty());
        assert!(!t.render().contains("memory:"));
        record_memory(true);
        let mut t = Timings::default();
        t.mark("one");
        t.mark("two");
        record_memory(false);
        if cfg!(target_os = "linux") {
            assert_eq!(t.memory.len(), 2);
            assert!(t.memory.iter().all(|(rss, peak)| *rss > 0 && peak >= rss));
            assert!(
                t.render().contains("\nmemory: resident/peak MB after one "),
                "{}",
                t.render()
            );
        }
    }
}
