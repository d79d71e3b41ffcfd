//! `kandev-mcp`: Kandev's MCP tool surface on mcp-profiles.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use kandev_mcp::resolver::{Purpose, SessionFacts, resolve};
use kandev_mcp::{Kandev, Provider, control, demo, legacy, matrix};
use mcp_profiles::{ProfileContext, ProfileController, Vocabulary};
use rmcp::ServiceExt;

#[derive(Parser)]
#[command(
    name = "kandev-mcp",
    version,
    about = "Kandev's MCP tool surface on mcp-profiles: typed profiles, one list_changed per change"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Walk one agent session through normal task, title owner, autopilot
    /// child, autopilot root, office, configuration and external, with a
    /// real MCP client connected in-process, printing each profile, its tool
    /// count, the tools added and removed, and the list_changed notifications
    /// the client received.
    Demo,
    /// Serve the MCP surface on the demo board, over stdio (the default) or
    /// streamable HTTP at /mcp; optionally with the control API.
    Serve(ServeArgs),
    /// Print the profile JSON the backend resolves from session facts.
    Resolve(ResolveArgs),
    /// Print a profile's tool names, sorted, one per line.
    Tools(ProfileArgs),
    /// Print every valid profile against the tools it exposes.
    Matrix {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Markdown)]
        format: Format,
    },
    /// Print each tool group, on or off for a profile, and the condition
    /// that decided it.
    Explain {
        /// The profile context as JSON.
        #[arg(long, value_name = "JSON")]
        profile: String,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Markdown,
    Json,
}

/// A profile given directly or through a legacy mode.
#[derive(Args)]
#[group(multiple = true)]
struct ProfileArgs {
    /// The profile context as JSON, e.g.
    /// '{"surface":"kanban-task","capabilities":["user-question"],"providers":["github"]}'.
    #[arg(long, value_name = "JSON", conflicts_with = "mode")]
    profile: Option<String>,
    /// A legacy mode: task, task-title-pending, config, office or external.
    #[arg(long, value_name = "MODE")]
    mode: Option<String>,
    /// With --mode: grant no question capability.
    #[arg(long, requires = "mode")]
    disable_ask_question: bool,
    /// With --mode: attached providers, comma-separated (github, gitlab).
    #[arg(long, value_name = "LIST", requires = "mode")]
    providers: Option<String>,
}

#[derive(Args)]
struct ServeArgs {
    /// Serve MCP over stdin/stdout (the default).
    #[arg(long, conflicts_with = "http")]
    stdio: bool,
    /// Serve MCP over streamable HTTP at ADDR, path /mcp (e.g. 127.0.0.1:8080).
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    #[command(flatten)]
    profile: ProfileArgs,
    /// Serve the control API (profile, mode and provider updates) at ADDR.
    #[arg(long, value_name = "ADDR")]
    control: Option<SocketAddr>,
    /// The control API's bearer token; generated and printed to stderr when
    /// --control is given without one.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "KANDEV_MCP_CONTROL_TOKEN",
        hide_env_values = true
    )]
    control_token: Option<String>,
}

#[derive(Args)]
struct ResolveArgs {
    /// Why the session exists.
    #[arg(long, value_enum)]
    purpose: Purpose,
    /// The agent runs on autopilot.
    #[arg(long)]
    autopilot: bool,
    /// The task has a direct parent.
    #[arg(long)]
    has_parent: bool,
    /// The agent's own UI handles questions.
    #[arg(long)]
    passthrough: bool,
    /// The session owns the task's title.
    #[arg(long)]
    title_owner: bool,
    /// Attached providers, comma-separated (github, gitlab).
    #[arg(long, value_name = "LIST")]
    providers: Option<String>,
}

/// Bad input: one line naming it, exit code 2.
struct Failure(String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(error: E) -> Self {
        Failure(error.to_string())
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

async fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Demo => {
            let mut out = std::io::stdout().lock();
            demo::run(&mut out)
                .await
                .map_err(|err| Failure(err.to_string()))
        }
        Command::Serve(args) => serve(args).await,
        Command::Resolve(args) => {
            let facts = SessionFacts {
                purpose: args.purpose,
                autopilot: args.autopilot,
                has_direct_parent: args.has_parent,
                passthrough: args.passthrough,
                title_owner: args.title_owner,
                providers: parse_providers(args.providers.as_deref())?,
            };
            println!("{}", resolve(&facts).to_json());
            Ok(())
        }
        Command::Tools(args) => {
            let context = context_of(&args)?.ok_or_else(|| {
                Failure("give the profile with --profile JSON or --mode MODE".into())
            })?;
            for tool in Kandev::registry().assemble(&context).tool_names() {
                println!("{tool}");
            }
            Ok(())
        }
        Command::Matrix { format } => {
            match format {
                Format::Markdown => print!("{}", matrix::markdown()),
                Format::Json => println!("{}", matrix::json()),
            }
            Ok(())
        }
        Command::Explain { profile } => {
            let context = ProfileContext::<Kandev>::from_json(&profile)?;
            print!("{}", Kandev::registry().explain(&context));
            Ok(())
        }
    }
}

fn parse_providers(list: Option<&str>) -> Result<Vec<Provider>, Failure> {
    let Some(list) = list else {
        return Ok(Vec::new());
    };
    list.split(',')
        .map(|name| name.trim().parse::<Provider>().map_err(Failure::from))
        .collect()
}

/// The context `args` names, if any.
fn context_of(args: &ProfileArgs) -> Result<Option<ProfileContext<Kandev>>, Failure> {
    if let Some(json) = &args.profile {
        return Ok(Some(ProfileContext::from_json(json)?));
    }
    let Some(mode) = &args.mode else {
        return Ok(None);
    };
    let context = legacy::context_for_mode(mode, args.disable_ask_question)?;
    let providers: Vec<&str> = args.providers.as_deref().map_or_else(Vec::new, |list| {
        list.split(',')
            .filter(|name| !name.trim().is_empty())
            .collect()
    });
    Ok(Some(legacy::apply_providers(&context, providers)?))
}

async fn serve(args: ServeArgs) -> Result<(), Failure> {
    // stdout may be the MCP channel: logs go to stderr.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let default = legacy::context_for_mode("task", false)?;
    let context = context_of(&args.profile)?.unwrap_or(default);
    let controller = ProfileController::<Kandev>::new(context);
    if let Some(addr) = args.control {
        let token = match args.control_token.filter(|token| !token.is_empty()) {
            Some(token) => token,
            None => {
                let token = format!(
                    "{}{}",
                    uuid::Uuid::new_v4().simple(),
                    uuid::Uuid::new_v4().simple()
                );
                eprintln!("control-token: {token}");
                token
            }
        };
        let listener = tokio::net::TcpListener::bind(addr).await?;
        eprintln!("control: http://{}", listener.local_addr()?);
        let app = control::router(controller.clone(), &token);
        tokio::spawn(async move { axum::serve(listener, app).await });
    }
    let server = controller.server(Kandev::demo());
    match args.http {
        Some(addr) => {
            let http = mcp_profiles::http::serve(server, addr).await?;
            eprintln!("mcp: http://{}/mcp", http.local_addr());
            tokio::signal::ctrl_c().await?;
            http.shutdown().await?;
        }
        None => {
            let running = server.serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
        }
    }
    Ok(())
}
