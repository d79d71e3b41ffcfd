//! Replacement, `tools/list` and dispatch: mcp-profiles against rmcp's
//! `ToolRouter`, at Kandev scale (25 groups, 70 tools) and on synthetic
//! registries of 1,000 and 10,000 tools.
//!
//! `cargo bench -p mcp-profiles-bench --bench profiles`; the chart of
//! replacement cost against registry size is
//! `target/criterion/replacement/report/lines.svg`.

use std::hint::black_box;

use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main, measurement::WallTime,
};
use kandev_mcp::Kandev;
use mcp_profiles::{ProfileContext, ProfileController, Vocabulary};
#[cfg(feature = "synthetic")]
use mcp_profiles_bench::synthetic::{groups_100, groups_1000};
use mcp_profiles_bench::{live_request_context, merge_routers, native_router, prebuilt_routers};
use rmcp::ServerHandler;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::CallToolRequestParams;

/// Two contexts with different, large tool sets; replacements alternate.
struct Case<S: Vocabulary> {
    a: ProfileContext<S>,
    b: ProfileContext<S>,
}

fn kandev() -> Case<Kandev> {
    use kandev_mcp::{Capability, Provider, Surface};
    Case {
        a: ProfileContext::new(Surface::KanbanTask)
            .with_capability(Capability::UserQuestion)
            .unwrap()
            .with_providers([Provider::Github, Provider::Gitlab]),
        b: ProfileContext::new(Surface::KanbanTask)
            .with_capability(Capability::ParentQuestion)
            .unwrap(),
    }
}

/// Surface 0 with the first half of the capabilities and providers, against
/// surface 1 with the second half.
#[cfg(feature = "synthetic")]
fn synthetic<S: Vocabulary>() -> Case<S> {
    use mcp_profiles::Term;
    let half = |all: &'static [S::Capability], first: bool| {
        let (a, b) = all.split_at(all.len() / 2);
        if first { a } else { b }.iter().copied()
    };
    let providers = |first: bool| {
        let all = S::Provider::ALL;
        let (a, b) = all.split_at(all.len() / 2);
        if first { a } else { b }.iter().copied()
    };
    let exclusive_free = |context: ProfileContext<S>, first: bool| {
        context
            .with_capabilities(half(S::Capability::ALL, first))
            .expect("synthetic vocabularies have no exclusive pairs")
            .with_providers(providers(first))
    };
    Case {
        a: exclusive_free(ProfileContext::new(S::Surface::ALL[0]), true),
        b: exclusive_free(ProfileContext::new(S::Surface::ALL[1]), false),
    }
}

fn tools_in<S: Vocabulary>() -> usize {
    S::registry()
        .groups()
        .iter()
        .map(|group| group.tools().len())
        .sum()
}

fn replacement<S: Vocabulary>(group: &mut BenchmarkGroup<WallTime>, case: &Case<S>) {
    let size = tools_in::<S>();
    let registry = S::registry();
    let controller = ProfileController::<S>::new(case.a);
    // Warm: both tool sets assembled and snapshotted once, as after startup.
    controller.replace(case.b);
    let mut flip = false;
    group.bench_with_input(BenchmarkId::new("mcp-profiles", size), &size, |b, _| {
        b.iter(|| {
            flip = !flip;
            black_box(controller.replace(if flip { case.a } else { case.b }))
        })
    });
    group.bench_with_input(BenchmarkId::new("rmcp-rebuild", size), &size, |b, _| {
        b.iter(|| {
            flip = !flip;
            black_box(native_router(
                registry,
                if flip { &case.a } else { &case.b },
            ))
        })
    });
    let per_group = prebuilt_routers(registry);
    group.bench_with_input(BenchmarkId::new("rmcp-merge", size), &size, |b, _| {
        b.iter(|| {
            flip = !flip;
            black_box(merge_routers(
                registry,
                &per_group,
                if flip { &case.a } else { &case.b },
            ))
        })
    });
}

fn bench_replacement(c: &mut Criterion) {
    let mut group = c.benchmark_group("replacement");
    replacement::<Kandev>(&mut group, &kandev());
    #[cfg(feature = "synthetic")]
    {
        replacement::<groups_100::Synth>(&mut group, &synthetic());
        replacement::<groups_1000::Synth>(&mut group, &synthetic());
    }
    group.finish();
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

fn tools_list<S: Vocabulary + ServerHandler>(
    group: &mut BenchmarkGroup<WallTime>,
    rt: &tokio::runtime::Runtime,
    context: ProfileContext<S>,
    handler: S,
) {
    let size = tools_in::<S>();
    let controller = ProfileController::<S>::new(context);
    let server = controller.server(handler);
    let request = rt.block_on(live_request_context());
    group.bench_with_input(BenchmarkId::new("mcp-profiles", size), &size, |b, _| {
        b.to_async(rt)
            .iter(|| async { black_box(server.list_tools(None, request.clone()).await.unwrap()) })
    });
    let router = native_router(S::registry(), &context);
    group.bench_with_input(BenchmarkId::new("rmcp-list_all", size), &size, |b, _| {
        b.iter(|| black_box(router.list_all()))
    });
}

fn bench_tools_list(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("tools_list");
    tools_list::<Kandev>(&mut group, &rt, kandev().a, Kandev::demo());
    #[cfg(feature = "synthetic")]
    {
        tools_list::<groups_100::Synth>(&mut group, &rt, synthetic().a, groups_100::Synth);
        tools_list::<groups_1000::Synth>(&mut group, &rt, synthetic().a, groups_1000::Synth);
    }
    group.finish();
}

fn bench_dispatch(c: &mut Criterion) {
    use mcp_profiles_bench::noop::{Noop, Surface};
    let rt = runtime();
    let context = ProfileContext::<Noop>::new(Surface::Only);
    let controller = ProfileController::<Noop>::new(context);
    let server = controller.server(Noop);
    let router = native_router(Noop::registry(), &context);
    let request = rt.block_on(live_request_context());
    let mut group = c.benchmark_group("dispatch");
    group.bench_function("mcp-profiles", |b| {
        b.to_async(&rt).iter(|| async {
            black_box(
                server
                    .call_tool(CallToolRequestParams::new("noop"), request.clone())
                    .await
                    .unwrap(),
            )
        })
    });
    group.bench_function("rmcp-ToolRouter::call", |b| {
        b.to_async(&rt).iter(|| async {
            let call =
                ToolCallContext::new(&Noop, CallToolRequestParams::new("noop"), request.clone());
            black_box(router.call(call).await.unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, bench_replacement, bench_tools_list, bench_dispatch);
criterion_main!(benches);
