//! Runtime tool groups: verifying and installing a 1,000-tool catalog, a
//! profile replacement with 1,000 runtime tools installed, and a validated
//! runtime-tool call against a compiled one.
//!
//! `cargo bench -p mcp-profiles-bench --bench runtime_tools`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use kandev_mcp::{Capability, Kandev, Provider, Surface};
use mcp_profiles::rmcp::model::{CallToolResult, JsonObject, ToolAnnotations};
use mcp_profiles::{Catalog, ProfileContext, ProfileController, Rule, RuntimeTool};
use mcp_profiles_bench::live_request_context;
use mcp_profiles_bench::noop::{self, Noop};
use rmcp::ServerHandler;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

const TOOLS: usize = 1_000;

fn object(value: serde_json::Value) -> JsonObject {
    match value {
        serde_json::Value::Object(object) => object,
        _ => unreachable!("an object literal"),
    }
}

/// A plugin-like schema: two required strings and an optional bounded integer.
fn plugin_schema() -> JsonObject {
    object(json!({
        "type": "object",
        "properties": {
            "task_id": {"type": "string", "minLength": 1},
            "comment": {"type": "string"},
            "priority": {"type": "integer", "minimum": 0, "maximum": 5},
        },
        "required": ["task_id", "comment"],
        "additionalProperties": false,
    }))
}

fn plugin_tool<S: mcp_profiles::Vocabulary>(name: String, rule: Rule<S>) -> RuntimeTool<S> {
    RuntimeTool::new(name, "A plugin tool", plugin_schema(), rule, |_, _| async {
        Ok(CallToolResult::success(vec![]))
    })
    .with_annotations(ToolAnnotations::new().read_only(true))
}

/// 1,000 Kandev plugin tools: a third on kanban-task, a third needing
/// user-question, a third needing the github provider.
fn kandev_tools(prefix: &str) -> Vec<RuntimeTool<Kandev>> {
    (0..TOOLS)
        .map(|i| {
            let rule = match i % 3 {
                0 => Rule::on_surface(Surface::KanbanTask),
                1 => Rule::any_surface().requiring(Capability::UserQuestion),
                _ => Rule::any_surface().with_any_provider([Provider::Github]),
            };
            plugin_tool(format!("{prefix}_plugin_{i:04}"), rule)
        })
        .collect()
}

fn asking() -> ProfileContext<Kandev> {
    ProfileContext::new(Surface::KanbanTask)
        .with_capability(Capability::UserQuestion)
        .unwrap()
        .with_providers([Provider::Github, Provider::Gitlab])
}

fn child() -> ProfileContext<Kandev> {
    ProfileContext::new(Surface::KanbanTask)
        .with_capability(Capability::ParentQuestion)
        .unwrap()
}

fn bench_install(c: &mut Criterion) {
    let mut group = c.benchmark_group("runtime_catalog");
    group.sample_size(20);
    group.bench_function("verify-1000", |b| {
        b.iter_batched(
            || kandev_tools("a"),
            |tools| black_box(Catalog::new("gen", 1, tools).unwrap()),
            criterion::BatchSize::LargeInput,
        )
    });
    // Installing alternates two verified catalogs of different names (two
    // generations, so neither is ever stale): every install changes what
    // the session sees.
    let a = Catalog::new("a", 1, kandev_tools("a")).unwrap();
    let b = Catalog::new("b", 1, kandev_tools("b")).unwrap();
    let controller = ProfileController::<Kandev>::new(asking());
    controller.install(&a);
    controller.install(&b);
    let mut flip = false;
    group.bench_function("install-1000", |bench| {
        bench.iter(|| {
            flip = !flip;
            black_box(controller.install(if flip { &a } else { &b }))
        })
    });
    group.finish();
}

fn bench_replacement(c: &mut Criterion) {
    let mut group = c.benchmark_group("replacement_with_runtime_tools");
    let (a, b) = (asking(), child());
    let plain = ProfileController::<Kandev>::new(a);
    plain.replace(b);
    let mut flip = false;
    group.bench_function("kandev-compiled-only", |bench| {
        bench.iter(|| {
            flip = !flip;
            black_box(plain.replace(if flip { a } else { b }))
        })
    });
    let controller = ProfileController::<Kandev>::new(a);
    controller.install(&Catalog::new("gen", 1, kandev_tools("p")).unwrap());
    controller.replace(b);
    group.bench_function("kandev+1000-runtime", |bench| {
        bench.iter(|| {
            flip = !flip;
            black_box(controller.replace(if flip { a } else { b }))
        })
    });
    group.finish();
}

fn bench_call(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let controller = ProfileController::<Noop>::new(ProfileContext::new(noop::Surface::Only));
    let tools = vec![
        plugin_tool("plugin_validated".into(), Rule::always()),
        RuntimeTool::new(
            "plugin_empty",
            "No arguments",
            object(json!({"type": "object"})),
            Rule::always(),
            |_, _| async { Ok(CallToolResult::success(vec![])) },
        ),
    ];
    controller.install(&Catalog::new("gen", 1, tools).unwrap());
    let server = controller.server(Noop);
    let request = rt.block_on(live_request_context());
    let arguments = object(json!({"task_id": "T-1", "comment": "looks good", "priority": 2}));
    let mut group = c.benchmark_group("runtime_call");
    group.bench_function("compiled-noop", |b| {
        b.to_async(&rt).iter(|| async {
            black_box(
                server
                    .call_tool(CallToolRequestParams::new("noop"), request.clone())
                    .await
                    .unwrap(),
            )
        })
    });
    group.bench_function("runtime-empty-schema", |b| {
        b.to_async(&rt).iter(|| async {
            black_box(
                server
                    .call_tool(CallToolRequestParams::new("plugin_empty"), request.clone())
                    .await
                    .unwrap(),
            )
        })
    });
    group.bench_function("runtime-validated-3-fields", |b| {
        b.to_async(&rt).iter(|| async {
            let params =
                CallToolRequestParams::new("plugin_validated").with_arguments(arguments.clone());
            black_box(server.call_tool(params, request.clone()).await.unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, bench_install, bench_replacement, bench_call);
criterion_main!(benches);
