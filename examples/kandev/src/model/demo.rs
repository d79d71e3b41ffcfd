//! The demo board every fresh store starts from.

use super::board::Board;
use super::entities::*;

impl Board {
    /// Workspace `ws-1` with repository `repo-1`, workflow `wf-1` and its
    /// four steps; the tasks:
    ///
    /// | task | kind |
    /// |---|---|
    /// | `task-1` | autopilot root, parent of `task-2` and `task-3` |
    /// | `task-2`, `task-3` | autopilot children of `task-1` |
    /// | `task-4` | a normal task |
    /// | `task-5` | an office task |
    /// | `task-6` | a task whose title `session-2` owns |
    ///
    /// `session-1` runs on `task-2`, `session-2` on `task-6`; a plan and a
    /// document on `task-1`, an agent, an executor, two shared prompts (the
    /// built-in `code-review` and the editable `release-notes`), a pending
    /// permission, and the coordinator ledger of `task-1` (proposals, a
    /// stall of `task-3`, turns), for sessions on the `coordinator` surface
    /// bound to it.
    pub(crate) fn demo() -> Self {
        let mut board = Board {
            // Fresh ids count from here, past the seeded `task-1`..`task-6`,
            // `session-1`, `session-2` and `profile-1`: a fresh id must never
            // replace a seeded record.
            sequence: 100,
            ..Board::default()
        };
        board.workspaces.insert(
            "ws-1".into(),
            Workspace {
                id: "ws-1".into(),
                name: "Demo workspace".into(),
            },
        );
        board.repositories.insert(
            "repo-1".into(),
            Repository {
                id: "repo-1".into(),
                workspace_id: "ws-1".into(),
                name: "kandev".into(),
                url: "https://example.invalid/kandev.git".into(),
                default_branch: "main".into(),
            },
        );
        board.workflows.insert(
            "wf-1".into(),
            Workflow {
                id: "wf-1".into(),
                workspace_id: "ws-1".into(),
                name: "Delivery".into(),
                description: "Backlog to done".into(),
            },
        );
        for (position, (id, name)) in [
            ("step-backlog", "Backlog"),
            ("step-doing", "In progress"),
            ("step-review", "Review"),
            ("step-done", "Done"),
        ]
        .into_iter()
        .enumerate()
        {
            board.steps.insert(
                id.into(),
                WorkflowStep {
                    id: id.into(),
                    workflow_id: "wf-1".into(),
                    name: name.into(),
                    position: position as u32,
                    settings: Object::new(),
                },
            );
        }
        let task = |id: &str, title: &str, parent: Option<&str>, step: &str| Task {
            id: id.into(),
            workspace_id: "ws-1".into(),
            workflow_id: "wf-1".into(),
            workflow_step_id: step.into(),
            title: title.into(),
            description: String::new(),
            state: "in_progress".into(),
            parent_id: parent.map(Into::into),
            position: 0,
            archived: false,
            autopilot: true,
            office: false,
            title_owner_session: None,
            deferred_launch_prompt: None,
            repository_id: Some("repo-1".into()),
            base_branch: Some("main".into()),
            launch: Object::new(),
            metadata: Object::new(),
        };
        for task in [
            task("task-1", "Ship typed tool profiles", None, "step-doing"),
            task("task-2", "Write the registry", Some("task-1"), "step-doing"),
            task(
                "task-3",
                "Write the runtime",
                Some("task-1"),
                "step-backlog",
            ),
            Task {
                autopilot: false,
                ..task("task-4", "Fix the flaky login test", None, "step-backlog")
            },
            Task {
                autopilot: false,
                office: true,
                ..task("task-5", "Write the quarterly report", None, "step-doing")
            },
            Task {
                autopilot: false,
                title_owner_session: Some("session-2".into()),
                ..task("task-6", "Untitled task", None, "step-backlog")
            },
        ] {
            board.tasks.insert(task.id.clone(), task);
        }
        let sequence = board.next_sequence();
        board.sessions.insert(
            "session-1".into(),
            TaskSession {
                id: "session-1".into(),
                task_id: "task-2".into(),
                name: "main".into(),
                agent_profile_id: Some("profile-1".into()),
                running: true,
                sequence,
            },
        );
        let sequence = board.next_sequence();
        board.sessions.insert(
            "session-2".into(),
            TaskSession {
                id: "session-2".into(),
                task_id: "task-6".into(),
                name: "main".into(),
                agent_profile_id: Some("profile-1".into()),
                running: true,
                sequence,
            },
        );
        board.plans.insert(
            "task-1".into(),
            Plan {
                task_id: "task-1".into(),
                title: "Plan".into(),
                content: "1. Registry\n2. Runtime\n3. Kandev example".into(),
                version: Plan::first_version(),
            },
        );
        board.documents.insert(
            ("task-1".into(), "spec".into()),
            Document {
                task_id: "task-1".into(),
                key: "spec".into(),
                title: "Specification".into(),
                kind: "markdown".into(),
                content: "Profiles are typed.".into(),
            },
        );
        board.agents.insert(
            "agent-1".into(),
            Agent {
                id: "agent-1".into(),
                name: "claude-code".into(),
                supports_mcp: true,
                mcp_config_path: None,
            },
        );
        board.agent_profiles.insert(
            "profile-1".into(),
            AgentProfile {
                id: "profile-1".into(),
                agent_id: "agent-1".into(),
                name: "default".into(),
                model: Some("sonnet".into()),
                auto_approve: false,
            },
        );
        board.executors.insert(
            "executor-1".into(),
            Executor {
                id: "executor-1".into(),
                name: "local".into(),
            },
        );
        board.executor_profiles.insert(
            "executor-profile-1".into(),
            ExecutorProfile {
                id: "executor-profile-1".into(),
                executor_id: "executor-1".into(),
                name: "worktree".into(),
                mcp_policy: None,
                config: Object::new(),
                prepare_script: None,
                cleanup_script: None,
            },
        );
        for (name, content, built_in) in [
            (
                "code-review",
                "Review the change for correctness, tests and naming.",
                true,
            ),
            (
                "release-notes",
                "Summarise the merged changes for users.",
                false,
            ),
        ] {
            board.shared_prompts.insert(
                name.into(),
                SharedPrompt {
                    name: name.into(),
                    content: content.into(),
                    built_in,
                    agent_editable: !built_in,
                },
            );
        }
        board.permissions.push(PermissionPrompt {
            task_id: "task-2".into(),
            session_id: "session-1".into(),
            request_id: "request-1".into(),
            pending_id: "pending-1".into(),
            title: "Run `cargo test`?".into(),
            options: vec!["allow".into(), "deny".into()],
            chosen: None,
        });
        super::demo_coordinator::seed(&mut board);
        board
    }
}
