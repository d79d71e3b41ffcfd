#!/usr/bin/env python3
"""Fails if, in any crate of the workspace, a module imports a module that
imports it back (directly or through others).

A module is a file under `src/` (`a/mod.rs` and `a.rs` are module `a`). An
edge A -> B is any `crate::...`, `super::...` or `self::...` path in A that
names B or an item of B. A name a module binds with `use` (a re-export such
as the crate root's `pub use context::Context`, or a private import its
children reach with `super::Context`) is followed to the module that defines
it: `crate::Context` is an edge to `context`, not to the crate root. A
module naming its own ancestor, or its own descendant, is how Rust modules
are built (re-exports, shared private items) and is not an edge: what must
not loop are the sibling subtrees, so `a::x` naming `b::y` is an edge from
`a` to `b`.

The cycles not yet broken are listed in `scripts/module-cycles.known`, one
set of tangled modules a line: the script fails on any other, and on a line
whose modules no longer loop exactly so (the list only shrinks).

Usage: scripts/module-cycles.py [CRATE_DIR ...] (default: every crate with
a src/ directory, the workspace's fuzz/ excluded).
"""

import pathlib
import re
import sys

PATH = re.compile(r"(?<![A-Za-z0-9_:])(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE = re.compile(r"\buse\s+([^;]+);")


def module_of(src: pathlib.Path, file: pathlib.Path) -> tuple:
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def use_tree(text: str, prefix: list) -> list:
    """The (path, bound name) pairs of a use tree such as
    `a::{b, c::{d as e, self}, f::*}`; a glob binds `*`."""
    bound = []
    text = text.strip()
    brace = text.find("{")
    if brace < 0:
        parts = [p.strip() for p in text.split("::") if p.strip()]
        if not parts:
            return bound
        last = parts[-1]
        alias = None
        if " as " in last:
            last, alias = [p.strip() for p in last.split(" as ", 1)]
        # `self` binds the module itself; a glob binds `*` to the module.
        path = prefix + parts[:-1] + ([] if last in ("self", "*") else [last])
        name = alias or (path[-1] if last == "self" and path else last)
        if name and name != "_":
            bound.append((path, name))
        return bound
    head = [p.strip() for p in text[:brace].split("::") if p.strip()]
    inner = text[brace + 1 : text.rfind("}")]
    depth, start = 0, 0
    for i, ch in enumerate(inner + ","):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            item = inner[start:i].strip()
            if item:
                bound.extend(use_tree(item, prefix + head))
            start = i + 1
    return bound


def without_inline_modules(text: str) -> str:
    """`text` without the bodies of `mod name { ... }` (a file's tests): its
    `use super::...` bind names in the inline module, not in the file's."""
    out, at = [], 0
    for found in re.finditer(r"\bmod\s+[A-Za-z_][A-Za-z0-9_]*\s*\{", text):
        if found.start() < at:
            continue
        depth, end = 0, found.end() - 1
        for end in range(found.end() - 1, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
        out.append(text[at : found.start()])
        at = end + 1
    out.append(text[at:])
    return "".join(out)


class Crate:
    def __init__(self, src: pathlib.Path):
        self.files = list(src.rglob("*.rs"))
        self.modules = {module_of(src, f) for f in self.files}
        # file -> (its module, the paths it names: (root module, rest)).
        self.named = {}
        # module -> name -> (root module, rest of the path) a `use` binds.
        self.bindings = {m: {} for m in self.modules}
        for file in self.files:
            here = module_of(src, file)
            text = without_inline_modules(re.sub(r"//[^\n]*", "", file.read_text()))
            named = [self.base(here, root, path.split("::")[1:]) for root, path in PATH.findall(text)]
            for tree in USE.findall(text):
                for path, name in use_tree(tree, []):
                    if path and path[0] in ("crate", "super", "self"):
                        base = self.base(here, path[0], path[1:])
                        self.bindings[here][name] = base
                        named.append(base)
                    elif path and (here + (path[0],)) in self.modules:
                        # A child module named without `self::` (2018 paths).
                        self.bindings[here][name] = (here, path)
            self.named[file] = (here, named)

    def base(self, here: tuple, root: str, rest: list) -> tuple:
        if root == "crate":
            return ((), rest)
        if root == "self":
            return (here, rest)
        # `super` in a/b.rs (module a::b) is `a`; each further `super` one up.
        base = here[:-1]
        while rest and rest[0] == "super":
            base = base[:-1]
            rest = rest[1:]
        return (base, rest)

    def resolve(self, base: tuple, rest: list, depth: int = 0) -> tuple:
        """The module that defines what `base::rest` names."""
        path = base
        for index, name in enumerate(rest):
            if path + (name,) in self.modules:
                path = path + (name,)
                continue
            binding = self.bindings.get(path, {}).get(name)
            if binding is None and "*" in self.bindings.get(path, {}):
                glob = self.bindings[path]["*"]
                binding = (glob[0], glob[1] + [name])
            if binding is not None and depth < 16:
                return self.resolve(binding[0], binding[1] + rest[index + 1 :], depth + 1)
            break
        return path

    def graph(self) -> dict:
        graph = {m: set() for m in self.modules}
        for here, named in self.named.values():
            for base, rest in named:
                target = self.resolve(base, rest)
                related = target[: len(here)] == here or here[: len(target)] == target
                if not related:
                    # An edge between the two sibling subtrees that hold them.
                    common = 0
                    while here[common] == target[common]:
                        common += 1
                    graph[here[: common + 1]].add(target[: common + 1])
        return graph


def tangles(graph: dict) -> list:
    """The strongly connected sets of two or more modules (Tarjan's), each
    sorted: the modules of one import cycle or of several that overlap."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            members = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.append(member)
                if member == node:
                    break
            if len(members) > 1:
                found.append(tuple(sorted("::".join(m) for m in members)))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def cycle_within(graph: dict, members: set) -> list:
    """One import cycle through the modules of a tangle, to show."""
    start = min(members)
    path, seen = [start], {start}
    while True:
        nxt = min(m for m in graph[path[-1]] if m in members)
        if nxt in seen:
            return path[path.index(nxt):] + [nxt]
        path.append(nxt)
        seen.add(nxt)


def known(top: pathlib.Path) -> dict:
    """The tangles `module-cycles.known` lists, by crate directory: the
    cycles left to break (issue 41), none may be added and each line goes
    once its cycle is broken."""
    listed = {}
    for line in (top / "scripts" / "module-cycles.known").read_text().splitlines():
        line = line.split("#", 1)[0].split()
        if line:
            listed.setdefault(line[0], set()).add(tuple(sorted(line[1:])))
    return listed


def main() -> int:
    top = pathlib.Path(__file__).resolve().parent.parent
    crates = [pathlib.Path(a).resolve() for a in sys.argv[1:]] or sorted(
        p.parent for p in top.glob("**/Cargo.toml")
        if (p.parent / "src").is_dir() and "target" not in p.parts and "fuzz" not in p.parts
    )
    listed = known(top)
    failed = False
    for crate in crates:
        name = str(crate.relative_to(top))
        graph = Crate(crate / "src").graph()
        found = set(tangles(graph))
        expected = listed.get(name, set())
        for tangle in sorted(found - expected):
            failed = True
            members = {tuple(m.split("::")) if m else () for m in tangle}
            shown = " -> ".join("::".join(m) or "crate" for m in cycle_within(graph, members))
            print(f"{name}: import cycle {shown} (modules: {' '.join(tangle)})")
        for tangle in sorted(expected - found):
            failed = True
            print(f"{name}: `{' '.join(tangle)}` no longer loop like this: "
                  f"update its line in scripts/module-cycles.known")
    total = sum(len(t) for t in listed.values())
    if not failed:
        print(f"no import cycles in {len(crates)} crates but the {total} listed in "
              f"scripts/module-cycles.known")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
