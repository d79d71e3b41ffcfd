//! The cascade check: every failing case declares how many errors its
//! snapshot shows, one per mistake it makes, and this check counts them.
//! A macro change that adds an error to a case (a cascade: a name a failed
//! expansion did not declare, a second error for one mistake) fails it,
//! even when the snapshot is regenerated with `TRYBUILD=overwrite`.
//!
//! Included by `tests/ui/ui.rs` and `tests/ui-foreign/ui.rs` with `#[path]`.

use std::fmt::Write as _;
use std::path::Path;

/// What a snapshot counts as one error: a line that starts with `error:` or
/// `error[` (`error[E0277]: ...`), which is how rustc begins each error
/// diagnostic. The lines under it (the `-->` location, the source excerpt,
/// `= note:`, `help:`) begin otherwise, so an error is counted once however
/// long it is. rustc's summary lines (`error: aborting due to N previous
/// errors`, `error: could not compile ...`) are not errors of the case:
/// trybuild leaves them out of snapshots, and they are not counted if one
/// ever shows them.
pub fn errors_in(stderr: &str) -> usize {
    stderr
        .lines()
        .filter(|line| line.starts_with("error:") || line.starts_with("error["))
        .filter(|line| {
            !line.starts_with("error: aborting due to")
                && !line.starts_with("error: could not compile")
        })
        .count()
}

/// Lines that start a warning (`warning:`, `warning[...]`), counted the same
/// way. No case expects one: a warning in a snapshot is noise beside its
/// errors (an import reported unused because a failed expansion dropped
/// what used it).
pub fn warnings_in(stderr: &str) -> usize {
    stderr
        .lines()
        .filter(|line| line.starts_with("warning:") || line.starts_with("warning["))
        .filter(|line| !line.contains("warning emitted") && !line.contains("warnings emitted"))
        .count()
}

/// Checks every case `fail/*.rs` under `dir` against `expected` (the case's
/// file stem and its number of errors): each case is listed, its snapshot
/// shows exactly that many errors and no warning, and each listed case
/// exists. Every problem is reported at once.
pub fn check(dir: &Path, expected: &[(&str, usize)]) {
    let fail = dir.join("fail");
    let mut cases: Vec<String> = std::fs::read_dir(&fail)
        .unwrap_or_else(|error| panic!("reading {}: {error}", fail.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| {
            path.file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    cases.sort();
    let mut problems = String::new();
    for case in &cases {
        let Some(&(_, declared)) = expected.iter().find(|(name, _)| name == case) else {
            let _ = writeln!(
                problems,
                "fail/{case}.rs is not listed: add (\"{case}\", N), N the number of mistakes it makes"
            );
            continue;
        };
        let snapshot = fail.join(format!("{case}.stderr"));
        let Ok(stderr) = std::fs::read_to_string(&snapshot) else {
            let _ = writeln!(
                problems,
                "fail/{case}.rs has no snapshot fail/{case}.stderr"
            );
            continue;
        };
        let errors = errors_in(&stderr);
        if errors != declared {
            let _ = writeln!(
                problems,
                "fail/{case}.stderr shows {errors} errors, and the case declares {declared}: \
                 fix the macro if an error repeats another (a cascade), or the number if the \
                 case makes another mistake"
            );
        }
        let warnings = warnings_in(&stderr);
        if warnings != 0 {
            let _ = writeln!(
                problems,
                "fail/{case}.stderr shows {warnings} warnings; no case expects one"
            );
        }
    }
    for (name, _) in expected {
        if !cases.iter().any(|case| case == name) {
            let _ = writeln!(
                problems,
                "({name:?}, _) is listed, and fail/{name}.rs does not exist"
            );
        }
    }
    assert!(
        problems.is_empty(),
        "error counts of the snapshots:\n{problems}"
    );
}

#[cfg(test)]
mod tests {
    use super::{errors_in, warnings_in};

    #[test]
    fn counts_each_diagnostic_once_and_no_summary() {
        let stderr = "\
error: unknown surface `kanbn-task`
 --> fail/case.rs:9:24
  |
9 | #[tool_group(surface = \"kanbn-task\")]
  |                        ^^^^^^^^^^^^
  = note: error: this note is indented

error[E0277]: `Desk` has no profile vocabulary
 --> fail/case.rs:12:6

warning: unused import: `tool`
error: aborting due to 2 previous errors
error: could not compile `case` (bin \"case\") due to 2 previous errors
warning: 1 warning emitted
";
        assert_eq!(errors_in(stderr), 2);
        assert_eq!(warnings_in(stderr), 1);
    }
}
