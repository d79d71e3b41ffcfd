//! Every key form, a self type written as a path from another module, and the
//! default group name taken from the module: compiles, and `main` checks the
//! rules and names the registry holds.

#[path = "../support.rs"]
mod server;

mod plan_tools {
    use mcp_profiles::tool_group;
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[tool_group(surfaces = ["kanban-task", "office-task"])]
    impl crate::server::Kandev {
        #[tool(description = "Read the plan")]
        async fn get_task_plan_kandev(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }
}

mod more {
    use mcp_profiles::tool_group;
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    use crate::server::Kandev;

    #[tool_group(
        name = "title-and-provider",
        surface = "kanban-task",
        capability = "task-title",
        capability = "user-question",
        provider = "github"
    )]
    impl Kandev {
        #[tool(description = "Set the title")]
        fn set_task_title_kandev(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }

    #[tool_group(name = "any-surface", capabilities = ["parent-question"])]
    impl Kandev {
        #[tool(description = "Ask the parent")]
        async fn ask_parent_question_kandev(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }

    #[tool_group(name = "provider-only", provider = "gitlab")]
    impl Kandev {
        #[tool(description = "Read the merge request")]
        async fn get_mr_kandev(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }

    #[tool_group(name = "everywhere", always)]
    impl Kandev {
        #[tool(description = "Report the server version")]
        async fn version_kandev(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }

    #[tool_group(
        name = "forge",
        title = "Forge",
        description = "The task's branch on its forge",
        surface = "kanban-task",
        providers = ["github", "gitlab"]
    )]
    impl Kandev {
        #[tool(description = "Read the branch")]
        async fn get_branch_kandev(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }

    #[tool_group(
        name = "any-question",
        capability = "task-title",
        any_capability = ["user-question", "parent-question"],
    )]
    impl Kandev {
        #[tool(description = "Ask whoever can answer")]
        async fn ask_kandev(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }
}

mod always_on {
    use mcp_profiles::tool_group;
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, tool};

    #[tool_group(always)]
    impl crate::server::Kandev {
        #[tool(description = "Say hello")]
        async fn hello_kandev(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![]))
        }
    }
}

use mcp_profiles::{ProfileContext, Vocabulary};
use server::{Capability, Kandev, Provider, Surface};

fn main() {
    // What a person reads of a group, where it says.
    let forge = Kandev::registry().group("forge").expect("a group");
    assert_eq!(forge.title(), Some("Forge"));
    assert_eq!(forge.description(), Some("The task's branch on its forge"));
    let plans = Kandev::registry().group("plan-tools").expect("a group");
    assert_eq!((plans.title(), plans.description()), (None, None));

    let rules: Vec<(&str, String)> = Kandev::registry()
        .groups()
        .iter()
        .map(|g| (g.name(), g.rule().to_string()))
        .collect();
    assert_eq!(
        rules,
        [
            ("always-on", "always".to_owned()),
            (
                "any-question",
                "capability(task-title) & (capability(user-question) | capability(parent-question))"
                    .to_owned()
            ),
            ("any-surface", "capability(parent-question)".to_owned()),
            ("everywhere", "always".to_owned()),
            (
                "forge",
                "surface(kanban-task) & (provider(github) | provider(gitlab))".to_owned()
            ),
            ("plan-tools", "surface(kanban-task) | surface(office-task)".to_owned()),
            ("provider-only", "provider(gitlab)".to_owned()),
            (
                "title-and-provider",
                "surface(kanban-task) & capability(user-question) & capability(task-title) \
                 & provider(github)"
                    .to_owned()
            ),
        ]
    );

    let context = ProfileContext::<Kandev>::new(Surface::KanbanTask)
        .with_capabilities([Capability::TaskTitle, Capability::UserQuestion])
        .unwrap()
        .with_providers([Provider::Github, Provider::Gitlab]);
    let profile = Kandev::registry().assemble(&context);
    assert_eq!(
        profile.tool_names(),
        [
            "ask_kandev",
            "get_branch_kandev",
            "get_mr_kandev",
            "get_task_plan_kandev",
            "hello_kandev",
            "set_task_title_kandev",
            "version_kandev",
        ]
    );

    // Nothing held or attached, off every listed surface: only always-on.
    let bare = ProfileContext::<Kandev>::new(Surface::External);
    assert_eq!(
        Kandev::registry().assemble(&bare).tool_names(),
        ["hello_kandev", "version_kandev"]
    );
}
