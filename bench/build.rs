//! Generates the synthetic registries the scaling benchmarks use: real
//! `vocabulary!` and `#[tool_group]` source, 10 tools per group.

use std::fmt::Write as _;

/// (module, groups)
const SIZES: [(&str, usize); 2] = [("groups_100", 100), ("groups_1000", 1000)];
const TOOLS_PER_GROUP: usize = 10;
const SURFACES: usize = 8;
const CAPABILITIES: usize = 16;
const PROVIDERS: usize = 8;

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let mut source = String::new();
    if std::env::var_os("CARGO_FEATURE_SYNTHETIC").is_some() {
        for (module, groups) in SIZES {
            source.push_str(&registry(module, groups));
        }
    }
    std::fs::write(format!("{out}/synthetic.rs"), source).expect("OUT_DIR is writable");
    println!("cargo::rerun-if-changed=build.rs");
}

fn registry(module: &str, groups: usize) -> String {
    let names = |prefix: &str, count: usize| {
        (0..count)
            .map(|i| format!("{prefix}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = String::new();
    writeln!(
        s,
        "/// A synthetic registry of {groups} groups and {} tools.
pub mod {module} {{
    use mcp_profiles::tool_group;
    use rmcp::handler::server::wrapper::Parameters;
    use rmcp::model::CallToolResult;
    use rmcp::{{ErrorData, tool}};

    use crate::synthetic::Args;

    /// The synthetic server.
    #[derive(Clone, Default)]
    pub struct Synth;

    impl rmcp::ServerHandler for Synth {{}}

    mcp_profiles::vocabulary! {{
        server Synth;
        #[surfaces] pub enum Surface {{ {} }}
        #[capabilities] pub enum Capability {{ {} }}
        #[providers] pub enum Provider {{ {} }}
    }}
",
        groups * TOOLS_PER_GROUP,
        names("S", SURFACES),
        names("C", CAPABILITIES),
        names("P", PROVIDERS),
    )
    .unwrap();
    for group in 0..groups {
        // Each group is on for half the surfaces; every third needs a
        // capability and every fifth a provider, so a profile enables about
        // a third of the registry.
        let surfaces: Vec<String> = (0..SURFACES / 2)
            .map(|k| format!("\"s{}\"", (group + k) % SURFACES))
            .collect();
        let mut rule = format!("name = \"g-{group}\", surfaces = [{}]", surfaces.join(", "));
        if group % 3 == 0 {
            write!(rule, ", capability = \"c{}\"", group % CAPABILITIES).unwrap();
        }
        if group % 5 == 0 {
            write!(rule, ", provider = \"p{}\"", group % PROVIDERS).unwrap();
        }
        writeln!(s, "    #[tool_group({rule})]\n    impl Synth {{").unwrap();
        for tool in 0..TOOLS_PER_GROUP {
            // Half the tools take typed parameters, so schemas are real work.
            let args = if tool % 2 == 0 {
                ", Parameters(args): Parameters<Args>"
            } else {
                ""
            };
            let body = if tool % 2 == 0 { "let _ = args; " } else { "" };
            // A quarter each read-only, non-destructive, destructive and
            // not annotated, so policies remove real fractions.
            let annotations = [
                ", annotations(read_only_hint = true)",
                ", annotations(read_only_hint = false, destructive_hint = false)",
                ", annotations(read_only_hint = false, destructive_hint = true)",
                "",
            ][tool % 4];
            writeln!(
                s,
                "        #[tool(description = \"Tool {tool} of group {group}\"{annotations})]
        async fn t_{group}_{tool}(&self{args}) -> Result<CallToolResult, ErrorData> {{
            {body}Ok(CallToolResult::success(vec![]))
        }}"
            )
            .unwrap();
        }
        s.push_str("    }\n");
    }
    s.push_str("}\n");
    s
}
