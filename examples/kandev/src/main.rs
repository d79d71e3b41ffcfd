//! `kandev-mcp`: Kandev's MCP tool surface on mcp-profiles.

use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use kandev_mcp::file_limit::{self, Uses};
use kandev_mcp::plugins::Backend;
use kandev_mcp::resolver::{Launch, LaunchPurpose, Purpose, SessionFacts, resolve};
use kandev_mcp::served::ServedTask;
use kandev_mcp::store::Store;
use kandev_mcp::{
    Kandev, Provider, control, costs, demo, gateway, legacy, matrix, naming, policy, tool_policies,
};
use mcp_profiles::{DenyList, ProfileContext, Vocabulary};
use mcp_profiles_serve::audit::Attribution;
use mcp_profiles_serve::audit::decisions::DecisionLog;
use mcp_profiles_serve::{AgentStore, MemoryStore, ProfileStore};
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
    /// More log lines on stderr: -v for info (the default, except when
    /// serving over stdio, where only warnings are logged), -vv for debug.
    /// RUST_LOG, when set, decides instead.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
}

/// How many `-v` the command line had (see [`Cli::verbose`]).
static VERBOSITY: std::sync::OnceLock<u8> = std::sync::OnceLock::new();

#[derive(Subcommand)]
enum Command {
    /// Walk one agent session through normal task, a plugin tool arriving,
    /// title owner, autopilot child, autopilot root, the plugin tool
    /// leaving, office, configuration and external, with a real MCP client
    /// connected in-process, printing each profile, its tool count, the
    /// tools added and removed, and the list_changed notifications the
    /// client received.
    Demo,
    /// Create a database holding the demo board and print its tasks as JSON.
    Init {
        /// Where to create it; must not exist.
        #[arg(long, value_name = "PATH")]
        db: PathBuf,
    },
    /// Serve the MCP surface on the demo board, or on one task of a
    /// database (--db, --task), over stdio (the default) or streamable HTTP
    /// at /mcp; optionally with the control API. Without --profile, --mode
    /// or --db it serves the task mode's profile
    /// ({"surface":"kanban-task","capabilities":["user-question"]}).
    Serve(Box<ServeArgs>),
    /// Serve many agents by bearer token over streamable HTTP at /mcp, their
    /// profiles and tokens in memory or, with --store, in Redis shared by
    /// every gateway; agents and tokens are managed by the control API.
    Gateway(GatewayArgs),
    /// Ask the gateways' shared store (--store) or a `serve --db` database
    /// (--db): `explain` a principal's past, `verify` its decisions.
    Trail(TrailArgs),
    /// Print the profile JSON the backend resolves from session facts.
    Resolve(ResolveArgs),
    /// Print a profile's tool names, sorted, one per line (or, with
    /// --format json, each with its annotations and what its definition
    /// costs in bytes and o200k_base tokens, and the totals), under
    /// --policy and --deny.
    Tools(ToolsArgs),
    /// Print every valid profile against the tools it exposes and what they
    /// cost, each surface's token budget and every tool's cost.
    Matrix {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Markdown)]
        format: Format,
    },
    /// Print a control API's OpenAPI 3.1 description (what its
    /// GET /api/v1/openapi.json answers; docs/openapi/ holds both).
    Openapi {
        /// Which control API.
        #[arg(long, value_enum)]
        api: ControlApi,
    },
    /// Print each tool group, on or off for a profile, and the condition
    /// that decided it, then what the profile's tools/list costs, per tool
    /// and in total (bytes, o200k_base tokens).
    Explain {
        /// The profile context as JSON (as `tools --profile` takes it).
        #[arg(long, value_name = "JSON")]
        profile: String,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Markdown,
    Json,
}

/// `tools`' output.
#[derive(Clone, Copy, ValueEnum)]
enum ToolsFormat {
    /// One tool name per line.
    Text,
    /// `{"estimator", "bytes", "tokens", "tools": [{"name", "annotations",
    /// "bytes", "tokens"}]}`, annotations as MCP sends them.
    Json,
}

#[derive(Args)]
struct ToolsArgs {
    #[command(flatten)]
    profile: ProfileArgs,
    #[command(flatten)]
    policy: PolicyArgs,
    #[command(flatten)]
    naming: NamingArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ToolsFormat::Text)]
    format: ToolsFormat,
}

