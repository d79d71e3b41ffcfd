//! Full listing, tool search and progressive disclosure side by side on
//! each Kandev surface's largest profile (issue 45 §3), measured through a
//! real rmcp client session over an in-process duplex pipe.
//!
//! A "typical task" on a surface needs the two largest groups that are not
//! listed from the start (the always-listed one is Kandev's question
//! group, as for search). For each mode the walk reports the o200k tokens
//! the native tool list costs at the start and after the task's groups are
//! reachable, the extra round trips that took, and the fraction of the
//! previously listed bytes that each later list keeps as its prefix (what
//! a prompt cache keeps).
//!
//! `cargo run --release -p mcp-profiles-bench --example disclosure_walk`
//! (`-- --walk` also prints each session's steps, the demo's way).
//!
//! Prints a markdown table (the one in BENCHMARKS.md).

use kandev_mcp::Kandev;
use mcp_profiles::{
    ACTIVATION_TOOL, Disclosure, ListCost, ProfileContext, ProfileController, ToolSearch,
    Vocabulary,
};
use mcp_profiles_bench::largest_kandev_contexts;
use rmcp::model::{CallToolRequestParams, Tool};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};

/// The two largest groups `context` enables that are not listed from the
/// start: what a typical task on it needs.
fn task_groups(context: &ProfileContext<Kandev>) -> Vec<String> {
    let registry = Kandev::registry();
    let profile = registry.assemble(context);
    let mut groups: Vec<(usize, &str)> = profile
        .groups()
        .filter(|group| !kandev_mcp::search::ALWAYS_LISTED.contains(group))
        .map(|group| (registry.group(group).map_or(0, |g| g.tools().len()), group))
        .collect();
    groups.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    groups
        .into_iter()
        .take(2)
        .map(|(_, g)| g.to_owned())
        .collect()
}

/// A client session on `controller`, over an in-process duplex pipe.
async fn session(controller: &ProfileController<Kandev>) -> RunningService<RoleClient, ()> {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let server = controller.server(Kandev::demo());
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("server handshake");
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.expect("client handshake")
}

/// The listed tools, in list order.
async fn listed(client: &RunningService<RoleClient, ()>) -> Vec<Tool> {
    client.list_all_tools().await.expect("tools/list")
}

fn tokens(list: &[Tool]) -> usize {
    ListCost::of(list).tokens()
}

/// The bytes of `before` that `after` keeps at the same place, as a
/// fraction of `before`'s: each tool as its JSON text.
fn preserved(before: &[Tool], after: &[Tool]) -> f64 {
    let text = |tool: &Tool| serde_json::to_string(tool).expect("a tool serialises");
    let total: usize = before.iter().map(|tool| text(tool).len()).sum();
    let kept: usize = before
        .iter()
        .zip(after)
        .map(|(a, b)| (text(a), text(b)))
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len())
        .sum();
    kept as f64 / total.max(1) as f64
}

struct Row {
    start: usize,
    after: usize,
    trips: usize,
    kept: f64,
}

/// Every tool listed: nothing to do for the task.
async fn full(context: ProfileContext<Kandev>) -> Row {
    let client = session(&ProfileController::new(context)).await;
    let list = listed(&client).await;
    let _ = client.cancel().await;
    Row {
        start: tokens(&list),
        after: tokens(&list),
        trips: 0,
        kept: 1.0,
    }
}

/// Kandev's search: one search per group the task needs (its answer is a
/// tool result, never the native list, which stays as it was).
async fn searched(context: ProfileContext<Kandev>, groups: &[String]) -> Row {
    let controller = ProfileController::new(context);
    let search = ToolSearch::<Kandev>::new()
        .always_listing(kandev_mcp::search::ALWAYS_LISTED)
        .expect("declared groups");
    controller.set_tool_search(search).expect("no collision");
    let client = session(&controller).await;
    let list = listed(&client).await;
    for group in groups {
        let query = serde_json::json!({ "query": group.replace('-', " ") });
        let mut call = CallToolRequestParams::new("search_tools");
        call = call.with_arguments(query.as_object().cloned().unwrap_or_default());
        client.call_tool(call).await.expect("a search");
    }
    let after = listed(&client).await;
    let _ = client.cancel().await;
    Row {
        start: tokens(&list),
        after: tokens(&after),
        trips: groups.len(),
        kept: preserved(&list, &after),
    }
}

/// Progressive disclosure: one activation per group, each followed by a
/// new `tools/list`.
async fn disclosed(context: ProfileContext<Kandev>, groups: &[String], walk: bool) -> Row {
    let controller = ProfileController::new(context);
    let disclosure = Disclosure::new()
        .always_listing(kandev_mcp::search::ALWAYS_LISTED)
        .expect("declared groups");
    controller.set_disclosure(disclosure).expect("a free name");
    let client = session(&controller).await;
    let start = listed(&client).await;
    let (mut list, mut kept, mut trips) = (start.clone(), 1.0f64, 0);
    for group in groups {
        let arguments = serde_json::json!({ "groups": [group] });
        let mut call = CallToolRequestParams::new(ACTIVATION_TOOL);
        call = call.with_arguments(arguments.as_object().cloned().unwrap_or_default());
        client.call_tool(call).await.expect("an activation");
        let next = listed(&client).await;
        trips += 2;
        kept = kept.min(preserved(&list, &next));
        if walk {
            println!(
                "  activate {group}: {} → {} tools, {} tokens, {:.0}% of the previous bytes kept",
                list.len(),
                next.len(),
                tokens(&next),
                100.0 * preserved(&list, &next)
            );
        }
        list = next;
    }
    let _ = client.cancel().await;
    Row {
        start: tokens(&start),
        after: tokens(&list),
        trips,
        kept,
    }
}

#[tokio::main]
async fn main() {
    let walk = std::env::args().any(|arg| arg == "--walk");
    println!(
        "| surface (largest profile) | task's groups | full: tokens | search: at start / after | round trips | disclosure: at start / after | round trips | bytes kept: full / search / disclosure |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---|");
    for context in largest_kandev_contexts() {
        let groups = task_groups(&context);
        if walk {
            println!("{context}, a task needing {}:", groups.join(" and "));
        }
        let full = full(context).await;
        let search = searched(context, &groups).await;
        let disclosure = disclosed(context, &groups, walk).await;
        println!(
            "| {context} | {} | {} | {} / {} | {} | {} / {} | {} | {:.0}% / {:.0}% / {:.0}% |",
            groups.join(", "),
            full.start,
            search.start,
            search.after,
            search.trips,
            disclosure.start,
            disclosure.after,
            disclosure.trips,
            100.0 * full.kept,
            100.0 * search.kept,
            100.0 * disclosure.kept,
        );
        assert_eq!(full.after, full.start);
    }
}
