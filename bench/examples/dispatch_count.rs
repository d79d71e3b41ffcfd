//! Runs one side of the dispatch comparison a fixed number of times, for
//! instruction counts that do not depend on what else the machine does:
//!
//! ```sh
//! cargo build --release -p mcp-profiles-bench --example dispatch_count
//! for side in ours plain; do for n in 0 100000; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/dispatch_count $side $n 2>&1 | grep refs
//! done; done
//! ```
//!
//! (count at 100,000 − count at 0) / 100,000 is one call's instructions.
//!
//! The overhead of metrics: the same, built with `--features metrics`
//! (mcp-profiles' `metrics`: the counters, the latency histogram and the
//! spans compiled in), once as is (no recorder: the facade's no-op) and
//! once with `recorder` as a third argument, which installs the Prometheus
//! recorder Kandev's `/metrics` renders before anything is registered:
//!
//! ```sh
//! cargo build --release -p mcp-profiles-bench --example dispatch_count --features metrics
//! for recorder in "" recorder; do for n in 0 100000; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     --toggle-collect='tokio::runtime::context::runtime::enter_runtime' \
//!     target/release/examples/dispatch_count ours $n $recorder 2>&1 | grep refs
//! done; done
//! ```
//!
//! Collecting only inside the runtime leaves out the start-up, whose clock
//! calibration (the metrics' time-stamp counter) varies from run to run.

use std::hint::black_box;

use mcp_profiles::{ProfileContext, ProfileController};
use mcp_profiles_bench::live_request_context;
use mcp_profiles_bench::noop::{Noop, Surface};
use mcp_profiles_bench::plain::Plain;
use rmcp::ServerHandler;
use rmcp::model::CallToolRequestParams;

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: dispatch_count ours|plain CALLS";
    let side = args.next().expect(usage);
    let calls: u64 = args.next().expect(usage).parse().expect(usage);
    match args.next().as_deref() {
        None => {}
        #[cfg(feature = "metrics")]
        Some("recorder") => {
            // Installed globally; the handle (for rendering) is not needed.
            mcp_profiles_serve::prometheus::install();
        }
        Some(other) => panic!("{other:?}: {usage} [recorder, with --features metrics]"),
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let request = rt.block_on(live_request_context());
    let context = ProfileContext::<Noop>::new(Surface::Only);
    let controller = ProfileController::<Noop>::new(context);
    let ours = controller.server(Noop);
    let plain = Plain::new(Noop, &context);
    let params = CallToolRequestParams::new("noop");
    rt.block_on(async {
        for _ in 0..calls {
            let result = match side.as_str() {
                "ours" => ours.call_tool(params.clone(), request.clone()).await,
                "plain" => plain.call_tool(params.clone(), request.clone()).await,
                other => panic!("{other:?}: {usage}"),
            };
            black_box(result.unwrap());
        }
    });
}