/// How tool names are presented (`tools`, `serve` and `gateway`).
#[derive(Args)]
struct NamingArgs {
    /// List every tool without the `_kandev` suffix (`list_tasks_kandev`
    /// as `list_tasks`), for agents that add the MCP server's name to every
    /// tool themselves; calls by either name reach the tool. Policies and
    /// --deny still take the full names.
    #[arg(long)]
    present_without_suffix: bool,
}

/// Tool search (`serve` and `gateway`).
#[derive(Args)]
struct SearchArgs {
    /// On the configuration, external and automation surfaces, list only
    /// the question tool and two tools of the server's: `search_tools`,
    /// which finds the profile's other tools, and `call_tool`, which calls
    /// one (as does a direct call by its name).
    #[arg(long)]
    tool_search: bool,
}

impl NamingArgs {
    /// The presentation asked for, proven collision-free; `None`: the full
    /// names.
    fn presentation(&self) -> Result<Option<mcp_profiles::Presentation>, Failure> {
        if !self.present_without_suffix {
            return Ok(None);
        }
        let presentation = naming::without_server_suffix()
            .map_err(|err| format!("--present-without-suffix: {err}"))?;
        Ok(Some(presentation))
    }
}

impl SearchArgs {
    /// The tool search asked for; `None`: every tool listed.
    fn tool_search(&self) -> Result<Option<mcp_profiles::ToolSearch<Kandev>>, Failure> {
        if !self.tool_search {
            return Ok(None);
        }
        let search =
            kandev_mcp::search::tool_search().map_err(|err| format!("--tool-search: {err}"))?;
        Ok(Some(search))
    }
}

/// Restrictions added to the profile's own policy (`tools` and `serve`).
#[derive(Args)]
struct PolicyArgs {
    /// Keep only the tools a policy allows: read-only, no-destructive
    /// (repeatable or comma-separated).
    #[arg(long, value_name = "POLICY", value_delimiter = ',')]
    policy: Vec<String>,
    /// Remove these tools and tool groups (names, comma-separated).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    deny: Vec<String>,
}

impl PolicyArgs {
    /// The flags and the deny list, or an error naming the bad value.
    fn parse(&self) -> Result<(Vec<policy::Flag>, DenyList<Kandev>), Failure> {
        let flags = policy::parse_flags(&self.policy).map_err(|err| format!("--policy: {err}"))?;
        let deny = policy::parse_deny(&self.deny).map_err(|err| format!("--deny: {err}"))?;
        Ok((flags, deny))
    }

    /// `context` under these restrictions as well as its own.
    fn apply(&self, context: ProfileContext<Kandev>) -> Result<ProfileContext<Kandev>, Failure> {
        let (flags, deny) = self.parse()?;
        Ok(policy::restrict(context, &flags, deny)?)
    }
}

/// A profile given directly or through a legacy mode.
#[derive(Args)]
#[group(multiple = true)]
struct ProfileArgs {
    /// The profile context as JSON, e.g.
    /// '{"surface":"kanban-task","capabilities":["user-question"],"providers":["github"]}';
    /// Kandev's "coordinator_tool_policy" (a coordinator binding) or
    /// "managed_tool_policy" (a managed conversation's plugin tools) may
    /// ride along, as in its launch metadata.
    #[arg(long, value_name = "JSON", conflicts_with = "mode")]
    profile: Option<String>,
    /// A legacy mode: task, task-title-pending, config, office, external,
    /// automation or coordinator.
    #[arg(long, value_name = "MODE")]
    mode: Option<String>,
    /// With --mode: grant no question capability.
    #[arg(long, requires = "mode")]
    disable_ask_question: bool,
    /// With --mode (or serve's --task): attached providers, comma-separated
    /// (github, gitlab).
    #[arg(long, value_name = "LIST")]
    providers: Option<String>,
}

