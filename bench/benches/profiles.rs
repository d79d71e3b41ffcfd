//! Replacement, `tools/list` and dispatch: mcp-profiles against what an rmcp
//! user would write, both sides interleaved in one run (see
//! `mcp_profiles_bench::paired`), at Kandev scale (25 groups) and, with the
//! `synthetic` feature, on registries of 1,000 and 10,000 tools.
//!
//! Policies and the operator's kill switch (`restricted`), a group's allow
//! list (`allow list`) and name presentation (`presentation`) are each
//! compared against the same work without them; so are the call-path
//! features (`dispatch`: many agents, a policy, the kill switch). With this
//! package's `metrics` feature the Prometheus recorder is installed first
//! (unless `PROFILES_BENCH_RECORDER=0`), so every profiled row carries the
//! cost of metrics.
//!
//! Replacement is timed warm (every tool set already snapshotted) and, in
//! `cold`, at each tool set's first use; each comparison has its strongest
//! rmcp baseline beside the `#[tool_handler]` one (issue 43).
//!
//! `cargo bench -p mcp-profiles-bench --bench profiles [-- dispatch]`
//! (`PAIRS`, `BATCH_MS` change the pairing; default 21 pairs of 40 ms
//! batches; an argument runs only the comparisons whose name contains it). Results:
//! `target/bench-results/profiles.json`, a list of
//! `mcp_profiles_bench::paired::Comparison`.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use kandev_mcp::Kandev;
use mcp_profiles::{
    DenyList, KillSwitch, Policy, ProfileContext, ProfileController, ProfileHandle,
    ProfileResolver, ProfiledServer, Vocabulary,
};
use mcp_profiles_bench::paired::{Comparison, Pairing, Side};
use mcp_profiles_bench::plain::Plain;
#[cfg(feature = "synthetic")]
use mcp_profiles_bench::synthetic::{groups_100, groups_1000};
use mcp_profiles_bench::{live_request_context, merge_routers, native_router, prebuilt_routers};
use rmcp::ServerHandler;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, Extensions};
use rmcp::service::{RequestContext, RoleServer};
use tokio::runtime::Runtime;

/// Two contexts with different, large tool sets; replacements alternate.
struct Case<S: Vocabulary> {
    a: ProfileContext<S>,
    b: ProfileContext<S>,
}

fn kandev() -> Case<Kandev> {
    let [a, b] = mcp_profiles_bench::kandev_contexts();
    Case { a, b }
}

/// Surface 0 with the first half of the capabilities and providers, against
/// surface 1 with the second half.
#[cfg(feature = "synthetic")]
fn synthetic<S: Vocabulary>() -> Case<S> {
    use mcp_profiles::Term;
    fn half<T: Copy>(all: &'static [T], first: bool) -> impl Iterator<Item = T> {
        let (a, b) = all.split_at(all.len() / 2);
        if first { a } else { b }.iter().copied()
    }
    let context = |surface, first: bool| {
        ProfileContext::<S>::new(surface)
            .with_capabilities(half(S::Capability::ALL, first))
            .expect("synthetic vocabularies have no exclusive pairs")
            .with_providers(half(S::Provider::ALL, first))
    };
    Case {
        a: context(S::Surface::ALL[0], true),
        b: context(S::Surface::ALL[1], false),
    }
}

/// A policy on every context and an operator kill list, as a backend
/// would set them.
struct Restriction<S: Vocabulary> {
    policy: Policy<S>,
    killed: DenyList<S>,
}

/// No destructive tools, one tool and one group denied; one tool and one
/// group killed.
fn kandev_restriction() -> Restriction<Kandev> {
    let list = |names: [&str; 2]| DenyList::new(names).expect("Kandev's names");
    Restriction {
        policy: Policy::none()
            .with_no_destructive(true)
            .with_deny(list(["delete_task_kandev", "walkthrough"])),
        killed: list(["move_task_kandev", "plan"]),
    }
}

/// No destructive tools, a tool and a group of the synthetic registry
/// denied, another tool and group killed.
#[cfg(feature = "synthetic")]
fn synthetic_restriction<S: Vocabulary>() -> Restriction<S> {
    let list = |names: [&str; 2]| DenyList::new(names).expect("synthetic names");
    Restriction {
        policy: Policy::none()
            .with_no_destructive(true)
            .with_deny(list(["t_0_1", "g-4"])),
        killed: list(["t_1_1", "g-8"]),
    }
}

