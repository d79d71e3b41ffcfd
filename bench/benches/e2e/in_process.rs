//! What the mcp-profiles layer adds per request, in process: the
//! `ServerHandler` methods rmcp calls for `tools/list` and `tools/call`,
//! on `ProfiledServer` and on the plain server, with a live request
//! context, alternating A B B A over rounds.

use std::hint::black_box;
use std::time::Instant;

use kandev_mcp::Kandev;
use mcp_profiles::{ProfileContext, ProfileController, ProfiledServer};
use mcp_profiles_bench::live_request_context;
use mcp_profiles_bench::plain::Plain;
use mcp_profiles_bench::results::Spread;
use rmcp::ServerHandler;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RequestContext, RoleServer};

/// One method on both servers: ns per call per round.
pub struct Pair {
    pub profiled: Vec<f64>,
    pub plain: Vec<f64>,
}

impl Pair {
    /// profiled / plain, per round.
    pub fn ratio(&self) -> Spread {
        let ratios: Vec<f64> = self
            .profiled
            .iter()
            .zip(&self.plain)
            .map(|(a, b)| a / b)
            .collect();
        Spread::of(&ratios)
    }

    /// profiled − plain in µs, per round.
    pub fn added_us(&self) -> Spread {
        let added: Vec<f64> = self
            .profiled
            .iter()
            .zip(&self.plain)
            .map(|(a, b)| (a - b) / 1000.0)
            .collect();
        Spread::of(&added)
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "profiled_ns": Spread::of(&self.profiled),
            "plain_ns": Spread::of(&self.plain),
            "ratio": self.ratio(),
            "added_us": self.added_us(),
            "profiled_ns_rounds": self.profiled,
            "plain_ns_rounds": self.plain,
        })
    }
}

/// tools/list and tools/call.
pub struct InProcess {
    pub list: Pair,
    pub call: Pair,
}

#[derive(Clone, Copy)]
enum Method {
    List,
    Call,
}

async fn time<H: ServerHandler>(
    server: &H,
    method: Method,
    tool: &str,
    context: &RequestContext<RoleServer>,
    iterations: usize,
) -> f64 {
    let started = Instant::now();
    for _ in 0..iterations {
        match method {
            Method::List => {
                black_box(server.list_tools(None, context.clone()).await.unwrap());
            }
            Method::Call => {
                let request = CallToolRequestParams::new(tool.to_owned());
                black_box(server.call_tool(request, context.clone()).await.unwrap());
            }
        }
    }
    started.elapsed().as_nanos() as f64 / iterations as f64
}

async fn pair(
    profiled: &ProfiledServer<Kandev>,
    plain: &Plain<Kandev>,
    method: Method,
    tool: &str,
    iterations: usize,
    rounds: usize,
) -> Pair {
    let context = live_request_context().await;
    // Warm-up: caches, allocator, branch predictors.
    time(profiled, method, tool, &context, iterations / 10 + 1).await;
    time(plain, method, tool, &context, iterations / 10 + 1).await;
    let mut pair = Pair {
        profiled: Vec::new(),
        plain: Vec::new(),
    };
    for round in 0..rounds {
        if round % 2 == 0 {
            pair.profiled
                .push(time(profiled, method, tool, &context, iterations).await);
            pair.plain
                .push(time(plain, method, tool, &context, iterations).await);
        } else {
            pair.plain
                .push(time(plain, method, tool, &context, iterations).await);
            pair.profiled
                .push(time(profiled, method, tool, &context, iterations).await);
        }
    }
    pair
}

/// Both methods, `iterations` calls per side per round.
pub async fn measure(
    context: ProfileContext<Kandev>,
    tool: &str,
    iterations: usize,
    rounds: usize,
) -> InProcess {
    let profiled = ProfileController::<Kandev>::new(context).server(Kandev::demo());
    let plain = Plain::new(Kandev::demo(), &context);
    InProcess {
        list: pair(&profiled, &plain, Method::List, tool, iterations, rounds).await,
        call: pair(&profiled, &plain, Method::Call, tool, iterations, rounds).await,
    }
}