/// The control APIs `kandev-mcp openapi` describes.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ControlApi {
    /// `serve --control`'s.
    Serve,
    /// `gateway`'s.
    Gateway,
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
    #[command(flatten)]
    policy: PolicyArgs,
    #[command(flatten)]
    naming: NamingArgs,
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    stored: StoredArgs,
    /// Serve the control API (profile, mode and provider updates; with
    /// --task, the stored autopilot and title owner) at ADDR.
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
    /// Serve `GET /metrics` on the control listener without its token.
    #[arg(long, requires = "control")]
    metrics_public: bool,
    /// Log every call decision; with --db in its `decisions` table, beside
    /// the audit trail (`kandev-mcp trail --db FILE verify`).
    #[arg(long)]
    log_decisions: bool,
    #[command(flatten)]
    token_name: TokenNameArgs,
    #[command(flatten)]
    plugins: PluginArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

/// Who the control API's changes are recorded as (`serve` and `gateway`).
#[derive(Args)]
struct TokenNameArgs {
    /// The control token's name, recorded as the actor of every change the
    /// control API makes (the audit trail never holds the token itself).
    #[arg(
        long,
        value_name = "NAME",
        default_value = control::attribution::DEFAULT_TOKEN_NAME,
        env = "KANDEV_MCP_CONTROL_TOKEN_NAME"
    )]
    control_token_name: String,
}

impl TokenNameArgs {
    /// The name, checked against `token`: an actor's name, never the token.
    fn name(&self, token: &str) -> Result<String, Failure> {
        Ok(control::attribution::token_name(
            &self.control_token_name,
            token,
        )?)
    }
}

/// Where plugin-tool calls go (`serve` and `gateway`).
#[derive(Args)]
struct PluginArgs {
    /// Forward plugin-tool calls to this backend: `POST URL` with
    /// {"plugin_id","local_name","invocation_id","surface","arguments"}
    /// (plain http://; plugin tools are installed through the control API).
    #[arg(long, value_name = "URL")]
    plugin_backend: Option<String>,
    /// Milliseconds the plugin backend may take to answer a call; past it
    /// the agent gets a tool error.
    #[arg(long, value_name = "MS", default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..))]
    plugin_timeout_ms: u64,
}

impl PluginArgs {
    /// The backend named, or none (calls then answer a tool error).
    fn backend(&self) -> Result<Backend, String> {
        match &self.plugin_backend {
            Some(url) => Backend::new(url, Duration::from_millis(self.plugin_timeout_ms)),
            None => Ok(Backend::none()),
        }
    }
}

#[derive(Args)]
struct GatewayArgs {
    /// Serve MCP over streamable HTTP at ADDR, path /mcp.
    #[arg(long, value_name = "ADDR")]
    http: SocketAddr,
    /// Keep agents and tokens in Redis (redis://HOST:PORT/DB) or on a Redis
    /// Cluster (redis+cluster://HOST:PORT,HOST:PORT,... naming some of its
    /// nodes, after USER:PASSWORD@ if it needs them), shared with every
    /// gateway using it; in memory without it.
    #[arg(long, value_name = "URL", value_parser = redis_url)]
    store: Option<String>,
    /// Serve the control API (agents and tokens) at ADDR.
    #[arg(long, value_name = "ADDR")]
    control: SocketAddr,
    /// The control API's bearer token; generated and printed to stderr when
    /// not given.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "KANDEV_MCP_CONTROL_TOKEN",
        hide_env_values = true
    )]
    control_token: Option<String>,
    #[command(flatten)]
    token_name: TokenNameArgs,
    /// With --store: milliseconds to keep serving the last applied profiles
    /// after losing Redis; past it, requests are refused until it is back.
    #[arg(long, value_name = "MS", default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(100..))]
    grace_ms: u64,
    /// With --store: this gateway's name among those sharing the store
    /// (unique to it), as a change's answer names the gateways that did not
    /// confirm it [default: HOSTNAME-PID-RANDOM].
    #[arg(long, value_name = "NAME")]
    instance_name: Option<String>,
    /// With --store: how long a change's answer waits for every gateway to
    /// confirm that it applies it; past it the answer is 202, naming those
    /// that did not, and later changes name them without waiting again
    /// until they answer [default: 2 s + one heartbeat].
    #[arg(long, value_name = "MS")]
    propagation_wait_ms: Option<u64>,
    #[command(flatten)]
    plugins: PluginArgs,
    #[command(flatten)]
    limits: LimitArgs,
    /// Every agent's tool names (start every gateway of one store alike).
    #[command(flatten)]
    naming: NamingArgs,
    /// Every agent's tool search (start every gateway of one store alike).
    #[command(flatten)]
    search: SearchArgs,
    /// Identify agents by OAuth access tokens of an identity provider: a
    /// JSON file `{"token": {"issuer": ..., "resource": ...}, "claims":
    /// {...}}` (see the runtime guide's OAuth deployment). The control API
    /// still manages the agents' stored profiles.
    #[arg(long, value_name = "PATH")]
    oauth: Option<PathBuf>,
    /// Serve `GET /metrics` on the control listener without its token.
    #[arg(long)]
    metrics_public: bool,
    /// Count each principal's requests under its own `principal` label
    /// (one series per agent: for a known fleet of agents, not for any
    /// OAuth subject).
    #[arg(long)]
    metrics_principals: bool,
    /// Stamp every list with its revision and digest (`_meta`, README).
    #[arg(long)]
    stamp_exposure: bool,
    /// Serve MCP's grouping extension (`groups/list`; each plugin a group).
    #[arg(long)]
    grouping: bool,
    /// Log every call decision to the store's decision log (`verify`).
    #[arg(long)]
    log_decisions: bool,
}