fn tools_in<S: Vocabulary>() -> usize {
    S::registry()
        .groups()
        .iter()
        .map(|group| group.tools().len())
        .sum()
}

/// `replace` against rebuilding the router, and against merging prebuilt
/// per-group routers; both alternate between the two contexts.
fn replacement<S: Vocabulary>(pairing: &Pairing, case: &Case<S>) -> Vec<Comparison> {
    let size = tools_in::<S>();
    let registry = S::registry();
    let controller = &ProfileController::<S>::new(case.a);
    // Warm: both tool sets assembled and snapshotted once, as after startup.
    controller.replace(case.b);
    let per_group = prebuilt_routers(registry);
    let pick = |i: u64| {
        if i.is_multiple_of(2) {
            &case.a
        } else {
            &case.b
        }
    };
    let ours = || {
        Side::new("mcp-profiles replace", move |n| {
            for i in 0..n {
                black_box(controller.replace(*pick(i)));
            }
        })
    };
    let rebuild = Side::new("rmcp rebuild router", |n| {
        for i in 0..n {
            black_box(native_router(registry, pick(i)));
        }
    });
    let merge = Side::new("rmcp merge routers", |n| {
        for i in 0..n {
            black_box(merge_routers(registry, &per_group, pick(i)));
        }
    });
    // The strongest baseline (issue 43): a router per profile, built once,
    // and the served one behind an atomic pointer, as a careful rmcp user
    // would keep them; a replacement is one pointer swap.
    let routers = [&case.a, &case.b].map(|context| Arc::new(native_router(registry, context)));
    let served = arc_swap::ArcSwap::new(Arc::clone(&routers[0]));
    let swap = Side::new("rmcp router per profile, swapped", |n| {
        for i in 0..n {
            served.store(Arc::clone(&routers[(i % 2) as usize]));
            black_box(&served);
        }
    });
    vec![
        pairing.compare("replacement", ours(), rebuild).sized(size),
        pairing.compare("replacement", ours(), merge).sized(size),
        pairing.compare("replacement", ours(), swap).sized(size),
    ]
}

/// A tool set's first use (issue 43: `replacement` is timed warm, both
/// tool sets assembled and snapshotted before timing): every valid context
/// of `S` in turn, a replacement into it timed once, then rmcp rebuilding a
/// router for it (what it does every time). Only contexts whose tool set
/// no earlier one served count: the first use of each tool set is the one
/// this process pays once. Runs before anything else serves `S`.
fn cold_replacement<S: Vocabulary>() -> Comparison {
    let registry = S::registry();
    let mut contexts = ProfileContext::<S>::all();
    let controller = ProfileController::<S>::new(contexts.next().expect("a context"));
    let mut seen = std::collections::HashSet::new();
    seen.insert(controller.current().tool_names().to_vec());
    let mut pairs = Vec::new();
    for context in contexts {
        let started = Instant::now();
        black_box(controller.replace(context));
        let ours = started.elapsed();
        let started = Instant::now();
        black_box(native_router(registry, &context));
        let rebuilt = started.elapsed();
        if seen.insert(controller.current().tool_names().to_vec()) {
            pairs.push((ours, rebuilt));
        }
    }
    Comparison::of_single_runs(
        "replacement, cold",
        ("mcp-profiles replace, first use", "rmcp rebuild router"),
        &pairs,
    )
    .sized(tools_in::<S>())
}

/// `controller` replaced alternately with `case`'s two contexts.
fn replacing<'a, S: Vocabulary>(
    label: &'static str,
    controller: &'a ProfileController<S>,
    case: &Case<S>,
) -> Side<'a> {
    let (a, b) = (case.a, case.b);
    Side::new(label, move |n| {
        for i in 0..n {
            black_box(controller.replace(if i.is_multiple_of(2) { a } else { b }));
        }
    })
}

