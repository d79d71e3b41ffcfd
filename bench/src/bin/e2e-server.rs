//! The server side of the `e2e` and `startup` benches, a process of its own
//! so that the load generator's CPU is not in the server's runtime.
//!
//! ```text
//! e2e-server SERVER --http ADDR [--threads N] [--profile JSON] [--switch-to JSON]
//! e2e-server SERVER --stdio [--profile JSON]
//! e2e-server registry NAME [controller|router]
//! ```
//!
//! - SERVER `profiled`: Kandev's demo board through mcp-profiles
//!   (`ProfileController::server`), over HTTP with
//!   `mcp_profiles_serve::http::Serve::one`, as `kandev-mcp serve --http` does;
//! - SERVER `plain`: the same tools in a plain rmcp `ToolRouter`
//!   ([`Plain`]), over HTTP through the same listener
//!   (`mcp_profiles_serve::http::Serve::app`), so only the MCP layer differs;
//! - SERVER `plain-axum`: `plain` served with `axum::serve`, as rmcp's
//!   examples serve a `StreamableHttpService` (plus `TCP_NODELAY`, which our
//!   listener sets: without it Nagle's algorithm would delay the SSE
//!   response's last write, a cost of neither MCP layer).
//!
//! Both listeners get the same limits: the defaults of `kandev-mcp serve`,
//! except a one-hour idle timeout so that a client's keep-alive connection
//! survives the rounds of other cells.
//!
//! Over HTTP it prints the bound address on stdout and serves until its
//! stdin closes (the bench holds it, so a crashed bench leaves no server).
//! With `--switch-to JSON` (`profiled` only: the `peers` bench's profile
//! switch), each line read on stdin replaces the profile of every session,
//! alternating between `--profile` and `--switch-to`, and is answered on
//! stdout with `switched N` (N sessions notified); the connection cap is
//! then raised so that thousands of sessions with their SSE streams fit.
//! `--profile` defaults to the profile `kandev-mcp serve` serves without
//! one (legacy mode `task`). `registry NAME [controller|router]` prints the
//! nanoseconds the process's first `NAME::registry()` took (linking and
//! verifying it), its group count, and the nanoseconds of the first build
//! of a `ProfileController` or of the plain `ToolRouter` for the profile
//! (0 without one); NAME is `kandev`, or `groups_100` / `groups_1000` when
//! built with the `synthetic` feature.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use kandev_mcp::Kandev;
use mcp_profiles::{ProfileContext, ProfileController, Term, Vocabulary};
use mcp_profiles_bench::plain::{self, Plain};
use mcp_profiles_serve::http::Limits;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use tokio::io::AsyncReadExt;

#[derive(Clone, Copy, PartialEq)]
enum Server {
    Profiled,
    Plain,
    PlainAxum,
}

enum Transport {
    Http(SocketAddr),
    Stdio,
}