/// A `redis://` (or `rediss://`) URL, else an error naming it.
fn redis_url(url: &str) -> Result<String, String> {
    if ["redis://", "rediss://", "redis+cluster://"]
        .iter()
        .any(|scheme| url.starts_with(scheme))
    {
        Ok(url.to_owned())
    } else {
        Err(format!(
            "`{url}` is neither a redis://HOST:PORT/DB URL nor a \
             redis+cluster://HOST:PORT,HOST:PORT URL"
        ))
    }
}

/// Bounds on the MCP listener's connections (with --http); the control
/// listener keeps its own, smaller ones, so a saturated MCP port never
/// starves it. The cap is also fitted under the open-file limit at start
/// (see `kandev_mcp::file_limit`).
#[derive(Args)]
struct LimitArgs {
    /// Concurrent connections to the MCP listener; past it, 503. Lowered at
    /// start (with a warning) to what the open-file limit leaves once the
    /// rest of the process is provided for.
    #[arg(long, value_name = "N", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// Milliseconds a client may take to send a request head (and an
    /// HTTP/1 keep-alive connection may wait for its next one).
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout_ms: u64,
    /// Milliseconds a connection may sit with no request in flight.
    #[arg(long, value_name = "MS", default_value_t = 60_000, value_parser = clap::value_parser!(u64).range(1..))]
    idle_timeout_ms: u64,
}

impl LimitArgs {
    fn limits(&self) -> mcp_profiles_serve::http::Limits {
        mcp_profiles_serve::http::Limits::default()
            .with_max_connections(self.max_connections as usize)
            .with_header_read_timeout(Duration::from_millis(self.header_timeout_ms))
            .with_idle_timeout(Duration::from_millis(self.idle_timeout_ms))
            .with_drain_timeout(DRAIN)
    }
}

/// One task of a database: the profile is resolved from its stored state
/// (office, autopilot, parent, title owner) and the launch facts below.
#[derive(Args)]
struct StoredArgs {
    /// The database (`init` creates one); with --task.
    #[arg(long, value_name = "PATH", requires = "task")]
    db: Option<PathBuf>,
    /// The task to serve; its stored state decides the profile.
    #[arg(long, value_name = "ID", requires = "db", conflicts_with_all = ["profile", "mode"])]
    task: Option<String>,
    /// This session's id, one of the task's sessions: it owns the title
    /// when the task names it.
    #[arg(long, value_name = "ID", requires = "task")]
    session: Option<String>,
    /// Why the session exists (office comes from the task).
    #[arg(long, value_enum, requires = "task")]
    purpose: Option<LaunchPurpose>,
    /// The agent's own UI handles questions.
    #[arg(long, requires = "task")]
    passthrough: bool,
}

