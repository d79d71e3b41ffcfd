//! The command line: outputs, and bad input exiting 2 with one line naming it.

use std::fs::File;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn kandev(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kandev-mcp"))
        .args(args)
        .output()
        .expect("kandev-mcp runs")
}

fn stdout(args: &[&str]) -> String {
    let output = kandev(args);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn resolve_prints_the_profile_json() {
    assert_eq!(
        stdout(&[
            "resolve",
            "--purpose",
            "task",
            "--autopilot",
            "--has-parent",
            "--providers",
            "github,gitlab"
        ]),
        "{\"surface\":\"kanban-task\",\"capabilities\":[\"parent-question\"],\"providers\":[\"github\",\"gitlab\"]}\n"
    );
    assert_eq!(
        stdout(&["resolve", "--purpose", "config", "--passthrough"]),
        "{\"surface\":\"configuration\",\"capabilities\":[],\"providers\":[]}\n"
    );
}

#[test]
fn tools_prints_sorted_names_one_per_line() {
    let by_mode = stdout(&[
        "tools",
        "--mode",
        "task",
        "--disable-ask-question",
        "--providers",
        "GitHub",
    ]);
    let by_profile = stdout(&[
        "tools",
        "--profile",
        r#"{"surface":"kanban-task","providers":["github"]}"#,
    ]);
    assert_eq!(by_mode, by_profile);
    let names: Vec<&str> = by_mode.lines().collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    assert!(names.contains(&"get_task_pr_automation_kandev"));
    assert!(!names.contains(&"ask_user_question_kandev"));
}

#[test]
fn explain_shows_every_group_and_its_deciding_condition() {
    let explained = stdout(&["explain", "--profile", r#"{"surface":"office-task"}"#]);
    assert_eq!(explained.lines().count(), 25);
    assert!(
        explained
            .lines()
            .any(|line| line.starts_with("on   office-documents")),
        "{explained}"
    );
    assert!(
        explained
            .lines()
            .any(|line| line.starts_with("off  github-pr")
                && line.ends_with("surface office-task is not listed")),
        "{explained}"
    );
}

#[test]
fn matrix_lists_every_valid_profile_in_both_formats() {
    let markdown = stdout(&["matrix"]);
    assert_eq!(markdown, kandev_mcp::matrix::markdown());
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&["matrix", "--format", "json"])).unwrap();
    assert_eq!(
        json.as_array().unwrap().len(),
        mcp_profiles::ProfileContext::<kandev_mcp::Kandev>::all().count()
    );
}

#[test]
fn bad_input_exits_2_with_one_line_naming_it() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["tools", "--profile", r#"{"surface":"kanban"}"#],
            "error: unknown surface `kanban`; expected one of: kanban-task, office-task, configuration, external at line 1 column 19\n",
        ),
        (
            &["tools", "--mode", "planning"],
            "error: unknown mode `planning`; expected one of: task, task-title-pending, config, office, external\n",
        ),
        (
            &["tools", "--mode", "task", "--providers", "github,bitbucket"],
            "error: unknown provider `bitbucket`; expected one of: github, gitlab\n",
        ),
        (
            &["resolve", "--purpose", "task", "--providers", "gitlabb"],
            "error: unknown provider `gitlabb`; expected one of: github, gitlab\n",
        ),
        (
            &[
                "explain",
                "--profile",
                "{\"surface\":\"external\",\"capabilities\":[\"task\"]}",
            ],
            "error: unknown capability `task`; expected one of: user-question, parent-question, task-title at line 1 column 44\n",
        ),
    ];
    for (args, expected) in cases {
        let output = kandev(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            expected,
            "{args:?}"
        );
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn every_command_is_documented_in_help() {
    let help = stdout(&["--help"]);
    for command in ["demo", "serve", "resolve", "tools", "matrix", "explain"] {
        assert!(help.contains(command), "{command} missing from --help");
    }
    let serve = stdout(&["serve", "--help"]);
    for flag in [
        "--stdio",
        "--http",
        "--profile",
        "--mode",
        "--disable-ask-question",
        "--providers",
        "--control",
        "--control-token",
        "KANDEV_MCP_CONTROL_TOKEN",
    ] {
        assert!(serve.contains(flag), "{flag} missing from serve --help");
    }
}

/// Every command that prints, with arguments that make it print.
const PRINTING: [&[&str]; 7] = [
    &["matrix"],
    &["matrix", "--format", "json"],
    &["tools", "--mode", "task"],
    &["resolve", "--purpose", "task"],
    &[
        "explain",
        "--profile",
        r#"{"surface":"kanban-task","providers":["github"]}"#,
    ],
    &["demo"],
    &["--version"],
];

/// Runs `args` with `stdout` as the child's stdout.
fn kandev_into(args: &[&str], stdout: impl Into<Stdio>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kandev-mcp"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("kandev-mcp runs")
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    for args in PRINTING {
        // The reading end is closed before the child starts: its first write
        // fails with EPIPE, as after `| head -c 10` or `| true`.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let output = kandev_into(args, writer);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&output.stderr), "", "{args:?}");
    }
}

#[test]
fn a_full_stdout_is_one_error_line_and_exit_2() {
    // `--version` is clap's own output, not ours.
    for args in &PRINTING[..PRINTING.len() - 1] {
        let full = File::options()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let output = kandev_into(args, full);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: cannot write to stdout: "),
            "{args:?}: {stderr}"
        );
    }
}

/// Runs `command` (stdin closed, output captured); kills it if it has not
/// exited within `limit`, so a server that starts instead of refusing fails
/// the test rather than hanging it.
fn exit_within(mut command: Command, limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kandev-mcp runs");
    let started = std::time::Instant::now();
    while child.try_wait().expect("the child can be polled").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("the child's output")
}

#[test]
fn a_control_token_that_could_never_authenticate_is_refused_at_start() {
    let secret = "s3cret-part";
    for (token, problem) in [
        (format!(" {secret}"), "leading or trailing whitespace"),
        (format!("{secret}\n"), "leading or trailing whitespace"),
        (format!("{secret} x"), "character 12 is not visible ASCII"),
        (
            format!("{secret}\u{7f}"),
            "character 12 is not visible ASCII",
        ),
        (format!("{secret}é"), "character 12 is not visible ASCII"),
    ] {
        for by_env in [false, true] {
            let mut command = Command::new(env!("CARGO_BIN_EXE_kandev-mcp"));
            command.args(["serve", "--http", "127.0.0.1:0", "--control", "127.0.0.1:0"]);
            if by_env {
                command.env("KANDEV_MCP_CONTROL_TOKEN", &token);
            } else {
                command.args(["--control-token", &token]);
            }
            let output = exit_within(command, Duration::from_secs(20));
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{token:?}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{token:?}: {stderr}");
            assert!(stderr.starts_with("error: the control token"), "{stderr}");
            assert!(stderr.contains(problem), "{token:?}: {stderr}");
            assert!(!stderr.contains(secret), "the secret is echoed: {stderr}");
        }
    }
}
