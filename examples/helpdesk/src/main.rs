//! A help desk's MCP gateway: its tools for many agents over HTTP, the control API,
//! admin page and metrics, in memory or on Redis, OAuth if asked: the library's `Gateway`.

mod tools;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clap::Parser;
use mcp_profiles_serve::cli::Ask;
use mcp_profiles_serve::control::ControlApi;
use mcp_profiles_serve::gateway::{Gateway, shutdown_signal};
use mcp_profiles_serve::{AgentStore, MemoryStore};
use rmcp::ServerHandler;
use rmcp::model::{Implementation, ServerConfig};

/// The help desk: its tickets, shared by every session.
#[derive(Clone, Default)]
pub struct Desk {
    tickets: Arc<Mutex<Vec<tools::Ticket>>>,
}

mcp_profiles::vocabulary! {
    server Desk;

    #[surfaces]
    pub enum Surface { Triage, Support, Customer }

    #[capabilities]
    pub enum Capability { Escalation, Refunds }

    #[providers]
    pub enum Provider { Billing }
}

impl ServerHandler for Desk {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default().with_instructions("Help desk tickets.");
        info.server_info = Implementation::new("helpdesk", env!("CARGO_PKG_VERSION"));
        info
    }
}

/// A help desk's MCP gateway on mcp-profiles.
#[derive(Parser)]
#[command(subcommand_negates_reqs = true)]
struct Args {
    /// Ask the shared store (`explain`, `verify`) instead of serving.
    #[command(subcommand)]
    ask: Option<Ask>,
    /// The MCP listener (`/mcp`).
    #[arg(long, default_value = "127.0.0.1:8080")]
    mcp: SocketAddr,
    /// The control API's listener.
    #[arg(long, default_value = "127.0.0.1:8081")]
    control: SocketAddr,
    /// The control API's bearer token.
    #[arg(
        long,
        env = "HELPDESK_CONTROL_TOKEN",
        required_unless_present = "openapi"
    )]
    control_token: Option<String>,
    /// `memory`, `redis://HOST:PORT/DB` or `redis+cluster://HOST:PORT,...`.
    #[arg(long, default_value = "memory")]
    store: String,
    /// Identify agents by an identity provider's access tokens (a JSON file).
    #[arg(long)]
    oauth: Option<PathBuf>,
    /// Print the control API's OpenAPI 3.1 document and exit.
    #[arg(long)]
    openapi: bool,
}

/// The control API over `store`: the library's, titled for the help desk.
fn control(store: Arc<dyn AgentStore<Desk>>, token: &str) -> ControlApi<Desk> {
    let api = ControlApi::new(store, token)
        .with_admin()
        .with_metrics(false);
    api.titled("helpdesk: control API", "Help desk agents and tokens.")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    if let Some(ask) = args.ask {
        return ask.answer::<Desk>(&mut std::io::stdout()).await;
    }
    if args.openapi {
        let store = Arc::new(MemoryStore::default());
        println!("{:#}", control(store, "describing").openapi());
        return Ok(());
    }
    let token = args.control_token.filter(|token| !token.is_empty());
    let token = token.ok_or("--control-token must not be empty")?;
    let running = Gateway::new(Desk::default())
        .mcp_on(args.mcp)
        .store(Some(args.store))
        .oauth_file(args.oauth.as_deref())?
        .control_with(args.control, move |store| control(store, &token).router())
        .start()
        .await?;
    running.announce();
    running.run_until(shutdown_signal()).await?;
    Ok(())
}