/// A replacement under a policy, under the kill switch and under both,
/// each against the same replacement unrestricted; and flipping the kill
/// switch (one replacement of the attached controller) against a plain
/// replacement.
fn restricted<S: Vocabulary>(
    pairing: &Pairing,
    case: &Case<S>,
    restriction: &Restriction<S>,
) -> Vec<Comparison> {
    let size = tools_in::<S>();
    let with_policy = |context: ProfileContext<S>| context.with_policy(restriction.policy);
    let policed = Case {
        a: with_policy(case.a),
        b: with_policy(case.b),
    };
    // One controller per side, each warmed on both of its contexts.
    let warmed = |case: &Case<S>, killed: DenyList<S>| {
        let controller = ProfileController::<S>::new(case.a);
        controller.kill_switch().set(killed);
        controller.replace(case.b);
        controller
    };
    let none = DenyList::empty();
    let (unrestricted, by_policy, by_kill, by_both, flipped) = (
        warmed(case, none),
        warmed(&policed, none),
        warmed(case, restriction.killed),
        warmed(&policed, restriction.killed),
        warmed(case, none),
    );
    let plain = || replacing("replace", &unrestricted, case);
    let switch = flipped.kill_switch();
    let lists = [restriction.killed, none];
    let flip = Side::new("kill switch flip", |n| {
        for i in 0..n {
            black_box(switch.set(lists[(i % 2) as usize]));
        }
    });
    vec![
        pairing
            .compare(
                "restricted",
                replacing("replace + policy", &by_policy, &policed),
                plain(),
            )
            .sized(size),
        pairing
            .compare(
                "restricted",
                replacing("replace + kill switch", &by_kill, case),
                plain(),
            )
            .sized(size),
        pairing
            .compare(
                "restricted",
                replacing("replace + policy + kill switch", &by_both, &policed),
                plain(),
            )
            .sized(size),
        pairing.compare("restricted", flip, plain()).sized(size),
    ]
}

/// `tools/list` through each server's `ServerHandler::list_tools`; and
/// ours against its floor: one `Vec` of the listed tools, each cloned
/// (what rmcp's owned `ListToolsResult` needs at least), then dropped,
/// beside the request context's clone every side pays.
fn tools_list<S: Vocabulary + ServerHandler + Clone>(
    pairing: &Pairing,
    rt: &Runtime,
    request: &RequestContext<RoleServer>,
    context: ProfileContext<S>,
    handler: S,
) -> Vec<Comparison> {
    let size = tools_in::<S>();
    let controller = ProfileController::<S>::new(context);
    let ours = controller.server(handler.clone());
    let stamping = ProfileController::<S>::new(context).with_exposure_stamp();
    let stamped = stamping.server(handler.clone());
    let plain = Plain::new(handler, &context);
    let cached = plain.clone().with_cached_list();
    let listed = controller.tools();
    let ours_side = || {
        Side::awaiting("mcp-profiles list_tools", rt, || {
            ours.list_tools(None, request.clone())
        })
    };
    vec![
        pairing
            .compare(
                "tools/list",
                ours_side(),
                Side::awaiting("rmcp #[tool_handler]", rt, || {
                    plain.list_tools(None, request.clone())
                }),
            )
            .sized(size),
        // The strongest baseline (issue 43): rmcp with `list_tools`
        // answering a clone of a list built once.
        pairing
            .compare(
                "tools/list",
                ours_side(),
                Side::awaiting("rmcp cached list_tools", rt, || {
                    cached.list_tools(None, request.clone())
                }),
            )
            .sized(size),
        // Issue 44: the list stamped with its exposure (revision and
        // digest in `_meta`, the digest made once per state) against the
        // same list unstamped.
        pairing
            .compare(
                "tools/list",
                Side::awaiting("mcp-profiles list_tools, stamped", rt, || {
                    stamped.list_tools(None, request.clone())
                }),
                ours_side(),
            )
            .sized(size),
        pairing
            .compare(
                "tools/list",
                ours_side(),
                // The harness hands every call a clone of the request
                // context, so the floor takes one too.
                Side::new("floor: Vec of clones", |n| {
                    for _ in 0..n {
                        black_box(request.clone());
                        black_box(black_box(&listed).clone());
                    }
                }),
            )
            .sized(listed.len()),
    ]
}

