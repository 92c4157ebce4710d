//! Terminal manners: colour and the progress line, decided once per run from `--color`,
//! the environment (`NO_COLOR`, `CLICOLOR_FORCE`, `CLICOLOR`, `TERM`, `CI`) and whether
//! stdout and stderr are terminals.
//!
//! [`Terminal::from_env`] is read by the binary only; the library takes a [`Terminal`]
//! value, so tests can describe any terminal without touching the process environment.

use mdgraph::{Progress, ProgressSink as Sink};
use std::io::IsTerminal;
use std::time::Duration;

/// `--color`: when to use colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set (or forced by `CLICOLOR_FORCE`).
    #[default]
    Auto,
    /// Always, even into a pipe or a file.
    Always,
    /// Never.
    Never,
}

/// What a run knows about where its output goes.
#[derive(Clone, Default)]
pub struct Terminal {
    /// stdout is a terminal.
    pub stdout_tty: bool,
    /// stderr is a terminal.
    pub stderr_tty: bool,
    /// `NO_COLOR` is set to a non-empty value: no colour unless `--color always`.
    pub no_color: bool,
    /// `CLICOLOR_FORCE` is set, non-empty and not `0`: colour even into a pipe.
    pub clicolor_force: bool,
    /// `CLICOLOR=0`: no colour on a terminal.
    pub clicolor_off: bool,
    /// `TERM=dumb`: no colour and no progress line on a terminal.
    pub dumb: bool,
    /// `CI` is set: no progress line.
    pub ci: bool,
    /// Where the progress line is drawn (stderr in the binary); `None`: never drawn.
    pub progress_sink: Option<Sink>,
    /// How long a run goes before the progress line appears.
    pub progress_delay: Duration,
}

impl std::fmt::Debug for Terminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminal")
            .field("stdout_tty", &self.stdout_tty)
            .field("stderr_tty", &self.stderr_tty)
            .field("no_color", &self.no_color)
            .field("clicolor_force", &self.clicolor_force)
            .field("clicolor_off", &self.clicolor_off)
            .field("dumb", &self.dumb)
            .field("ci", &self.ci)
            .field("progress_sink", &self.progress_sink.is_some())
            .field("progress_delay", &self.progress_delay)
            .finish()
    }
}

/// The delay before the progress line appears.
pub const PROGRESS_DELAY: Duration = Duration::from_millis(1000);

impl Terminal {
    /// Not a terminal: no colour (unless `--color always`), no progress line.
    #[cfg(test)]
    pub fn plain() -> Terminal {
        Terminal::default()
    }

    /// The process's own stdout, stderr and environment.
    pub fn from_env() -> Terminal {
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        Terminal {
            stdout_tty: std::io::stdout().is_terminal(),
            stderr_tty: std::io::stderr().is_terminal(),
            no_color: var("NO_COLOR").is_some(),
            clicolor_force: var("CLICOLOR_FORCE").is_some_and(|v| v != "0"),
            clicolor_off: var("CLICOLOR").is_some_and(|v| v == "0"),
            dumb: var("TERM").is_some_and(|v| v == "dumb"),
            ci: var("CI").is_some(),
            progress_sink: Some(std::sync::Arc::new(std::sync::Mutex::new(std::io::stderr()))),
            progress_delay: PROGRESS_DELAY,
        }
    }

    /// Colour on a stream that is (`tty`) or is not a terminal.
    fn color(&self, choice: ColorChoice, tty: bool) -> bool {
        match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                if self.no_color {
                    false
                } else if self.clicolor_force {
                    true
                } else {
                    tty && !self.dumb && !self.clicolor_off
                }
            }
        }
    }

    /// The palette for stdout.
    pub fn stdout_paint(&self, choice: ColorChoice) -> Paint {
        Paint {
            on: self.color(choice, self.stdout_tty),
        }
    }

    /// The palette for stderr.
    pub fn stderr_paint(&self, choice: ColorChoice) -> Paint {
        Paint {
            on: self.color(choice, self.stderr_tty),
        }
    }

    /// A progress line for an index run, when stderr is an interactive terminal (not in
    /// CI, not `TERM=dumb`) and the user did not ask for quiet.
    pub fn progress(&self, quiet: bool) -> Option<Progress> {
        let sink = self.progress_sink.as_ref()?;
        (self.stderr_tty && !quiet && !self.ci && !self.dumb).then(|| Progress::new(sink.clone(), self.progress_delay))
    }
}

