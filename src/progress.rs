//! A progress line for long index runs, drawn on stderr only when stderr is a terminal
//! and the run has taken longer than a delay (about a second): quick runs, pipes and CI
//! logs never see it. The line is erased when the run ends, so the messages that follow
//! start on a clean line.
//!
//! Hand-written (a hundred lines) rather than a dependency: one bar, one phase label and
//! a counter are all mdgraph needs.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Where the progress line is drawn (stderr in the binary; a buffer in tests).
pub type Sink = Arc<Mutex<dyn Write + Send>>;

/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(100);
/// Width of the bar in characters.
const BAR: usize = 24;

/// A progress line. Phases are set by the work ([`Progress::phase`]), counts are bumped
/// from any thread ([`Progress::inc`]); a background thread redraws the line. Dropping it
/// (or [`Progress::finish`]) stops the thread and erases the line.
pub struct Progress {
    shared: Arc<Shared>,
    ticker: Mutex<Option<std::thread::JoinHandle<()>>>,
}

struct Shared {
    sink: Sink,
    start: Instant,
    delay: Duration,
    done: AtomicUsize,
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    phase: &'static str,
    total: usize,
    drawn: bool,
    stopped: bool,
}

impl Progress {
    /// Start a progress line on `sink`, shown once `delay` has passed.
    pub fn new(sink: Sink, delay: Duration) -> Progress {
        let shared = Arc::new(Shared {
            sink,
            start: Instant::now(),
            delay,
            done: AtomicUsize::new(0),
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        });
        let bg = Arc::clone(&shared);
        // Without a thread (the system refused one) the line is drawn at phase changes only.
        let ticker = std::thread::Builder::new()
            .name("mdgraph-progress".into())
            .spawn(move || bg.tick_loop())
            .ok();
        Progress {
            shared,
            ticker: Mutex::new(ticker),
        }
    }

    /// Enter a phase (`"parsing"`) with `total` steps (0 when unknown); redraws at once
    /// when the delay has passed.
    pub fn phase(&self, name: &'static str, total: usize) {
        let mut st = lock(&self.shared.state);
        st.phase = name;
        st.total = total;
        self.shared.done.store(0, Ordering::Relaxed);
        self.shared.draw(&mut st);
    }

    /// One step of the current phase done.
    pub fn inc(&self) {
        self.shared.done.fetch_add(1, Ordering::Relaxed);
    }

    /// Stop redrawing and erase the line (when it was drawn). Called by `Drop` too.
    pub fn finish(&self) {
        {
            let mut st = lock(&self.shared.state);
            if st.stopped {
                return;
            }
            st.stopped = true;
            if st.drawn {
                let mut out = lock(&self.shared.sink);
                let _ = out.write_all(b"\r\x1b[2K").and_then(|()| out.flush());
            }
            self.shared.wake.notify_all();
        }
        if let Some(t) = lock(&self.ticker).take() {
            let _ = t.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

impl Shared {
    fn tick_loop(&self) {
        let mut st = lock(&self.state);
        while !st.stopped {
            st = match self.wake.wait_timeout(st, TICK) {
                Ok((g, _)) => g,
                Err(poisoned) => poisoned.into_inner().0,
            };
            if !st.stopped {
                self.draw(&mut st);
            }
        }
    }

    /// Draw the line if it is due (the state lock is held, so draws never interleave).
    fn draw(&self, st: &mut State) {
        if st.stopped || st.phase.is_empty() || self.start.elapsed() < self.delay {
            return;
        }
        let line = render(st.phase, self.done.load(Ordering::Relaxed), st.total);
        let mut out = lock(&self.sink);
        if out.write_all(line.as_bytes()).and_then(|()| out.flush()).is_ok() {
            st.drawn = true;
        }
    }
}

/// `\r` + erase line + `indexing [=====>        ] 420/1000 parsing`, or
/// `indexing … resolving` when the phase has no count. At most 60 columns.
fn render(phase: &str, done: usize, total: usize) -> String {
    if total == 0 {
        return format!("\r\x1b[2K    indexing … {phase}");
    }
    let done = done.min(total);
    let filled = done * BAR / total;
    let mut bar = "=".repeat(filled);
    if filled < BAR {
        bar.push('>');
        bar.push_str(&" ".repeat(BAR - filled - 1));
    }
    format!("\r\x1b[2K    indexing [{bar}] {done}/{total} {phase}")
}

fn lock<T: ?Sized>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer() -> (Arc<Mutex<Vec<u8>>>, Sink) {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let sink: Sink = buf.clone();
        (buf, sink)
    }

    #[test]
    fn bar_fills_with_the_count() {
        assert_eq!(
            render("parsing", 0, 10),
            "\r\x1b[2K    indexing [>                       ] 0/10 parsing"
        );
        assert_eq!(
            render("parsing", 5, 10),
            "\r\x1b[2K    indexing [============>           ] 5/10 parsing"
        );
        assert_eq!(
            render("parsing", 12, 10),
            "\r\x1b[2K    indexing [========================] 10/10 parsing"
        );
        assert_eq!(render("resolving", 0, 0), "\r\x1b[2K    indexing … resolving");
        // Fits an 80-column terminal: no wrapping, so `\r` returns to the start of the line.
        let visible = |s: String| s.trim_start_matches("\r\x1b[2K").chars().count();
        assert!(visible(render("parsing", 99_999, 100_000)) <= 70);
        assert!(visible(render("writing the SQLite mirror", 0, 0)) <= 70);
    }

    #[test]
    fn nothing_is_drawn_before_the_delay() {
        let (buf, sink) = buffer();
        let p = Progress::new(sink, Duration::from_secs(3600));
        p.phase("parsing", 3);
        p.inc();
        p.finish();
        assert!(lock(&buf).is_empty());
    }

    #[test]
    fn drawn_after_the_delay_and_erased_at_the_end() {
        let (buf, sink) = buffer();
        let p = Progress::new(sink, Duration::ZERO);
        p.phase("parsing", 2);
        p.inc();
        p.inc();
        p.phase("resolving", 0);
        drop(p);
        let text = String::from_utf8(lock(&buf).clone()).unwrap();
        assert!(text.starts_with("\r\x1b[2K    indexing [>"), "{text:?}");
        assert!(text.contains("0/2 parsing"), "{text:?}");
        assert!(text.contains("indexing … resolving"), "{text:?}");
        assert!(text.ends_with("\r\x1b[2K"), "the line is erased: {text:?}");
    }
}