/// A tool that does nothing, called through each server's
/// `ServerHandler::call_tool`, and (for reference) through
/// `ToolRouter::call` with no server around it; then a Kandev tool at
/// Kandev's scale, and what is on the call path when a backend serves many
/// agents or restricts one, each against plain profiled dispatch.
fn dispatch(
    pairing: &Pairing,
    rt: &Runtime,
    request: &RequestContext<RoleServer>,
) -> Vec<Comparison> {
    use mcp_profiles_bench::noop::{Noop, Surface};
    let context = ProfileContext::<Noop>::new(Surface::Only);
    let controller = ProfileController::<Noop>::new(context);
    let ours = controller.server(Noop);
    let plain = Plain::new(Noop, &context);
    let router = native_router(Noop::registry(), &context);
    let params = CallToolRequestParams::new("noop");
    let profiled = || {
        Side::awaiting("mcp-profiles call_tool", rt, || {
            ours.call_tool(params.clone(), request.clone())
        })
    };
    let mut rows = vec![
        pairing.compare(
            "dispatch",
            profiled(),
            Side::awaiting("rmcp #[tool_handler]", rt, || {
                plain.call_tool(params.clone(), request.clone())
            }),
        ),
        pairing.compare(
            "dispatch",
            profiled(),
            Side::awaiting("rmcp ToolRouter::call", rt, || {
                router.call(ToolCallContext::new(&Noop, params.clone(), request.clone()))
            }),
        ),
    ];
    rows.extend(kandev_dispatch(pairing, rt, request));
    rows
}

/// `list_workspaces_kandev` (reads the demo board) at Kandev's scale: 98
/// tool names numbered, 42 served; against `#[tool_handler]` over the same
/// tools, then each call-path feature against plain profiled dispatch.
fn kandev_dispatch(
    pairing: &Pairing,
    rt: &Runtime,
    request: &RequestContext<RoleServer>,
) -> Vec<Comparison> {
    let context = kandev().a;
    let params = CallToolRequestParams::new("list_workspaces_kandev");

    // Every request arrives as over HTTP: its parts in the extensions. A
    // multi-agent serving layer admits each request once (its bearer token
    // looked up once) and leaves the profile there; the server's resolver
    // reads it back, as mcp-profiles-serve's does (less its store-health
    // check). One agent's server ignores it.
    let agents = ProfileController::new(context);
    let mut request = request.clone();
    let (mut parts, ()) = axum::http::Request::new(()).into_parts();
    parts.extensions.insert(agents.handle());
    request.extensions.insert(parts);
    let request = &request;
    let resolving = ProfiledServer::resolving(Kandev::demo(), Arc::new(FromRequest));

    let single = ProfileController::new(context);
    let ours = single.server(Kandev::demo());
    let plain = Plain::new(Kandev::demo(), &context);
    let call = |label, server: ProfiledServer<Kandev>| {
        let params = params.clone();
        // Each side's future borrows its server, for the whole run.
        let server: &'static ProfiledServer<Kandev> = Box::leak(Box::new(server));
        Side::awaiting(label, rt, move || {
            server.call_tool(params.clone(), request.clone())
        })
    };
    let profiled = || call("call_tool, one agent", ours.clone());

    // A policy and the operator's kill switch, each removing other tools.
    let restriction = kandev_restriction();
    let restricted = ProfileController::new(context.with_policy(restriction.policy));
    let switch = KillSwitch::new();
    let killed = ProfileController::with_kill_switch(context, &switch);
    switch.set(restriction.killed);
    // Tool search on every surface: the tool is reachable, not listed.
    let searched = ProfileController::new(context);
    searched
        .set_tool_search(mcp_profiles::ToolSearch::new())
        .expect("no name collides with search's tools");
    // Every decision kept in serve's in-memory decision log (issue 44).
    let logged = ProfileController::new(context);
    let log = Arc::new(mcp_profiles_serve::audit::decisions::DecisionLog::new(
        10_000,
    ));
    logged.log_decisions(log.sink(Some("bench")));

    vec![
        pairing.compare(
            "dispatch, Kandev",
            profiled(),
            Side::awaiting("rmcp #[tool_handler]", rt, || {
                plain.call_tool(params.clone(), request.clone())
            }),
        ),
        pairing.compare(
            "dispatch, Kandev",
            call("call_tool, many agents", resolving),
            profiled(),
        ),
        pairing.compare(
            "dispatch, Kandev",
            call(
                "call_tool, under a policy",
                restricted.server(Kandev::demo()),
            ),
            profiled(),
        ),
        pairing.compare(
            "dispatch, Kandev",
            call("call_tool, kill switch set", killed.server(Kandev::demo())),
            profiled(),
        ),
        pairing.compare(
            "dispatch, Kandev",
            call("call_tool, tool search on", searched.server(Kandev::demo())),
            profiled(),
        ),
        pairing.compare(
            "dispatch, Kandev",
            call("call_tool, decisions logged", logged.server(Kandev::demo())),
            profiled(),
        ),
    ]
}

/// Reads the profile a serving layer admitted the request with from its
/// HTTP parts, as `mcp-profiles-serve`'s resolver does.
struct FromRequest;

