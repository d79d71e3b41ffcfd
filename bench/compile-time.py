#!/usr/bin/env python3
"""Compile time of 1,000 tools in 100 groups: #[tool_group] vs plain #[tool_router].

Generates two crates with the same 1,000 rmcp #[tool] methods in 100 impl
blocks -- one annotated with mcp-profiles' #[tool_group] (plus its
vocabulary! and the ServerHandler impl a user writes), one with rmcp's
#[tool_router] (plus the sum of the routers and the #[tool_handler] impl
that serve them) -- so both are servers whose tools rustc must generate
code for, in a scratch workspace that
shares one target directory, builds every dependency once, then times a clean
`cargo build` of each crate alone (dependencies already built): one warm-up
build of each (reported, not counted), then `--runs` interleaved pairs
(A B, B A, ...), printing each side's median and the median ratio of the
pairs with its spread.

    python3 bench/compile-time.py [--runs 5] [--release] [--target-dir DIR]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

GROUPS = 100
TOOLS_PER_GROUP = 10
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def methods(group):
    out = []
    for tool in range(TOOLS_PER_GROUP):
        args = ", Parameters(args): Parameters<Args>" if tool % 2 == 0 else ""
        body = "let _ = args; " if tool % 2 == 0 else ""
        out.append(
            f'    #[tool(description = "Tool {tool} of group {group}")]\n'
            f"    async fn t_{group}_{tool}(&self{args}) -> Result<CallToolResult, ErrorData> {{\n"
            f"        {body}Ok(CallToolResult::success(vec![]))\n"
            f"    }}\n"
        )
    return "".join(out)


PRELUDE = """use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
pub struct Args {
    pub id: String,
    pub n: Option<u32>,
}

#[derive(Clone, Default)]
pub struct Synth;
"""


def tool_group_crate():
    names = lambda prefix, n: ", ".join(f"{prefix}{i}" for i in range(n))
    src = ["#![allow(dead_code)]\n", PRELUDE, "use mcp_profiles::tool_group;\n"]
    src.append(
        "mcp_profiles::vocabulary! {\n    server Synth;\n"
        f"    #[surfaces] pub enum Surface {{ {names('S', 8)} }}\n"
        f"    #[capabilities] pub enum Capability {{ {names('C', 16)} }}\n"
        f"    #[providers] pub enum Provider {{ {names('P', 8)} }}\n}}\n"
    )
    for group in range(GROUPS):
        surfaces = ", ".join(f'"s{(group + k) % 8}"' for k in range(4))
        rule = f'name = "g-{group}", surfaces = [{surfaces}]'
        if group % 3 == 0:
            rule += f', capability = "c{group % 16}"'
        if group % 5 == 0:
            rule += f', provider = "p{group % 8}"'
        src.append(f"#[tool_group({rule})]\nimpl Synth {{\n{methods(group)}}}\n")
    # What the README has a user write to serve the groups.
    src.append("\nimpl rmcp::ServerHandler for Synth {}\n")
    return "".join(src)


def tool_router_crate():
    src = ["#![allow(dead_code)]\n", PRELUDE, "use rmcp::tool_router;\n"]
    for group in range(GROUPS):
        src.append(f"#[tool_router(router = group_{group}_router)]\nimpl Synth {{\n{methods(group)}}}\n")
    # What rmcp's documentation has a user write to serve several routers:
    # their sum, and `#[tool_handler]`. Without it nothing reaches the
    # routers, rustc generates no code for the 1,000 tools, and the crate
    # is not a server: the comparison once read 1.8-2.0x for that reason.
    routers = " + ".join(f"Self::group_{group}_router()" for group in range(GROUPS))
    src.append(
        "\nimpl Synth {\n"
        "    pub fn tool_router() -> rmcp::handler::server::router::tool::ToolRouter<Self> {\n"
        f"        {routers}\n"
        "    }\n}\n\n"
        "#[rmcp::tool_handler]\nimpl rmcp::ServerHandler for Synth {}\n"
    )
    return "".join(src)


def manifest(name, extra):
    return f"""[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
rmcp = {{ version = "3.11.0", default-features = false, features = ["server", "macros"] }}
schemars = "1.2.3"
serde = {{ version = "1.0.229", features = ["derive"] }}
{extra}
"""


def run(cmd, cwd, env):
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="interleaved pairs")
    parser.add_argument("--release", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the scratch workspace")
    parser.add_argument(
        "--target-dir",
        help="target directory to (re)use, so a second run skips building the dependencies",
    )
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="mcp-profiles-compile-time-")
    crates = {
        "with_tool_group": (
            tool_group_crate(),
            f'mcp-profiles = {{ path = "{ROOT}/runtime", default-features = false }}',
        ),
        "with_tool_router": (tool_router_crate(), ""),
    }
    with open(os.path.join(scratch, "Cargo.toml"), "w") as f:
        f.write('[workspace]\nresolver = "3"\nmembers = ["with_tool_group", "with_tool_router"]\n')
    for name, (source, extra) in crates.items():
        os.makedirs(os.path.join(scratch, name, "src"))
        with open(os.path.join(scratch, name, "Cargo.toml"), "w") as f:
            f.write(manifest(name, extra))
        with open(os.path.join(scratch, name, "src", "lib.rs"), "w") as f:
            f.write(source)
    # Reuse the project's lockfile so versions match what the project builds.
    shutil.copy(os.path.join(ROOT, "Cargo.lock"), os.path.join(scratch, "Cargo.lock"))

    env = dict(os.environ, CARGO_TARGET_DIR=args.target_dir or os.path.join(scratch, "target"), CARGO_INCREMENTAL="0")
    profile = ["--release"] if args.release else []
    print(f"scratch workspace: {scratch}", file=sys.stderr)
    print("building dependencies once...", file=sys.stderr)
    # Each crate alone, as it is timed: `-p` resolves features for that
    # crate only, so rmcp is built with the features each one gets (a
    # `--workspace` build unifies them, and the first timed build of the
    # rmcp-only crate then rebuilt rmcp: the 34-39 s "outlier").
    for name in crates:
        run(["cargo", "build", "-p", name, *profile], scratch, env)

    def timed_build(name):
        run(["cargo", "clean", "-p", name, *profile], scratch, env)
        start = time.monotonic()
        run(["cargo", "build", "-p", name, *profile], scratch, env)
        return time.monotonic() - start

    # One warm-up build of each, reported apart (page cache, rmeta loading).
    warmup = {name: timed_build(name) for name in crates}
    print("warm-up (not counted): " + ", ".join(f"{n} {t:.2f} s" for n, t in warmup.items()))
    # Interleaved pairs (A B, B A, A B, ...), so drift on a noisy machine
    # hits both sides alike; each pair gives one ratio.
    times = {name: [] for name in crates}
    ratios = []
    order = list(crates)
    for pair in range(args.runs):
        for name in order if pair % 2 == 0 else reversed(order):
            times[name].append(timed_build(name))
        ratios.append(times["with_tool_group"][-1] / times["with_tool_router"][-1])
    for name in crates:
        runs = ", ".join(f"{t:.2f}" for t in times[name])
        print(f"{name:<18} median {statistics.median(times[name]):6.2f} s   runs: {runs}")
    print(
        f"ratio tool_group / tool_router: median {statistics.median(ratios):.2f} "
        f"(min {min(ratios):.2f}, max {max(ratios):.2f}, {len(ratios)} interleaved pairs)"
    )
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