/// ANSI styles, or none. Modest, in the style of cargo and ripgrep: severities, file
/// positions, ids and verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Paint {
    /// Emit escape codes.
    pub on: bool,
}

impl Paint {
    /// No colour.
    #[cfg(test)]
    pub const PLAIN: Paint = Paint { on: false };

    fn wrap(self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    /// Bold red: errors, failed verdicts.
    pub fn error(self, s: &str) -> String {
        self.wrap("1;31", s)
    }

    /// Bold yellow: warnings.
    pub fn warning(self, s: &str) -> String {
        self.wrap("1;33", s)
    }

    /// Bold green: passing verdicts.
    pub fn ok(self, s: &str) -> String {
        self.wrap("1;32", s)
    }

    /// Bold: file positions, ids.
    pub fn bold(self, s: &str) -> String {
        self.wrap("1", s)
    }

    /// Dim: secondary detail.
    pub fn dim(self, s: &str) -> String {
        self.wrap("2", s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tty() -> Terminal {
        Terminal {
            stdout_tty: true,
            stderr_tty: true,
            ..Terminal::default()
        }
    }

    #[test]
    fn auto_colours_a_terminal_only() {
        assert!(tty().stdout_paint(ColorChoice::Auto).on);
        assert!(!Terminal::plain().stdout_paint(ColorChoice::Auto).on);
        let mixed = Terminal {
            stderr_tty: true,
            ..Terminal::default()
        };
        assert!(!mixed.stdout_paint(ColorChoice::Auto).on);
        assert!(mixed.stderr_paint(ColorChoice::Auto).on);
    }

    #[test]
    fn no_color_wins_over_auto_and_force_but_not_over_always() {
        let t = Terminal {
            no_color: true,
            clicolor_force: true,
            ..tty()
        };
        assert!(!t.stdout_paint(ColorChoice::Auto).on);
        assert!(t.stdout_paint(ColorChoice::Always).on);
    }

    #[test]
    fn clicolor_force_colours_a_pipe_and_never_is_never() {
        let t = Terminal {
            clicolor_force: true,
            ..Terminal::plain()
        };
        assert!(t.stdout_paint(ColorChoice::Auto).on);
        assert!(!t.stdout_paint(ColorChoice::Never).on);
        assert!(Terminal::plain().stdout_paint(ColorChoice::Always).on);
    }

    #[test]
    fn dumb_terminal_and_clicolor_zero_are_plain() {
        for t in [
            Terminal { dumb: true, ..tty() },
            Terminal {
                clicolor_off: true,
                ..tty()
            },
        ] {
            assert!(!t.stdout_paint(ColorChoice::Auto).on, "{t:?}");
        }
    }

    #[test]
    fn progress_only_on_an_interactive_terminal() {
        let sink: Sink = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
        let with = |t: Terminal| Terminal {
            progress_sink: Some(sink.clone()),
            ..t
        };
        assert!(with(tty()).progress(false).is_some());
        assert!(with(tty()).progress(true).is_none(), "--quiet");
        assert!(with(Terminal { ci: true, ..tty() }).progress(false).is_none(), "CI");
        assert!(with(Terminal::plain()).progress(false).is_none(), "a pipe");
        assert!(tty().progress(false).is_none(), "no sink");
    }

    #[test]
    fn paint_wraps_only_when_on() {
        assert_eq!(Paint::PLAIN.error("error"), "error");
        assert_eq!(Paint { on: true }.error("error"), "\x1b[1;31merror\x1b[0m");
    }
}