impl ProfileResolver<Kandev> for FromRequest {
    fn resolve(&self, extensions: &Extensions) -> Result<ProfileHandle<Kandev>, rmcp::ErrorData> {
        extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<ProfileHandle<Kandev>>())
            .cloned()
            .ok_or_else(|| rmcp::ErrorData::invalid_request("no profile", None))
    }
}

/// Name presentation (`Presentation::strip_suffix`) against the same
/// server without it: a call by the presented name and by the canonical
/// one, Kandev's `tools/list` and a Kandev replacement.
fn presented(
    pairing: &Pairing,
    rt: &Runtime,
    request: &RequestContext<RoleServer>,
) -> Vec<Comparison> {
    use mcp_profiles::Presentation;
    use mcp_profiles_bench::noop::{Noop, Surface};
    let presentation = |suffix: &str| Presentation::strip_suffix(suffix).expect("a valid suffix");
    // `noop` is listed as `no` under the presentation.
    let noop = ProfileContext::<Noop>::new(Surface::Only);
    let (plain_noop, presented_noop) = (
        ProfileController::<Noop>::new(noop),
        ProfileController::<Noop>::new(noop),
    );
    presented_noop
        .set_presentation(presentation("op"))
        .expect("no collision");
    let (plain_server, presented_server) = (plain_noop.server(Noop), presented_noop.server(Noop));
    let call = |label, server: &'static ProfiledServer<Noop>, name: &'static str| {
        let params = CallToolRequestParams::new(name);
        Side::awaiting(label, rt, move || {
            server.call_tool(params.clone(), request.clone())
        })
    };
    // Leaked: a `Side` borrows its server for the whole comparison.
    let plain_server: &'static ProfiledServer<Noop> = Box::leak(Box::new(plain_server));
    let presented_server: &'static ProfiledServer<Noop> = Box::leak(Box::new(presented_server));
    let without = || call("call_tool, no presentation", plain_server, "noop");

    let case = kandev();
    let size = tools_in::<Kandev>();
    let (plain_kandev, presented_kandev) = (
        ProfileController::<Kandev>::new(case.a),
        ProfileController::<Kandev>::new(case.a),
    );
    presented_kandev
        .set_presentation(presentation("_kandev"))
        .expect("Kandev's names do not collide");
    for controller in [&plain_kandev, &presented_kandev] {
        controller.replace(case.b);
        controller.replace(case.a);
    }
    let (plain_list, presented_list) = (
        plain_kandev.server(Kandev::demo()),
        presented_kandev.server(Kandev::demo()),
    );
    let lists = |label, server: &'static ProfiledServer<Kandev>| {
        Side::awaiting(label, rt, move || server.list_tools(None, request.clone()))
    };
    let plain_list: &'static ProfiledServer<Kandev> = Box::leak(Box::new(plain_list));
    let presented_list: &'static ProfiledServer<Kandev> = Box::leak(Box::new(presented_list));
    vec![
        pairing.compare(
            "presentation",
            call("call_tool by presented name", presented_server, "no"),
            without(),
        ),
        pairing.compare(
            "presentation",
            call("call_tool by canonical name", presented_server, "noop"),
            without(),
        ),
        pairing
            .compare(
                "presentation",
                lists("list_tools, presented", presented_list),
                lists("list_tools, no presentation", plain_list),
            )
            .sized(size),
        pairing
            .compare(
                "presentation",
                replacing("replace, presented", &presented_kandev, &case),
                replacing("replace, no presentation", &plain_kandev, &case),
            )
            .sized(size),
    ]
}

