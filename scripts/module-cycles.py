#!/usr/bin/env python3
"""Fails if, in any crate of the workspace, a module imports a module that
imports it back (directly or through others).

A module is a file under `src/` (`a/mod.rs` and `a.rs` are module `a`). An
edge A -> B is any `crate::...` or `super::...` path in A that names B or an
item of B. A module naming its own ancestor, or its own descendant, is how
Rust modules are built (re-exports, shared private items) and is not an
edge: what must not loop are the sibling subtrees.

Usage: scripts/module-cycles.py [CRATE_DIR ...] (default: every crate with
a src/ directory, the workspace's fuzz/ excluded).
"""

import pathlib
import re
import sys

PATH = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP = re.compile(r"\buse\s+(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};", re.S)


def module_of(src: pathlib.Path, file: pathlib.Path) -> tuple:
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def resolve(here: tuple, is_dir_module: bool, root: str, rest: list, modules: set) -> tuple:
    if root == "crate":
        base = ()
    else:
        # `super` in a/b.rs (module a::b) is `a`; each further `super` one up.
        base = here[:-1]
        while rest and rest[0] == "super":
            base = base[:-1]
            rest = rest[1:]
    path = base
    for name in rest:
        if path + (name,) in modules:
            path = path + (name,)
        else:
            break
    return path


def edges_of(src: pathlib.Path) -> dict:
    files = [f for f in src.rglob("*.rs")]
    modules = {module_of(src, f) for f in files}
    graph = {m: set() for m in modules}
    for file in files:
        here = module_of(src, file)
        text = re.sub(r"//[^\n]*", "", file.read_text())
        targets = []
        for root, path in PATH.findall(text):
            targets.append((root, path.split("::")[1:]))
        for root, path, group in USE_GROUP.findall(text):
            prefix = path.split("::")[1:] if path else []
            for item in re.split(r"[,\s{}]+", group):
                if item and item not in ("self",) and re.match(r"[A-Za-z_]", item):
                    targets.append((root, prefix + [item]))
        for root, rest in targets:
            target = resolve(here, file.name == "mod.rs", root, rest, modules)
            related = target[: len(here)] == here or here[: len(target)] == target
            if not related:
                graph[here].add(target)
    return graph


def cycle(graph: dict):
    state = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, stack)
                if found:
                    return found
        state[node] = 2
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def main() -> int:
    top = pathlib.Path(__file__).resolve().parent.parent
    crates = [pathlib.Path(a) for a in sys.argv[1:]] or sorted(
        p.parent for p in top.glob("**/Cargo.toml")
        if (p.parent / "src").is_dir() and "target" not in p.parts and "fuzz" not in p.parts
    )
    failed = False
    for crate in crates:
        found = cycle(edges_of(crate / "src"))
        if found:
            failed = True
            shown = " -> ".join("::".join(m) or "crate" for m in found)
            print(f"{crate}: import cycle {shown}")
    if not failed:
        print(f"no import cycles in {len(crates)} crates")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
