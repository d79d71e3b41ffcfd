//! Tool search: a search's latency at Kandev's scale (the configuration
//! surface, 43 tools) and at 10,000 runtime tools, the index built on a
//! profile's first search, and a call through the proxy paired against the
//! same call made directly.
//!
//! `cargo bench -p mcp-profiles-bench --bench search`

use std::hint::black_box;

use criterion::Criterion;
use kandev_mcp::{Kandev, Surface};
use mcp_profiles::rmcp::model::{CallToolResult, JsonObject};
use mcp_profiles::{Catalog, ProfileContext, ProfileController, Rule, RuntimeTool, ToolSearch};
use mcp_profiles_bench::live_request_context;
use mcp_profiles_bench::noop::{self, Noop};
use mcp_profiles_bench::paired::{Pairing, Side};
use rmcp::ServerHandler;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

const WORDS: [&str; 24] = [
    "task", "workflow", "comment", "review", "deploy", "invoice", "ticket", "user", "report",
    "metric", "build", "branch", "label", "project", "schedule", "message", "document", "budget",
    "alert", "customer", "order", "shipment", "account", "calendar",
];
const VERBS: [&str; 8] = [
    "list", "get", "create", "update", "delete", "archive", "search", "export",
];

fn object(value: serde_json::Value) -> JsonObject {
    match value {
        serde_json::Value::Object(object) => object,
        _ => unreachable!("an object literal"),
    }
}

/// `count` runtime tools with names, descriptions and parameters drawn
/// from a small vocabulary, as a large plugin surface would have.
fn catalog(count: usize) -> Catalog<Noop> {
    let tools = (0..count).map(|i| {
        let verb = VERBS[i % VERBS.len()];
        let noun = WORDS[(i / VERBS.len()) % WORDS.len()];
        let other = WORDS[(i * 7 + 3) % WORDS.len()];
        let schema = object(json!({
            "type": "object",
            "properties": {
                format!("{noun}Id"): {"type": "string"},
                format!("{other}_filter"): {"type": "string"},
            },
        }));
        let description = format!("{verb} a {noun} of the {other}, in plugin {i}");
        RuntimeTool::new(
            format!("{verb}_{noun}_{i:05}"),
            description,
            schema,
            Rule::always(),
            |_, _| async { Ok(CallToolResult::success(vec![])) },
        )
    });
    Catalog::new("bench", 1, tools).expect("a valid catalog")
}

fn search_request(query: &str) -> CallToolRequestParams {
    CallToolRequestParams::new("search_tools").with_arguments(object(json!({ "query": query })))
}

fn latency(c: &mut Criterion, runtime: &tokio::runtime::Runtime) {
    let request = runtime.block_on(live_request_context());
    let kandev = ProfileController::<Kandev>::new(ProfileContext::new(Surface::Configuration));
    kandev
        .set_tool_search(kandev_mcp::search::tool_search().expect("declared groups"))
        .expect("no collision");
    let kandev_server = kandev.server(Kandev::demo());
    let large = ProfileController::<Noop>::new(ProfileContext::new(noop::Surface::Only));
    large.install(&catalog(10_000));
    large
        .set_tool_search(ToolSearch::new())
        .expect("no collision");
    let large_server = large.server(Noop);

    let mut group = c.benchmark_group("tool_search");
    group.bench_function("kandev-configuration-43", |b| {
        b.to_async(runtime).iter(|| async {
            let answer = kandev_server
                .call_tool(search_request("create a workflow step"), request.clone())
                .await;
            black_box(answer.expect("a search answers"))
        })
    });
    group.bench_function("runtime-10000", |b| {
        b.to_async(runtime).iter(|| async {
            let answer = large_server
                .call_tool(
                    search_request("export the customer invoice"),
                    request.clone(),
                )
                .await;
            black_box(answer.expect("a search answers"))
        })
    });
    // A replacement makes a new served state, whose first search builds
    // its index.
    group.sample_size(20);
    group.bench_function("first-search-10000", |b| {
        b.to_async(runtime).iter(|| async {
            large.replace(ProfileContext::new(noop::Surface::Only));
            let answer = large_server
                .call_tool(
                    search_request("export the customer invoice"),
                    request.clone(),
                )
                .await;
            black_box(answer.expect("a search answers"))
        })
    });
    group.finish();
}

/// A call through the proxy against the same call made directly, paired.
fn proxy_against_direct(runtime: &tokio::runtime::Runtime) {
    let request = runtime.block_on(live_request_context());
    let controller = ProfileController::<Noop>::new(ProfileContext::new(noop::Surface::Only));
    controller
        .set_tool_search(ToolSearch::new())
        .expect("no collision");
    let server = controller.server(Noop);
    let proxied =
        CallToolRequestParams::new("call_tool").with_arguments(object(json!({"name": "noop"})));
    let comparison = Pairing::from_env().compare(
        "dispatch",
        Side::awaiting("through call_tool", runtime, || {
            server.call_tool(proxied.clone(), request.clone())
        }),
        Side::awaiting("direct", runtime, || {
            server.call_tool(CallToolRequestParams::new("noop"), request.clone())
        }),
    );
    println!("{comparison}");
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut criterion = Criterion::default().configure_from_args();
    latency(&mut criterion, &runtime);
    criterion.final_summary();
    proxy_against_direct(&runtime);
}