/// A group's allow list against the same server without one: replacements
/// alternating between the front surface (the default 8 of `desk`'s 12
/// tools) and the back (another 8, plus `back-office`), and a call.
fn allow_listed(
    pairing: &Pairing,
    rt: &Runtime,
    request: &RequestContext<RoleServer>,
) -> Vec<Comparison> {
    use mcp_profiles_bench::allowed::{listed, unlisted};
    let back_eight = ["t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11"];
    let listed_case = Case {
        a: ProfileContext::<listed::Listed>::new(listed::Surface::Front),
        b: ProfileContext::new(listed::Surface::Back)
            .with_allowed("desk", back_eight)
            .expect("in the universe"),
    };
    let unlisted_case = Case {
        a: ProfileContext::<unlisted::Unlisted>::new(unlisted::Surface::Front),
        b: ProfileContext::new(unlisted::Surface::Back),
    };
    let listed_controller = ProfileController::new(listed_case.a);
    let unlisted_controller = ProfileController::new(unlisted_case.a);
    listed_controller.replace(listed_case.b);
    unlisted_controller.replace(unlisted_case.b);
    let size = tools_in::<listed::Listed>();
    let listed_server = listed_controller.server(listed::Listed);
    let unlisted_server = unlisted_controller.server(unlisted::Unlisted);
    listed_controller.replace(listed_case.a);
    unlisted_controller.replace(unlisted_case.a);
    let params = CallToolRequestParams::new("t0");
    // The call first: `t0` is on the front surface only, where both are now.
    let call = pairing.compare(
        "allow list",
        Side::awaiting("call_tool, allow list", rt, || {
            listed_server.call_tool(params.clone(), request.clone())
        }),
        Side::awaiting("call_tool, none", rt, || {
            unlisted_server.call_tool(params.clone(), request.clone())
        }),
    );
    let replacement = pairing
        .compare(
            "allow list",
            replacing("replace, allow list", &listed_controller, &listed_case),
            replacing("replace, none", &unlisted_controller, &unlisted_case),
        )
        .sized(size);
    vec![replacement, call]
}

fn main() {
    // `cargo bench` passes `--bench`; other arguments name what to run
    // (`replacement`, `tools/list`, `dispatch`), as criterion's filters do.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let wanted = |name: &str| only.is_empty() || only.iter().any(|o| name.contains(o.as_str()));
    // With this package's `metrics` feature every profiled call is counted
    // and timed into the Prometheus recorder Kandev's `/metrics` renders,
    // installed before anything registers its handles; the rows against
    // rmcp then carry what metrics cost (`BENCHMARKS.md`, "Dispatch").
    // `PROFILES_BENCH_RECORDER=0` leaves the facade's no-op in place.
    #[cfg(feature = "metrics")]
    if std::env::var("PROFILES_BENCH_RECORDER").as_deref() != Ok("0") {
        mcp_profiles_serve::prometheus::install();
    }
    let pairing = Pairing::from_env();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let request = rt.block_on(live_request_context());
    let mut results = vec![];
    let mut report = |comparison: Comparison| {
        println!("{comparison}");
        results.push(comparison);
    };
    // First: nothing may have served Kandev's tool sets before.
    if wanted("cold") {
        report(cold_replacement::<Kandev>());
    }
    if wanted("replacement") {
        replacement(&pairing, &kandev())
            .into_iter()
            .for_each(&mut report);
    }
    #[cfg(feature = "synthetic")]
    if wanted("replacement") {
        replacement(&pairing, &synthetic::<groups_100::Synth>())
            .into_iter()
            .for_each(&mut report);
        replacement(&pairing, &synthetic::<groups_1000::Synth>())
            .into_iter()
            .for_each(&mut report);
    }
    if wanted("restricted") {
        restricted(&pairing, &kandev(), &kandev_restriction())
            .into_iter()
            .for_each(&mut report);
    }
    #[cfg(feature = "synthetic")]
    if wanted("restricted") {
        restricted(
            &pairing,
            &synthetic::<groups_1000::Synth>(),
            &synthetic_restriction(),
        )
        .into_iter()
        .for_each(&mut report);
    }
    if wanted("tools/list") {
        tools_list(&pairing, &rt, &request, kandev().a, Kandev::demo())
            .into_iter()
            .for_each(&mut report);
    }
    #[cfg(feature = "synthetic")]
    if wanted("tools/list") {
        tools_list(&pairing, &rt, &request, synthetic().a, groups_100::Synth)
            .into_iter()
            .for_each(&mut report);
        tools_list(&pairing, &rt, &request, synthetic().a, groups_1000::Synth)
            .into_iter()
            .for_each(&mut report);
    }
    if wanted("dispatch") {
        dispatch(&pairing, &rt, &request)
            .into_iter()
            .for_each(&mut report);
    }
    if wanted("allow list") {
        allow_listed(&pairing, &rt, &request)
            .into_iter()
            .for_each(&mut report);
    }
    if wanted("presentation") {
        presented(&pairing, &rt, &request)
            .into_iter()
            .for_each(&mut report);
    }
    let json = serde_json::to_value(&results).expect("results serialise");
    let path = mcp_profiles_bench::results::write("profiles", &json).expect("write the results");
    println!("results: {}", path.display());
}