impl StoredArgs {
    /// The task this `serve` resolves its profile from, if one was named.
    fn open(&self) -> Result<Option<Arc<ServedTask>>, Failure> {
        let (Some(db), Some(task)) = (&self.db, &self.task) else {
            return Ok(None);
        };
        let launch = Launch {
            purpose: self.purpose.unwrap_or_default(),
            session: self.session.clone(),
            passthrough: self.passthrough,
        };
        Ok(Some(Arc::new(ServedTask::open(db, task, launch)?)))
    }
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

/// Why a command stopped early.
enum Failure {
    /// Bad input or a failed write: one `error:` line, exit code 2.
    Message(String),
    /// The reader closed stdout (`| head`): stop quietly with exit code 0,
    /// as Unix tools do.
    StdoutClosed,
}

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(error: E) -> Self {
        Failure::Message(error.to_string())
    }
}

impl Failure {
    /// A failed write to stdout.
    fn write(error: &io::Error) -> Self {
        if error.kind() == io::ErrorKind::BrokenPipe {
            Failure::StdoutClosed
        } else {
            Failure::Message(format!("cannot write to stdout: {error}"))
        }
    }
}

/// Every command's one path to stdout: `write` into the locked stdout, then
/// flush, so a closed or full stdout is an error here, never a panic.
fn emit(write: impl FnOnce(&mut io::StdoutLock<'static>) -> io::Result<()>) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|error| Failure::write(&error))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let _ = VERBOSITY.set(cli.verbose);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let outcome = runtime.block_on(run(cli.command));
    // A blocked stdin read (stdio serving) would hold a plain runtime drop
    // forever; everything that matters has drained by now.
    runtime.shutdown_timeout(Duration::from_millis(500));
    match outcome {
        Ok(()) | Err(Failure::StdoutClosed) => ExitCode::SUCCESS,
        Err(Failure::Message(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

async fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Demo => {
            let mut out = io::stdout().lock();
            let walked = demo::run(&mut out).await;
            match walked.map(|()| out.flush()) {
                Ok(Ok(())) => Ok(()),
                Ok(Err(error)) => Err(Failure::write(&error)),
                // The walk's only I/O errors are its writes to `out`.
                Err(error) => Err(match error.downcast_ref::<io::Error>() {
                    Some(error) => Failure::write(error),
                    None => Failure::Message(error.to_string()),
                }),
            }
        }
        Command::Init { db } => {
            let tasks = Store::create(&db)?.lock().task_states();
            let tasks = serde_json::json!({ "tasks": tasks });
            emit(|out| writeln!(out, "{tasks}"))
        }
        Command::Serve(args) => serve(*args).await,
        Command::Gateway(args) => run_gateway(args).await,
        Command::Trail(args) => trail(args).await,
        Command::Resolve(args) => {
            let facts = SessionFacts {
                purpose: args.purpose,
                autopilot: args.autopilot,
                has_direct_parent: args.has_parent,
                passthrough: args.passthrough,
                title_owner: args.title_owner,
                providers: parse_providers(args.providers.as_deref())?,
            };
            emit(|out| writeln!(out, "{}", resolve(&facts).to_json()))
        }
        Command::Tools(args) => {
            let context = context_of(&args.profile)?.ok_or_else(|| {
                Failure::Message("give the profile with --profile JSON or --mode MODE".into())
            })?;
            let context = args.policy.apply(context)?;
            let presentation = args.naming.presentation()?;
            let profile = Kandev::registry().assemble(&context);
            let tools = costs::listed(&profile, presentation.as_ref());
            emit(|out| match args.format {
                ToolsFormat::Text => tools
                    .iter()
                    .try_for_each(|tool| writeln!(out, "{}", tool.name)),
                ToolsFormat::Json => {
                    let json = serde_json::to_string_pretty(&costs::tools_json(&tools))
                        .map_err(io::Error::other)?;
                    writeln!(out, "{json}")
                }
            })
        }
        Command::Matrix { format } => emit(|out| match format {
            Format::Markdown => write!(out, "{}", matrix::markdown()),
            Format::Json => writeln!(out, "{}", matrix::json()),
        }),
        Command::Openapi { api } => {
            let document = match api {
                ControlApi::Serve => kandev_mcp::control::openapi(),
                ControlApi::Gateway => kandev_mcp::gateway::control::openapi(),
            };
            let text = serde_json::to_string_pretty(&document)
                .map_err(|error| Failure::Message(error.to_string()))?;
            emit(|out| writeln!(out, "{text}"))
        }
        Command::Explain { profile } => {
            let context = tool_policies::context_from_json(&profile)?;
            let explanation = Kandev::registry().explain(&context);
            let cost = costs::explained(&explanation);
            emit(|out| write!(out, "{explanation}{cost}"))
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
    if args.providers.is_some() && args.mode.is_none() {
        return Err(Failure::Message(
            "--providers goes with --mode (or, for serve, --task)".into(),
        ));
    }
    if let Some(json) = &args.profile {
        return Ok(Some(tool_policies::context_from_json(json)?));
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

/// How often `serve --task` checks the database for changes other
/// processes saved to its task.
const FOLLOW_PERIOD: Duration = Duration::from_millis(250);

/// How long `serve` waits, in all, for in-flight requests, sessions and the
/// control listener to end after SIGINT or SIGTERM before it exits anyway.
const DRAIN: Duration = Duration::from_secs(10);

async fn serve(args: ServeArgs) -> Result<(), Failure> {
    // Before anything starts: a token that can never authenticate is refused.
    let token = match args.control_token.filter(|token| !token.is_empty()) {
        Some(token) => Some(usable_token(token)?),
        None => None,
    };
    let backend = args.plugins.backend()?;
    // A bad --policy or --deny, or a colliding presentation, starts nothing.
    let (flags, deny) = args.policy.parse()?;
    let presentation = args.naming.presentation()?;
    let tool_search = args.search.tool_search()?;
    // Handlers are installed now, so a signal arriving while we start up is
    // not lost (or fatal).
    let mut signals = Signals::new()?;
    init_logging(args.http.is_some());
    // Before the database, listeners and backend open anything: what they
    // will hold is in the reserve, what is open now is counted.
    let mcp_limits = match args.http {
        Some(_) => {
            let uses = Uses {
                control: args.control.is_some(),
                sqlite: args.stored.db.is_some(),
                redis: false,
                plugin_backend: args.plugins.plugin_backend.is_some(),
            };
            file_limit::fit(args.limits.limits(), &uses)?
        }
        // No MCP listener to fit; the control listener still gains room.
        None => {
            mcp_profiles_serve::http::raise_file_limit()?;
            args.limits.limits()
        }
    };
    let served = args.stored.open()?;
    let context = match &served {
        Some(served) => served.resolve(parse_providers(args.profile.providers.as_deref())?)?,
        None => match context_of(&args.profile)? {
            Some(context) => context,
            None => legacy::context_for_mode("task", false)?,
        },
    };
    let context = policy::restrict(context, &flags, deny)?;
    // Before the controller registers anything with it.
    if args.control.is_some() {
        kandev_mcp::prometheus::install();
    }
    // The board the sessions work on, which keeps the control API's audit
    // trail: the served task's database, or the demo board in memory.
    let (board, bound_task) = match &served {
        Some(served) => (Arc::clone(served.store()), served.task_id().to_owned()),
        None => (Arc::new(Store::demo()), "task-2".to_owned()),
    };
    // One agent, the task served, in a store of its own: what the control
    // API changes, the board keeping its audit trail.
    let mut profiles = ProfileStore::<Kandev>::default()
        .with_catalogs(kandev_mcp::plugins::catalog_decoder(backend));
    if let Some(presentation) = presentation {
        profiles = profiles.with_presentation(presentation)?;
    }
    if let Some(search) = tool_search {
        profiles = profiles.with_tool_search(search)?;
    }
    if args.log_decisions {
        profiles = profiles.with_decision_log(Arc::new(DecisionLog::new(100_000)));
    }
    let mut agents = MemoryStore::new(profiles).with_audit_trail(Arc::clone(&board) as Arc<_>);
    if args.log_decisions && served.is_some() {
        agents = agents.with_decision_trail(Arc::clone(&board) as Arc<_>);
    }
    // Its start is the trail's first word of this run, at the version after
    // the newest the trail holds: a restart goes on from the last run's.
    let launched = Attribution::new("kandev-mcp-serve", format!("launch-{}", std::process::id()))?;
    let single = control::Single::launch(Arc::new(agents), &bound_task, context, &launched).await?;
    let controller = single.controller();
    let agents = Arc::clone(single.store());
    // The decisions heard, shipped to the database as they come.
    let _shipping = args
        .log_decisions
        .then(|| ship_decisions(Arc::clone(&agents)));
    // Changes other processes save to the task reach the live profile too.
    let _following = served
        .as_ref()
        .map(|served| served.follow(Arc::clone(single.store()), FOLLOW_PERIOD));
    let mut control_server = None;
    if let Some(addr) = args.control {
        let token = token.unwrap_or_else(generated_token);
        let extras = control::Extras {
            task: served.clone(),
            token_name: args.token_name.name(&token)?,
        };
        let scrape = (!args.metrics_public).then_some(token.as_str());
        let app = control::router_with(single, &token, extras)
            .merge(kandev_mcp::prometheus::router(scrape));
        let limits = control::limits().with_drain_timeout(DRAIN);
        let http = mcp_profiles_serve::http::Serve::on(addr)
            .limits(limits)
            .app(app)
            .await?;
        eprintln!("control: http://{}", http.local_addr());
        control_server = Some(http);
    }
    let server = controller.server(Kandev::new(board, bound_task));
    // One deadline for the whole shutdown, from the signal (or the end of the
    // stdio session) on; the control listener stops accepting at once.
    let mut control_stopping = None;
    let mut shutdown = || {
        control_stopping = control_server
            .take()
            .map(|control| tokio::spawn(control.shutdown()));
        tokio::time::Instant::now() + DRAIN
    };
    let deadline = match args.http {
        Some(addr) => {
            let http = mcp_profiles_serve::http::Serve::on(addr)
                .limits(mcp_limits)
                .one(server)
                .await?;
            eprintln!("mcp: http://{}/mcp", http.local_addr());
            signals.next().await;
            let deadline = shutdown();
            drain("the MCP listener", deadline, http.shutdown()).await?;
            deadline
        }
        None => {
            // The handshake waits for the client, so it races the signals too.
            let running = tokio::select! {
                running = server.serve(rmcp::transport::stdio()) => Some(running?),
                () = signals.next() => None,
            };
            if let Some(running) = running {
                let cancel = running.cancellation_token();
                let waiting = running.waiting();
                tokio::pin!(waiting);
                tokio::select! {
                    ended = &mut waiting => {
                        ended?;
                        shutdown()
                    }
                    () = signals.next() => {
                        let deadline = shutdown();
                        cancel.cancel();
                        drain("the stdio session", deadline, async {
                            waiting.await.map(drop).map_err(io::Error::other)
                        })
                        .await?;
                        deadline
                    }
                }
            } else {
                shutdown()
            }
        }
    };
    if let Some(task) = control_stopping {
        drain("the control listener", deadline, async {
            task.await.map_err(io::Error::other)?
        })
        .await?;
    }
    // What is left of the decisions, kept.
    agents.decisions_written().await?;
    Ok(())
}

/// Ships the decisions `agents` heard to its trail every 100 ms.
fn ship_decisions(agents: Arc<MemoryStore<Kandev>>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(Duration::from_millis(100));
        loop {
            ticks.tick().await;
            if let Err(error) = agents.decisions_written().await {
                tracing::warn!(%error, "the decisions heard are kept to be shipped again");
            }
        }
    })
}

/// `kandev-mcp trail`'s arguments.
#[derive(Args)]
struct TrailArgs {
    /// A `serve --db` database to ask, instead of the gateways' store.
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    #[command(subcommand)]
    ask: mcp_profiles_serve::cli::Ask,
}

async fn trail(args: TrailArgs) -> Result<(), Failure> {
    let Some(path) = args.db else {
        return Ok(args.ask.answer::<Kandev>(&mut io::stdout()).await?);
    };
    // The database's trails behind a store of no agent: read, never written.
    let board = Arc::new(Store::open(&path)?);
    let agents = MemoryStore::<Kandev>::default()
        .with_audit_trail(Arc::clone(&board) as Arc<_>)
        .with_decision_trail(board);
    let agents: Arc<dyn AgentStore<Kandev>> = Arc::new(agents);
    Ok(args
        .ask
        .answer_over(agents.as_ref(), &mut io::stdout())
        .await?)
}

async fn run_gateway(args: GatewayArgs) -> Result<(), Failure> {
    let token = match args.control_token.filter(|token| !token.is_empty()) {
        Some(token) => usable_token(token)?,
        None => generated_token(),
    };
    let token_name = args.token_name.name(&token)?;
    let plugin_backend = args.plugins.backend()?;
    // A colliding presentation starts nothing.
    let presentation = args.naming.presentation()?;
    let tool_search = args.search.tool_search()?;
    // Nor does an OAuth configuration that names anything unknown.
    let oauth = args.oauth.as_deref().map(oauth_settings).transpose()?;
    let mut signals = Signals::new()?;
    init_logging(true);
    let uses = Uses {
        control: true,
        redis: args.store.is_some(),
        plugin_backend: args.plugins.plugin_backend.is_some(),
        ..Uses::default()
    };
    let limits = file_limit::fit(args.limits.limits(), &uses)?;
    let config = gateway::Config {
        http: args.http,
        store: args.store,
        control: args.control,
        control_token: token,
        control_token_name: token_name,
        grace: Duration::from_millis(args.grace_ms),
        instance_name: args.instance_name,
        propagation_wait: args.propagation_wait_ms.map(Duration::from_millis),
        plugin_backend,
        limits,
        drain: DRAIN,
        presentation,
        tool_search,
        oauth,
        metrics_public: args.metrics_public,
        principal_metrics: args.metrics_principals,
        stamp_exposure: args.stamp_exposure,
        grouping: args.grouping,
        log_decisions: args.log_decisions,
    };
    Ok(gateway::run(config, signals.next()).await?)
}

/// The `--oauth` file, decoded strictly; an error names the file and what
/// in it is wrong.
fn oauth_settings(
    path: &std::path::Path,
) -> Result<mcp_profiles_serve::oauth::OAuth<Kandev>, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| format!("--oauth {}: {err}", path.display()))?;
    Ok(mcp_profiles_serve::oauth::OAuth::from_json(&text)
        .map_err(|err| format!("--oauth {}: {err}", path.display()))?)
}

/// A fresh control token, printed to stderr.
fn generated_token() -> String {
    let token = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    eprintln!("control-token: {token}");
    token
}

/// Logs to stderr (stdout may be the MCP channel); see
/// `kandev_mcp::logging` for the OpenTelemetry export (feature `otel`),
/// which only a server whose stdout is free (`stdout_free`) may turn on.
fn init_logging(stdout_free: bool) {
    // Over stdio the client shows stderr to its user: quiet unless asked.
    let level = match (VERBOSITY.get().copied().unwrap_or(0), stdout_free) {
        (0, false) => "warn",
        (0 | 1, _) => "info",
        _ => "debug",
    };
    kandev_mcp::logging::init(stdout_free, level);
}

/// Awaits `stopping` until `deadline` at most; past it, says so and moves
/// on, so shutdown takes bounded time.
async fn drain(
    what: &str,
    deadline: tokio::time::Instant,
    stopping: impl Future<Output = io::Result<()>>,
) -> io::Result<()> {
    match tokio::time::timeout_at(deadline, stopping).await {
        Ok(result) => result,
        Err(_) => {
            tracing::warn!("{what} did not drain within {DRAIN:?}; exiting anyway");
            Ok(())
        }
    }
}

/// `token` if an HTTP client can present it: `Authorization` values lose
/// surrounding whitespace and may hold only visible ASCII (0x21-0x7E) in a
/// token. The message names the problem, never the secret.
fn usable_token(token: String) -> Result<String, Failure> {
    if token.trim() != token {
        return Err(Failure::Message(
            "the control token has leading or trailing whitespace, which HTTP strips; \
             it could never authenticate"
                .into(),
        ));
    }
    if let Some((position, _)) = token
        .chars()
        .enumerate()
        .find(|(_, c)| !matches!(c, '\x21'..='\x7e'))
    {
        return Err(Failure::Message(format!(
            "the control token's character {} is not visible ASCII (0x21-0x7E), \
             so it could never authenticate",
            position + 1
        )));
    }
    Ok(token)
}

/// SIGINT and SIGTERM, either of which starts a graceful shutdown.
struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    #[cfg(unix)]
    fn new() -> io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    #[cfg(not(unix))]
    fn new() -> io::Result<Self> {
        Ok(Signals {})
    }

    /// Resolves at the next SIGINT or SIGTERM.
    #[cfg(unix)]
    async fn next(&mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }

    #[cfg(not(unix))]
    async fn next(&mut self) {
        let _ = tokio::signal::ctrl_c().await;
    }
}
