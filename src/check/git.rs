//! Running git: one command, its input fed from another thread, its output whole.

use crate::error::Error;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Run git in `dir`; stdout on success.
pub(crate) fn git(dir: &Path, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>, Error> {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if input.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::Other(format!("git is needed here: {e}")))?;
    // Stdin is written from another thread while stdout is read: `cat-file --batch`
    // answers as it reads, and both pipes full would block both processes.
    let feeder = match (input, child.stdin.take()) {
        (Some(data), Some(mut stdin)) => {
            let data = data.to_vec();
            Some(std::thread::spawn(move || stdin.write_all(&data)))
        }
        _ => None,
    };
    let out = child.wait_with_output().map_err(|e| Error::io("git", e))?;
    if let Some(f) = feeder {
        f.join()
            .map_err(|_| Error::Other("git stdin: the writer panicked".into()))?
            .map_err(|e| Error::io("git stdin", e))?;
    }
    if !out.status.success() {
        return Err(Error::Other(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}


/// The objects named by `specs` (`<commit>:<path>`, blob ids), in order, in one `git
/// cat-file --batch`: None for one git does not have.
pub(crate) fn objects(dir: &Path, specs: &[String]) -> Result<Vec<Option<Vec<u8>>>, Error> {
    if specs.is_empty() {
        return Ok(Vec::new());
    }
    let input: String = specs.iter().map(|s| format!("{s}\n")).collect();
    let bytes = git(dir, &["cat-file", "--batch"], Some(input.as_bytes()))?;
    let mut out = Vec::with_capacity(specs.len());
    let mut at = 0;
    while at < bytes.len() && out.len() < specs.len() {
        let Some(nl) = bytes[at..].iter().position(|&b| b == b'\n') else {
            break;
        };
        let header = String::from_utf8_lossy(&bytes[at..at + nl]).into_owned();
        at += nl + 1;
        // `<id> <type> <size>`, or `<spec> missing` (no body follows).
        let size = match header.rsplit_once(' ') {
            Some((_, n)) if !header.ends_with(" missing") && !header.ends_with(" ambiguous") => n.parse::<usize>().ok(),
            _ => None,
        };
        match size {
            Some(n) => {
                let end = (at + n).min(bytes.len());
                out.push(Some(bytes[at..end].to_vec()));
                at = end + 1;
            }
            None => out.push(None),
        }
    }
    out.resize(specs.len(), None);
    Ok(out)
}
