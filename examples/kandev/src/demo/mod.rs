//! `kandev-mcp demo`: one agent session walked through Kandev's situations,
//! with a real rmcp client connected in-process, printing what changes; a
//! plugin tool joins and leaves with the backend's plugin catalog.

mod plugin;

use std::io::Write;
use std::time::Duration;

use mcp_profiles::{ProfileContext, ProfileController};
use rmcp::model::{CallToolRequestParams, ClientConfig, JsonObject, ProtocolVersion};
use rmcp::service::{NotificationContext, RoleClient, ServiceError};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::json;
use tokio::sync::watch;

use crate::resolver::{Purpose, SessionFacts, resolve};
use crate::server::{Kandev, Provider, Surface};

/// Counts `notifications/tools/list_changed`.
struct Client {
    notifications: watch::Sender<usize>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.notifications.send_modify(|count| *count += 1);
    }
}

/// What one step of the walk changes.
enum Change {
    /// The backend resolves this context for the session.
    Profile(ProfileContext<Kandev>),
    /// The backend sends this revision of the plugin catalog, with or
    /// without the demo plugin's tool.
    Plugins { revision: u64, with_tool: bool },
}

/// The steps of the walk: a label and what changes.
fn steps() -> Vec<(&'static str, Change)> {
    let mut steps: Vec<(&'static str, Change)> = profiles()
        .into_iter()
        .map(|(label, context)| (label, Change::Profile(context)))
        .collect();
    let plugins = |revision, with_tool| Change::Plugins {
        revision,
        with_tool,
    };
    steps.insert(1, ("plugin catalog: Acme.Jira arrives", plugins(1, true)));
    steps.insert(5, ("plugin catalog: Acme.Jira leaves", plugins(2, false)));
    steps
}

/// The profiles of the walk: a label and the context the backend resolves.
fn profiles() -> Vec<(&'static str, ProfileContext<Kandev>)> {
    let task = |autopilot, has_direct_parent, title_owner| SessionFacts {
        purpose: Purpose::Task,
        autopilot,
        has_direct_parent,
        title_owner,
        providers: vec![Provider::Github],
        ..SessionFacts::default()
    };
    vec![
        ("normal task", resolve(&task(false, false, false))),
        ("title owner", resolve(&task(false, false, true))),
        ("autopilot child", resolve(&task(true, true, false))),
        ("autopilot root", resolve(&task(true, false, false))),
        (
            "office",
            resolve(&SessionFacts {
                purpose: Purpose::Office,
                ..SessionFacts::default()
            }),
        ),
        (
            "configuration",
            resolve(&SessionFacts {
                purpose: Purpose::Config,
                ..SessionFacts::default()
            }),
        ),
        ("external", ProfileContext::new(Surface::External)),
    ]
}

/// Runs the walk, writing the report to `out`.
pub async fn run(out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let steps = steps();
    let (first_label, first) = profiles()[0];
    let controller = ProfileController::<Kandev>::new(first);
    let (plugins, backend) = plugin::backend().await?;
    let (server_io, client_io) = tokio::io::duplex(256 * 1024);
    let server = controller.server(Kandev::demo());
    let serving = tokio::spawn(async move {
        let running = server.serve(server_io).await?;
        running.waiting().await?;
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    });
    let (notifications, mut received) = watch::channel(0);
    let client = Client { notifications }.serve(client_io).await?;

    for (index, (label, change)) in steps.iter().enumerate() {
        writeln!(out, "{}. {label}", index + 1)?;
        let before = *received.borrow();
        let (added, removed, changed) = match change {
            Change::Profile(context) => {
                writeln!(out, "   profile:  {}", context.to_json())?;
                if *label == first_label {
                    (Vec::new(), Vec::new(), false)
                } else {
                    let change = controller.replace(*context);
                    let mut added = owned(&change.diff.added);
                    added.extend(change.runtime.added.iter().cloned());
                    let mut removed = owned(&change.diff.removed);
                    removed.extend(change.runtime.removed.iter().cloned());
                    (added, removed, change.changed())
                }
            }
            Change::Plugins {
                revision,
                with_tool,
            } => {
                let snapshot = plugin::snapshot(*revision, *with_tool);
                writeln!(
                    out,
                    "   catalog:  generation {:?}, revision {revision}, {} tool(s)",
                    snapshot.generation,
                    snapshot.tools.len()
                )?;
                let installed = plugins.install(&controller, snapshot)?;
                let diff = installed.diff.clone();
                (diff.added, diff.removed, installed.changed())
            }
        };
        if index > 0 {
            let expected = before + usize::from(changed);
            tokio::time::timeout(
                Duration::from_secs(5),
                received.wait_for(|count| *count >= expected),
            )
            .await??;
            writeln!(out, "   added:    {}", list(&added))?;
            writeln!(out, "   removed:  {}", list(&removed))?;
        }
        let listed = client.list_all_tools().await?;
        writeln!(
            out,
            "   tools:    {} (the client lists {})",
            controller.tools().len(),
            listed.len()
        )?;
        writeln!(
            out,
            "   list_changed received: {}",
            *received.borrow() - before
        )?;
        match *label {
            "plugin catalog: Acme.Jira arrives" => {
                let name = plugin::tool_name();
                let issue = json!({ "summary": "Flaky login test" });
                let reply = call(&client, &name, issue).await;
                writeln!(out, "   {name} → {reply}")?;
            }
            "autopilot child" => {
                let questions = json!({ "questions": [{ "question": "Which branch?", "options": ["main", "dev"] }] });
                let reply = call(&client, "ask_parent_question_kandev", questions).await;
                writeln!(out, "   ask_parent_question_kandev → {reply}")?;
            }
            "autopilot root" => {
                let questions = json!({ "questions": [{ "question": "Which branch?" }] });
                let reply = call(&client, "ask_parent_question_kandev", questions).await;
                writeln!(out, "   ask_parent_question_kandev → {reply}")?;
            }
            _ => {}
        }
        writeln!(out)?;
    }
    client.cancel().await?;
    serving.abort();
    backend.abort();
    Ok(())
}

fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

/// `names`, counted and wrapped to fit a terminal under the label column.
fn list(names: &[String]) -> String {
    if names.is_empty() {
        return "(none)".to_owned();
    }
    let mut out = format!("{}:", names.len());
    let mut width = out.len();
    for name in names {
        if width + name.len() + 1 > 88 {
            out.push_str("\n             ");
            width = 0;
        }
        out.push(' ');
        out.push_str(name);
        width += name.len() + 1;
    }
    out
}

/// Calls a tool, describing the outcome in one line.
async fn call(
    client: &rmcp::service::RunningService<RoleClient, Client>,
    tool: &str,
    arguments: serde_json::Value,
) -> String {
    let serde_json::Value::Object(arguments) = arguments else {
        unreachable!("demo arguments are objects")
    };
    let params = CallToolRequestParams::new(tool.to_owned())
        .with_arguments(JsonObject::from_iter(arguments));
    match client.call_tool(params).await {
        Ok(result) => result
            .content
            .iter()
            .filter_map(|content| content.as_text().map(|text| text.text.clone()))
            .collect::<Vec<_>>()
            .join(" "),
        Err(ServiceError::McpError(error)) => format!("error {}: {}", error.code.0, error.message),
        Err(other) => format!("transport error: {other}"),
    }
}
