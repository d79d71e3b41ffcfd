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
    assert!(names.contains(&"report_change_request_auto_fix_outcome_kandev"));
    assert!(!names.contains(&"ask_user_question_kandev"));
}

#[test]
fn explain_shows_every_group_and_its_deciding_condition() {
    use mcp_profiles::Vocabulary;
    let output = stdout(&["explain", "--profile", r#"{"surface":"office-task"}"#]);
    let (explained, _cost) = output.split_once("\n\n").expect("groups, then the cost");
    let groups = kandev_mcp::Kandev::registry().groups().len();
    assert_eq!(explained.lines().count(), groups);
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
fn explain_ends_with_what_the_profile_costs_per_tool_and_in_total() {
    let profile = r#"{"surface":"office-task"}"#;
    let output = stdout(&["explain", "--profile", profile]);
    let (_, cost) = output.split_once("\n\n").expect("groups, then the cost");
    let lines: Vec<&str> = cost.lines().collect();
    assert_eq!(lines[0], "cost (o200k_base:mcp-tool-json-v1)");
    assert_eq!(
        lines[1].split_whitespace().collect::<Vec<_>>(),
        ["tool", "bytes", "tokens"]
    );
    // The tools `tools` lists, with the costs its JSON gives.
    let listed = tools_list(&["--profile", profile]);
    let tools = listed["tools"].as_array().unwrap();
    assert_eq!(lines.len(), 2 + tools.len() + 1, "{cost}");
    for (line, tool) in lines[2..].iter().zip(tools) {
        let expected = [
            tool["name"].as_str().unwrap().to_owned(),
            tool["bytes"].to_string(),
            tool["tokens"].to_string(),
        ];
        assert_eq!(line.split_whitespace().collect::<Vec<_>>(), expected);
    }
    let total = format!(
        "total ({}) {} {}",
        tools.len(),
        listed["bytes"],
        listed["tokens"]
    );
    assert_eq!(
        lines.last().unwrap().split_whitespace().collect::<Vec<_>>(),
        total.split(' ').collect::<Vec<_>>()
    );
}

#[test]
fn matrix_lists_every_valid_profile_in_both_formats() {
    let markdown = stdout(&["matrix"]);
    assert_eq!(markdown, kandev_mcp::matrix::markdown());
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&["matrix", "--format", "json"])).unwrap();
    let rows = json.as_array().unwrap();
    assert_eq!(
        rows.len(),
        mcp_profiles::ProfileContext::<kandev_mcp::Kandev>::all().count()
    );
    // Each row's cost is what `tools` gives for its profile.
    let row = &rows[1];
    let listed = tools_list(&["--profile", &row["profile"].to_string()]);
    assert_eq!(
        (&row["bytes"], &row["tokens"]),
        (&listed["bytes"], &listed["tokens"])
    );
}

#[test]
fn bad_input_exits_2_with_one_line_naming_it() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["tools", "--profile", r#"{"surface":"kanban"}"#],
            "error: unknown surface `kanban`; expected one of: kanban-task, office-task, configuration, external, automation, coordinator, managed-conversation at line 1 column 19\n",
        ),
        (
            &["tools", "--mode", "planning"],
            "error: unknown mode `planning`; expected one of: task, task-title-pending, config, office, external, automation, coordinator\n",
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
            "error: unknown capability `task`; expected one of: user-question, parent-question, task-title, canvas-authoring at line 1 column 44\n",
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
        "--policy",
        "--deny",
        "--present-without-suffix",
    ] {
        assert!(serve.contains(flag), "{flag} missing from serve --help");
    }
    let tools = stdout(&["tools", "--help"]);
    for flag in [
        "--policy",
        "--deny",
        "--present-without-suffix",
        "--format",
        "read-only",
        "no-destructive",
    ] {
        assert!(tools.contains(flag), "{flag} missing from tools --help");
    }
}