struct Args {
    server: Server,
    transport: Transport,
    threads: Option<usize>,
    profile: Option<String>,
    switch_to: Option<String>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("registry") {
        return registry(
            args.get(1).map(String::as_str),
            args.get(2).map(String::as_str),
        );
    }
    let args = match parse(&args) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = args.threads {
        builder.worker_threads(threads);
    }
    let runtime = builder.enable_all().build().expect("a runtime");
    match runtime.block_on(run(args)) {
        Ok(()) => {
            // A blocked stdin read would hold a plain drop forever.
            runtime.shutdown_timeout(Duration::from_millis(100));
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn parse(args: &[String]) -> Result<Args, String> {
    let server = match args.first().map(String::as_str) {
        Some("profiled") => Server::Profiled,
        Some("plain") => Server::Plain,
        Some("plain-axum") => Server::PlainAxum,
        Some(other) => {
            return Err(format!(
                "unknown server `{other}`: profiled, plain, plain-axum or registry"
            ));
        }
        None => return Err("name a server: profiled, plain, plain-axum or registry".into()),
    };
    let mut transport = None;
    let mut threads = None;
    let mut profile = None;
    let mut switch_to = None;
    let mut rest = args[1..].iter();
    while let Some(flag) = rest.next() {
        let mut value = |name: &str| {
            rest.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--http" => {
                let addr = value("--http")?;
                let addr = addr
                    .parse()
                    .map_err(|_| format!("--http `{addr}` is not an address like 127.0.0.1:0"))?;
                transport = Some(Transport::Http(addr));
            }
            "--stdio" => transport = Some(Transport::Stdio),
            "--threads" => {
                let n = value("--threads")?;
                threads = Some(
                    n.parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| format!("--threads `{n}` is not a positive count"))?,
                );
            }
            "--profile" => profile = Some(value("--profile")?),
            "--switch-to" => switch_to = Some(value("--switch-to")?),
            other => return Err(format!("unknown flag `{other}`")),
        }
    }
    let transport = transport.ok_or("give --http ADDR or --stdio")?;
    if matches!(transport, Transport::Stdio) && server == Server::PlainAxum {
        return Err("plain-axum serves HTTP only".into());
    }
    if switch_to.is_some() && (server != Server::Profiled || matches!(transport, Transport::Stdio))
    {
        return Err("--switch-to needs profiled over --http".into());
    }
    Ok(Args {
        server,
        transport,
        threads,
        profile,
        switch_to,
    })
}

async fn run(args: Args) -> Result<(), String> {
    let context = match &args.profile {
        Some(json) => ProfileContext::<Kandev>::from_json(json).map_err(|e| e.to_string())?,
        None => kandev_mcp::legacy::context_for_mode("task", false).map_err(|e| e.to_string())?,
    };
    match args.transport {
        Transport::Stdio => stdio(args.server, context).await,
        Transport::Http(addr) => {
            let switch_to = match &args.switch_to {
                Some(json) => {
                    Some(ProfileContext::<Kandev>::from_json(json).map_err(|e| e.to_string())?)
                }
                None => None,
            };
            http(args.server, context, switch_to, addr).await
        }
    }
}

/// What `kandev-mcp serve --stdio` runs (minus its CLI, signals and
/// logging), or the plain server on stdio.
async fn stdio(server: Server, context: ProfileContext<Kandev>) -> Result<(), String> {
    let transport = rmcp::transport::stdio();
    let running = match server {
        Server::Profiled => {
            let controller = ProfileController::<Kandev>::new(context);
            let running = controller.server(Kandev::demo()).serve(transport).await;
            running.map_err(|e| e.to_string())?.waiting().await
        }
        _ => {
            let running = Plain::new(Kandev::demo(), &context).serve(transport).await;
            running.map_err(|e| e.to_string())?.waiting().await
        }
    };
    running.map(drop).map_err(|e| e.to_string())
}

async fn http(
    server: Server,
    context: ProfileContext<Kandev>,
    switch_to: Option<ProfileContext<Kandev>>,
    addr: SocketAddr,
) -> Result<(), String> {
    let mut limits = Limits::default().with_idle_timeout(Duration::from_secs(3600));
    if switch_to.is_some() {
        // Each session holds its GET stream besides its POSTs' connection.
        limits = limits.with_max_connections(16_384);
    }
    let mut controller = None;
    let bound = match server {
        Server::Profiled => {
            let made = ProfileController::<Kandev>::new(context);
            let server = made.server(Kandev::demo());
            controller = Some(made);
            let http = mcp_profiles_serve::http::Serve::on(addr)
                .limits(limits)
                .one(server)
                .await;
            Box::new(http.map_err(|e| e.to_string())?) as Box<dyn Bound>
        }
        Server::Plain => {
            let app = plain_app(&context);
            let http = mcp_profiles_serve::http::Serve::on(addr)
                .limits(limits)
                .app(app)
                .await;
            Box::new(http.map_err(|e| e.to_string())?)
        }
        Server::PlainAxum => {
            use axum::serve::ListenerExt;
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| e.to_string())?;
            let local = listener.local_addr().map_err(|e| e.to_string())?;
            let listener = listener.tap_io(|stream| {
                let _ = stream.set_nodelay(true);
            });
            let app = plain_app(&context);
            tokio::spawn(async move { axum::serve(listener, app).await });
            Box::new(local)
        }
    };
    println!("{}", bound.addr());
    if let (Some(controller), Some(other)) = (controller, switch_to) {
        return switch_on_stdin(controller, [context, other]).await;
    }
    // Serve until the bench closes our stdin (or dies).
    let mut stdin = tokio::io::stdin();
    let mut buffer = [0u8; 64];
    while stdin.read(&mut buffer).await.map_err(|e| e.to_string())? > 0 {}
    Ok(())
}

