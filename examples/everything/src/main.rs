//! `everything`: an MCP server that implements what the official MCP
//! conformance suites' server scenarios expect, served through the profile
//! layer over streamable HTTP.
//!
//! Resources, templates, subscriptions, prompts, logging and completion are
//! the ordinary rmcp way (a `ServerHandler`, in `handler.rs`); the tools are
//! `#[tool_group]`s under the small vocabulary below, so a profile decides
//! which of them the suite sees. MCP's grouping extension is on, so the
//! suites also check that a client which does not declare it is answered
//! as without it.

mod handler;
mod media;
mod mrtr;
mod tools;

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Parser;
use mcp_profiles::{ProfileContext, ProfileController, Vocabulary};

pub use handler::Everything;

mcp_profiles::vocabulary! {
    server Everything;

    #[surfaces]
    pub enum Surface { Conformance }

    #[capabilities]
    pub enum Capability {
        /// Tools that ask the client mid-call: sampling and elicitation.
        ClientRequests,
        /// Tools that answer with an input-required result (2026-07-28).
        InputRequired,
        /// The tool `test_trigger_tool_change` adds and removes.
        Changing,
    }

    #[providers]
    pub enum Provider {}
}

/// The profile served unless `--profile` says otherwise: every tool.
const FULL_PROFILE: &str =
    r#"{"surface":"conformance","capabilities":["client-requests","input-required"]}"#;

#[derive(Parser)]
#[command(
    name = "everything",
    about = "An MCP server for the official conformance suites, through the profile layer"
)]
struct Cli {
    /// Serve MCP over streamable HTTP at ADDR, path /mcp (e.g. 127.0.0.1:3000).
    #[arg(long, value_name = "ADDR", required_unless_present = "print_tools")]
    http: Option<SocketAddr>,
    /// The profile context as JSON; every tool by default.
    #[arg(long, value_name = "JSON", default_value = FULL_PROFILE)]
    profile: String,
    /// Print the profile's tool names, sorted, one per line, and exit.
    #[arg(long)]
    print_tools: bool,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let context = match ProfileContext::<Everything>::from_json(&cli.profile) {
        Ok(context) => context,
        Err(error) => {
            eprintln!("error: --profile: {error}");
            return ExitCode::from(2);
        }
    };
    if cli.print_tools {
        for name in Everything::registry().assemble(&context).tool_names() {
            println!("{name}");
        }
        return ExitCode::SUCCESS;
    }
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let Some(addr) = cli.http else {
        eprintln!("error: give --http ADDR");
        return ExitCode::from(2);
    };
    match serve(context, addr).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(context: ProfileContext<Everything>, addr: SocketAddr) -> std::io::Result<()> {
    let controller = ProfileController::new(context).with_grouping();
    let handler = Everything::default();
    handler.attach(controller.clone());
    let http = mcp_profiles_serve::http::Serve::on(addr)
        .one(controller.server(handler))
        .await?;
    eprintln!("mcp: http://{}/mcp", http.local_addr());
    tokio::signal::ctrl_c().await?;
    http.shutdown().await
}
