//! Registry verification at 1,000 and 10,000 tools, without the 25-minute
//! `synthetic` build: the same group shapes as `bench/build.rs` (10 tools a
//! group on 4 of 8 surfaces, every third group needing a capability, every
//! fifth a provider), built with `Registry::builder` (names and rules, which
//! is all verification reads; no handlers).
//!
//! ```sh
//! cargo run --release -p mcp-profiles-bench --example verify_scale
//! ```

use std::time::{Duration, Instant};

use mcp_profiles::{Registry, Rule, Term};
use mcp_profiles_bench::results::Spread;

/// A server type for the generated groups.
#[derive(Clone, Default)]
struct Scale;

mcp_profiles::vocabulary! {
    server Scale;

    #[surfaces]
    enum Surface { S0, S1, S2, S3, S4, S5, S6, S7 }

    #[capabilities]
    enum Capability { C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15 }

    #[providers]
    enum Provider { P0, P1, P2, P3, P4, P5, P6, P7 }
}

/// `groups` groups of 10 tools each, named and ruled as `bench/build.rs` does.
fn verify(groups: usize) -> Duration {
    let mut builder = Registry::<Scale>::builder();
    for group in 0..groups {
        let surfaces = (0..4).map(|k| Surface::ALL[(group + k) % 8]);
        let mut rule = Rule::on_surfaces(surfaces);
        if group % 3 == 0 {
            rule = rule.requiring(Capability::ALL[group % 16]);
        }
        if group % 5 == 0 {
            rule = rule.with_any_provider([Provider::ALL[group % 8]]);
        }
        let name: &'static str = Box::leak(format!("g-{group}").into_boxed_str());
        let tools: Vec<&'static str> = (0..10)
            .map(|tool| &*Box::leak(format!("t_{group}_{tool}").into_boxed_str()))
            .collect();
        builder = builder.group(name, rule, Box::leak(tools.into_boxed_slice()));
    }
    let start = Instant::now();
    let registry = builder.build().expect("the generated groups are valid");
    let took = start.elapsed();
    assert_eq!(registry.groups().len(), groups);
    took
}

fn main() {
    for groups in [100, 1_000] {
        let runs: Vec<f64> = (0..7).map(|_| verify(groups).as_secs_f64() * 1e3).collect();
        let spread = Spread::of(&runs);
        println!(
            "{:>6} tools in {groups:>5} groups: verification {:.2} ms median ({:.2}..{:.2}, 7 runs)",
            groups * 10,
            spread.median,
            spread.min,
            spread.max
        );
    }
}