/// Each stdin line switches every session to the other context and answers
/// `switched N` once `replace` returned; until stdin closes.
async fn switch_on_stdin(
    controller: ProfileController<Kandev>,
    contexts: [ProfileContext<Kandev>; 2],
) -> Result<(), String> {
    use std::io::Write as _;
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut next = 1;
    while lines
        .next_line()
        .await
        .map_err(|e| e.to_string())?
        .is_some()
    {
        let notified = controller.replace(contexts[next]).notified_sessions;
        next = 1 - next;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "switched {notified}").map_err(|e| e.to_string())?;
        stdout.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn plain_app(context: &ProfileContext<Kandev>) -> axum::Router {
    plain::router(
        Plain::new(Kandev::demo(), context),
        StreamableHttpServerConfig::default(),
    )
}

/// A listener's address, whichever way it was bound.
trait Bound {
    fn addr(&self) -> SocketAddr;
}

impl Bound for mcp_profiles_serve::http::HttpServer {
    fn addr(&self) -> SocketAddr {
        self.local_addr()
    }
}

impl Bound for SocketAddr {
    fn addr(&self) -> SocketAddr {
        *self
    }
}

/// Times this process's first `registry()` of the named server type, and
/// then, when asked, the first build of what serves the default profile:
/// a `ProfileController` (its route table over every group, the profile's
/// snapshot) or the plain `ToolRouter` (the profile's routes only). Each in
/// a fresh process, since rmcp caches generated schemas per thread.
fn registry(name: Option<&str>, then: Option<&str>) -> ExitCode {
    fn first<S: Vocabulary>(then: Option<&str>) -> Result<(Duration, usize, Duration), String> {
        let started = Instant::now();
        let groups = S::registry().groups().len();
        let registry = started.elapsed();
        let context = || {
            ProfileContext::<S>::from_json(
                r#"{"surface":"kanban-task","capabilities":["user-question"]}"#,
            )
            .or_else(|_| Ok::<_, String>(ProfileContext::new(S::Surface::ALL[0])))
        };
        let started = Instant::now();
        match then {
            None => {}
            Some("controller") => drop(ProfileController::<S>::new(context()?)),
            Some("router") => drop(mcp_profiles_bench::native_router(
                S::registry(),
                &context()?,
            )),
            Some(other) => return Err(format!("unknown build `{other}`: controller or router")),
        }
        Ok((registry, groups, started.elapsed()))
    }
    let timed = match name {
        Some("kandev") => first::<Kandev>(then),
        #[cfg(feature = "synthetic")]
        Some("groups_100") => first::<mcp_profiles_bench::synthetic::groups_100::Synth>(then),
        #[cfg(feature = "synthetic")]
        Some("groups_1000") => first::<mcp_profiles_bench::synthetic::groups_1000::Synth>(then),
        other => Err(format!(
            "unknown registry `{}`: kandev, or groups_100 / groups_1000 with the synthetic feature",
            other.unwrap_or("")
        )),
    };
    match timed {
        Ok((registry, groups, build)) => {
            println!("{} {groups} {}", registry.as_nanos(), build.as_nanos());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
