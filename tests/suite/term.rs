//! Terminal manners: colour only on a terminal (or `--color always`, `CLICOLOR_FORCE`),
//! never with `NO_COLOR` or `--color never`; the progress line only on an interactive
//! terminal. Real terminals come from `script` (util-linux), skipped when it is missing
//! (off CI: under `CI=true` that fails).

use crate::common::*;
use std::ffi::OsStr;
use std::process::Command;

const ESC: &str = "\x1b[";

/// A check of the broken fixture: errors and warnings on stdout, a FAILED summary on stderr.
fn broken() -> Fixture {
    let f = Fixture::new("tests/fixtures/broken");
    assert_eq!(f.run(&["index"]).code, 0);
    f
}

#[test]
fn color_always_paints_severities_positions_and_the_verdict() {
    let f = broken();
    let out = f.run(&["--color", "always", "check"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains(
            "\x1b[1mitems/feature/0000/BRK-FTR-0001_export.md:7:1\x1b[0m: \x1b[1;31merror[dangling-reference]\x1b[0m: `parent` refers"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("\x1b[1;33mwarning[broken-link]\x1b[0m"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.starts_with("\x1b[1;31mcheck FAILED\x1b[0m: index is fresh"),
        "{}",
        out.stderr
    );
    // Without the escapes it is the plain output, byte for byte.
    let plain = f.run(&["check"]);
    assert_eq!(strip_ansi(&out.stdout), plain.stdout);
    assert_eq!(strip_ansi(&out.stderr), plain.stderr);

    let f = Fixture::new("backlog-fixtures");
    let out = f.run(&["--color", "always", "search", "pdf export", "--limit", "3"]);
    assert!(out.stdout.contains("\x1b[1mQRY-FTR-0006\x1b[0m"), "{}", out.stdout);
    let plain = f.run(&["search", "pdf export", "--limit", "3"]);
    assert_eq!(strip_ansi(&out.stdout), plain.stdout);
    let out = f.run(&["--color", "always", "show", "nothing-has-this-id"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .starts_with("mdgraph: \x1b[1;31merror:\x1b[0m no node matches"),
        "{}",
        out.stderr
    );
}

#[test]
fn pipes_no_color_and_never_are_plain_and_clicolor_force_paints() {
    let f = broken();
    for (args, env) in [
        (vec!["check"], vec![]),
        (vec!["--color", "auto", "check"], vec![("NO_COLOR", "1")]),
        (vec!["--color", "never", "check"], vec![("CLICOLOR_FORCE", "1")]),
        (vec!["check"], vec![("CLICOLOR_FORCE", "0")]),
    ] {
        let env: Vec<(&str, &OsStr)> = env.iter().map(|(k, v)| (*k, OsStr::new(v))).collect();
        let out = run_env(
            f.dir.path(),
            &[&["--root", "backlog", "--index-dir", "_index"], &args[..]].concat(),
            &env,
        );
        assert_eq!(out.code, 1);
        assert!(
            !out.stdout.contains(ESC) && !out.stderr.contains(ESC),
            "{args:?} {env:?}: {out:?}"
        );
    }
    let out = run_env(
        f.dir.path(),
        &["--root", "backlog", "--index-dir", "_index", "check"],
        &[("CLICOLOR_FORCE", OsStr::new("1"))],
    );
    assert!(out.stdout.contains(ESC) && out.stderr.contains(ESC), "{out:?}");
    // NO_COLOR wins over CLICOLOR_FORCE; --color always wins over NO_COLOR.
    let out = run_env(
        f.dir.path(),
        &["--root", "backlog", "--index-dir", "_index", "check"],
        &[("CLICOLOR_FORCE", OsStr::new("1")), ("NO_COLOR", OsStr::new("1"))],
    );
    assert!(!out.stdout.contains(ESC), "{out:?}");
    let out = run_env(
        f.dir.path(),
        &[
            "--root",
            "backlog",
            "--index-dir",
            "_index",
            "--color",
            "always",
            "check",
        ],
        &[("NO_COLOR", OsStr::new("1"))],
    );
    assert!(out.stdout.contains(ESC), "{out:?}");
}

/// Run the binary on a real terminal (a pseudo-terminal made by `script`); None when
/// `script` is not available (off CI: see [`tool_missing`]).
fn on_a_tty(f: &Fixture, args: &str, env: &[(&str, &str)]) -> Option<String> {
    if tool_missing("`script` (util-linux)", &["script", "--version"]) {
        return None;
    }
    let cmd = format!("{BIN} --root backlog --index-dir _index {args}");
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(f.dir.path())
        .env_clear()
        .env(RACY_ENV, RACY_MS.to_string())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("TERM", "xterm")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn a_real_terminal_gets_colour_unless_no_color() {
    let f = broken();
    let Some(tty) = on_a_tty(&f, "check", &[]) else {
        return;
    };
    assert!(tty.contains("\x1b[1;31merror[dangling-reference]"), "{tty:?}");
    let no_color = on_a_tty(&f, "check", &[("NO_COLOR", "1")]).unwrap();
    assert!(
        no_color.contains("error[dangling-reference]") && !no_color.contains(ESC),
        "{no_color:?}"
    );
    let never = on_a_tty(&f, "--color never check", &[]).unwrap();
    assert!(!never.contains(ESC), "{never:?}");
}

/// Remove ANSI SGR sequences.
fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("\x1b[") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 2..];
        let end = tail.find('m').map(|j| j + 1).unwrap_or(tail.len());
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn snapshots_hold_no_escape_codes() {
    let mut n = 0;
    for e in std::fs::read_dir(repo().join("snapshots")).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(!text.contains('\x1b'), "{} holds an escape code", p.display());
        n += 1;
    }
    assert!(n > 10, "snapshots not found");
}
