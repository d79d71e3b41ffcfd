//! Always-on and any-of groups written with the real macros: their rules,
//! their profiles, and serving them over an in-process duplex to a real rmcp
//! client.

use std::time::Duration;

use mcp_profiles::{Decision, ProfileContext, ProfileController, Vocabulary};
use mcp_profiles_tests::client::{CallOutcome, Session};
use server::{Capability, Forge, Provider, Surface};

mod server {
    /// A server whose groups use every rule form.
    #[derive(Clone, Default)]
    pub struct Forge;

    impl rmcp::ServerHandler for Forge {}

    mcp_profiles::vocabulary! {
        server Forge;

        #[surfaces]
        pub enum Surface { Task, Office }

        #[capabilities]
        pub enum Capability {
            UserQuestion,
            #[exclusive_with(UserQuestion)]
            ParentQuestion,
            TaskTitle,
        }

        #[providers]
        pub enum Provider { Github, Gitlab, Gitea }
    }
}

mod basics {
    use mcp_profiles::tool_group;
    use rmcp::model::{CallToolResult, ContentBlock};
    use rmcp::{ErrorData, tool};

    use super::server::Forge;

    #[tool_group(always)]
    impl Forge {
        #[tool(description = "Say which server this is")]
        async fn whoami(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![ContentBlock::text("forge")]))
        }
    }

    #[tool_group(name = "code-review", surface = "task", providers = ["github", "gitlab"])]
    impl Forge {
        #[tool(description = "Read the change under review")]
        async fn get_review(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![ContentBlock::text("review")]))
        }
    }

    #[tool_group(name = "ask", any_capability = ["user-question", "parent-question"])]
    impl Forge {
        #[tool(description = "Ask whoever can answer")]
        async fn ask(&self) -> Result<CallToolResult, ErrorData> {
            Ok(CallToolResult::success(vec![ContentBlock::text("asked")]))
        }
    }
}

type Context = ProfileContext<Forge>;

fn context(surface: Surface, capabilities: &[Capability], providers: &[Provider]) -> Context {
    Context::new(surface)
        .with_capabilities(capabilities.iter().copied())
        .unwrap()
        .with_providers(providers.iter().copied())
}

#[test]
fn the_rules_read_as_written() {
    let rules: Vec<(&str, String)> = Forge::registry()
        .groups()
        .iter()
        .map(|group| (group.name(), group.rule().to_string()))
        .collect();
    assert_eq!(
        rules,
        [
            (
                "ask",
                "capability(user-question) | capability(parent-question)".to_owned()
            ),
            ("basics", "always".to_owned()),
            (
                "code-review",
                "surface(task) & (provider(github) | provider(gitlab))".to_owned()
            ),
        ]
    );
}

#[test]
fn profiles_follow_always_and_any_of_rules() {
    use Capability::*;
    use Provider::*;
    use Surface::*;
    let cases: [(Context, &[&str]); 7] = [
        (context(Task, &[], &[]), &["whoami"]),
        (context(Task, &[], &[Gitlab]), &["get_review", "whoami"]),
        (context(Task, &[], &[Gitea]), &["whoami"]),
        (context(Office, &[], &[Github]), &["whoami"]),
        (context(Office, &[ParentQuestion], &[]), &["ask", "whoami"]),
        (context(Task, &[TaskTitle], &[]), &["whoami"]),
        (
            context(Task, &[UserQuestion], &[Github, Gitlab, Gitea]),
            &["ask", "get_review", "whoami"],
        ),
    ];
    for (context, tools) in cases {
        let profile = Forge::registry().assemble(&context);
        assert_eq!(profile.tool_names(), tools, "{context}");
    }
}

#[test]
fn explanations_name_the_unmet_any_of_sets() {
    let explanation = Forge::registry().explain(&context(
        Surface::Task,
        &[Capability::TaskTitle],
        &[Provider::Gitea],
    ));
    let decisions: Vec<(&str, Decision<Forge>)> = explanation
        .rows()
        .map(|(group, decision)| (group.name(), decision))
        .collect();
    assert_eq!(
        decisions,
        [
            (
                "ask",
                Decision::NoCapabilityOf(
                    [Capability::UserQuestion, Capability::ParentQuestion]
                        .into_iter()
                        .collect()
                )
            ),
            ("basics", Decision::Enabled),
            (
                "code-review",
                Decision::NoProviderOf([Provider::Github, Provider::Gitlab].into_iter().collect())
            ),
        ]
    );
    assert_eq!(
        decisions[2].1.to_string(),
        "none of the providers github, gitlab is attached"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attaching_any_listed_provider_serves_the_group() {
    let controller = ProfileController::new(context(Surface::Task, &[], &[Provider::Gitea]));
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = controller.server(Forge);
    tokio::spawn(async move {
        use rmcp::ServiceExt;
        let running = server.serve(server_io).await.expect("server handshake");
        let _ = running.waiting().await;
    });
    let session = Session::connect(client_io).await;
    assert_eq!(session.tool_names().await, ["whoami"]);
    assert_eq!(
        session.call("whoami", None).await,
        CallOutcome::Ran(vec!["forge".to_owned()])
    );

    let replaced = controller.replace(context(
        Surface::Task,
        &[],
        &[Provider::Gitea, Provider::Gitlab],
    ));
    assert!(replaced.changed());
    assert_eq!(
        session
            .wait_for_notifications(1, Duration::from_secs(10))
            .await,
        1
    );
    assert_eq!(session.tool_names().await, ["get_review", "whoami"]);
    assert_eq!(
        session.call("get_review", None).await,
        CallOutcome::Ran(vec!["review".to_owned()])
    );
}