/// Every command that prints, with arguments that make it print.
const PRINTING: [&[&str]; 8] = [
    &["matrix"],
    &["matrix", "--format", "json"],
    &["tools", "--mode", "task"],
    &[
        "tools",
        "--mode",
        "task",
        "--policy",
        "read-only",
        "--format",
        "json",
    ],
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

/// `kandev-mcp tools ARGS --format json`, parsed: the tools, their costs
/// and the totals.
fn tools_list(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["tools"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    serde_json::from_str(&stdout(&all)).expect("tools --format json prints a JSON object")
}

/// [`tools_list`]'s tools: one entry per tool.
fn tools_json(args: &[&str]) -> Vec<serde_json::Value> {
    match tools_list(args) {
        serde_json::Value::Object(mut list) => match list.remove("tools") {
            Some(serde_json::Value::Array(tools)) => tools,
            other => panic!("no tools array: {other:?}"),
        },
        other => panic!("not an object: {other}"),
    }
}

/// A hint of an entry of [`tools_json`].
fn hint(tool: &serde_json::Value, name: &str) -> Option<bool> {
    tool["annotations"][name].as_bool()
}

#[test]
fn tools_json_gives_every_tool_its_annotations_as_mcp_sends_them() {
    let tools = tools_json(&["--mode", "external"]);
    let names: Vec<&str> = tools
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(
        names.join("\n") + "\n",
        stdout(&["tools", "--mode", "external"]),
        "the same tools, in the same order, as the text form"
    );
    for tool in &tools {
        let fields: Vec<&String> = tool.as_object().unwrap().keys().collect();
        assert_eq!(fields, ["annotations", "bytes", "name", "tokens"], "{tool}");
        for name in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(hint(tool, name).is_some(), "{tool} has no {name}");
        }
    }
}

#[test]
fn tools_json_gives_what_each_tool_and_the_whole_list_cost() {
    let list = tools_list(&["--mode", "task"]);
    assert_eq!(list["estimator"], "o200k_base:mcp-tool-json-v1");
    let tools = list["tools"].as_array().unwrap();
    let sum = |field: &str| -> u64 { tools.iter().map(|tool| tool[field].as_u64().unwrap()).sum() };
    // Tokens add up per tool; bytes are the `tools` array's: each
    // definition, a comma between two, and the brackets.
    assert_eq!(list["tokens"].as_u64().unwrap(), sum("tokens"));
    assert_eq!(
        list["bytes"].as_u64().unwrap(),
        sum("bytes") + tools.len() as u64 - 1 + 2
    );
    assert!(
        tools
            .iter()
            .all(|tool| tool["tokens"].as_u64().unwrap() > 0)
    );
    // Within the budget `kanban-task` declares.
    assert!(
        list["tokens"].as_u64().unwrap() <= 10_250,
        "{}",
        list["tokens"]
    );
    // A presentation lists shorter names, so the same tools cost less; a
    // policy lists fewer tools.
    let presented = tools_list(&["--mode", "task", "--present-without-suffix"]);
    assert_eq!(presented["tools"].as_array().unwrap().len(), tools.len());
    assert!(presented["bytes"].as_u64() < list["bytes"].as_u64());
    let read_only = tools_list(&["--mode", "task", "--policy", "read-only"]);
    assert!(read_only["tokens"].as_u64() < list["tokens"].as_u64());
}

#[test]
fn tools_under_read_only_lists_only_read_only_tools_and_fewer_of_them() {
    let all = tools_json(&["--mode", "task"]);
    let read_only = tools_json(&["--mode", "task", "--policy", "read-only"]);
    assert!(!read_only.is_empty());
    assert!(read_only.len() < all.len(), "{read_only:?}");
    for tool in &read_only {
        assert_eq!(hint(tool, "readOnlyHint"), Some(true), "{tool}");
    }
    // Exactly the read-only tools of the unrestricted profile.
    let expected: Vec<&serde_json::Value> = all
        .iter()
        .filter(|tool| hint(tool, "readOnlyHint") == Some(true))
        .collect();
    assert_eq!(read_only.iter().collect::<Vec<_>>(), expected);
}

#[test]
fn tools_under_no_destructive_lists_no_destructive_tool() {
    let all = tools_json(&["--mode", "task"]);
    let kept = tools_json(&["--mode", "task", "--policy", "no-destructive"]);
    assert!(!kept.is_empty());
    assert!(kept.len() < all.len());
    for tool in &kept {
        assert_ne!(hint(tool, "destructiveHint"), Some(true), "{tool}");
    }
    let removed: Vec<&serde_json::Value> = all.iter().filter(|tool| !kept.contains(tool)).collect();
    assert!(
        removed
            .iter()
            .all(|tool| hint(tool, "destructiveHint") == Some(true)),
        "only destructive tools are removed: {removed:?}"
    );
    // Both policies, comma-separated or repeated: read-only tools are never
    // destructive, so the read-only list.
    let both = tools_json(&["--mode", "task", "--policy", "read-only,no-destructive"]);
    let repeated = tools_json(&[
        "--mode",
        "task",
        "--policy",
        "no-destructive",
        "--policy",
        "read-only",
    ]);
    assert_eq!(both, repeated);
    assert_eq!(
        both,
        tools_json(&["--mode", "task", "--policy", "read-only"])
    );
}

#[test]
fn deny_removes_named_tools_and_groups_on_top_of_the_profiles_own_policy() {
    let names = stdout(&[
        "tools",
        "--mode",
        "task",
        "--deny",
        "delete_task_kandev,plan",
    ]);
    let names: Vec<&str> = names.lines().collect();
    for gone in [
        "delete_task_kandev",
        "create_task_plan_kandev",
        "get_task_plan_kandev",
    ] {
        assert!(!names.contains(&gone), "{gone} is served");
    }
    assert!(names.contains(&"list_tasks_kandev"));

    // --deny and --policy add to the profile's own restrictions.
    let profile = r#"{"surface":"kanban-task","policy":{"deny":["review"]}}"#;
    let restricted = stdout(&[
        "tools",
        "--profile",
        profile,
        "--deny",
        "plan",
        "--policy",
        "no-destructive",
    ]);
    for gone in [
        "publish_review_findings_kandev",
        "get_task_plan_kandev",
        "delete_task_kandev",
    ] {
        assert!(!restricted.contains(gone), "{gone} is served");
    }
    assert!(restricted.contains("list_tasks_kandev"));
}

#[test]
fn bad_policy_and_deny_values_exit_2_naming_them() {
    let policies = "expected one of: read-only, no-destructive";
    let cases: [(&[&str], String); 6] = [
        (
            &["tools", "--mode", "task", "--policy", "readonly"],
            format!("error: --policy: unknown policy `readonly`; {policies}\n"),
        ),
        (
            &["tools", "--mode", "task", "--policy", "read-only,"],
            format!("error: --policy: unknown policy ``; {policies}\n"),
        ),
        (
            &["tools", "--mode", "task", "--deny", "delete_tsk_kandev"],
            "error: --deny: unknown tool or tool group `delete_tsk_kandev`; did you mean `delete_task_kandev`?\n".into(),
        ),
        (
            &["tools", "--mode", "task", "--deny", "plan,plan"],
            "error: --deny: `plan` is listed twice\n".into(),
        ),
        // `serve` refuses before it serves anything.
        (
            &["serve", "--policy", "write-only"],
            format!("error: --policy: unknown policy `write-only`; {policies}\n"),
        ),
        (
            &["serve", "--mode", "office", "--deny", "plann"],
            "error: --deny: unknown tool or tool group `plann`; did you mean `plan`?\n".into(),
        ),
    ];
    for (args, expected) in cases {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kandev-mcp"));
        command.args(args);
        let output = exit_within(command, Duration::from_secs(20));
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            expected,
            "{args:?}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn tools_present_without_suffix_lists_names_without_kandev() {
    let full = stdout(&["tools", "--mode", "task"]);
    let presented = stdout(&["tools", "--mode", "task", "--present-without-suffix"]);
    let names: Vec<&str> = presented.lines().collect();
    assert!(full.lines().any(|name| name == "list_tasks_kandev"));
    assert!(names.contains(&"list_tasks"), "{presented}");
    assert!(
        !names.iter().any(|name| name.ends_with("_kandev")),
        "{presented}"
    );
    assert_eq!(names.len(), full.lines().count());
    assert!(names.is_sorted(), "{presented}");

    // The JSON form lists the same names; --deny still takes the full ones.
    let json = tools_json(&[
        "--mode",
        "task",
        "--present-without-suffix",
        "--deny",
        "delete_task_kandev",
    ]);
    let listed: Vec<&str> = json
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(listed.contains(&"list_tasks") && !listed.contains(&"delete_task"));
    assert_eq!(listed.len(), names.len() - 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_present_without_suffix_serves_and_calls_presented_names() {
    use mcp_profiles_tests::client::CallOutcome;
    let server = crate::common::Server::start_with_args(&["--present-without-suffix"]).await;
    let session = server.connect().await;
    let tools = session.tool_names().await;
    assert!(tools.iter().any(|tool| tool == "list_tasks"), "{tools:?}");
    assert!(
        !tools.iter().any(|tool| tool.ends_with("_kandev")),
        "{tools:?}"
    );
    // By the presented name and by the full one: the same tool answers.
    let arguments = serde_json::json!({ "workflow_id": "wf-1" });
    let presented = session.call("list_tasks", Some(arguments.clone())).await;
    let full = session.call("list_tasks_kandev", Some(arguments)).await;
    assert!(
        matches!(&presented, CallOutcome::Ran(texts) if !texts.is_empty()),
        "{presented:?}"
    );
    assert_eq!(presented, full);
}
