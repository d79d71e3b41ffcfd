"""The FastMCP peer of the `peers` bench (bench/benches/peers).

Serves the tools of a tools file (both profiles' `tools/list` as our server
lists them; written by the bench) over streamable HTTP on 127.0.0.1 with
FastMCP on uvicorn, as a performance-minded user runs it: uvicorn[standard]'s
uvloop event loop and httptools parser, named explicitly so a missing one is
an error, not a silent fallback; uvicorn's and FastMCP's log levels pinned
to warning. Every tool is tagged with the profiles it belongs to
(`p0`, `p1`); a session sees `p0` at first (FastMCP's server-wide allowlist,
`enable(tags=..., only=True)`), and a switch gives every session
session-scoped visibility rules showing the other profile's tag, saved with
FastMCP's own `save_visibility_rules` (one tools/list_changed per session).
Every tool answers with the fixed result the tools file gives
(`list_workspaces_kandev`'s on Kandev's demo board).

Only with `--switchable` (the switch rows) does a middleware remember each
session for the switch: FastMCP runs its middleware chain on every message,
a cost the load rows (which never switch) should not pay.

Side channel (the bench's): prints `127.0.0.1:PORT` once listening; each
stdin line switches every session to the other profile and is answered with
`switched N` (N sessions); end of stdin stops it.

usage: server.py --tools FILE [--switchable]
"""

import argparse
import asyncio
import json
import os
import socket
import sys
import threading
from typing import Any

# Pinned before FastMCP reads its settings at import.
os.environ["FASTMCP_LOG_LEVEL"] = "WARNING"

import uvicorn  # noqa: E402
import uvloop  # noqa: E402
from fastmcp import FastMCP  # noqa: E402
from fastmcp.server.context import Context  # noqa: E402
from fastmcp.server.middleware import Middleware  # noqa: E402
from fastmcp.server.transforms.visibility import save_visibility_rules  # noqa: E402
from fastmcp.tools.base import Tool, ToolResult  # noqa: E402
from mcp.types import TextContent, ToolAnnotations  # noqa: E402


class FixedTool(Tool):
    """A tool defined by its listed JSON; every call answers `result`."""

    result: list[dict[str, Any]]

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        return ToolResult(content=[TextContent(**block) for block in self.result])

    def to_mcp_tool(self, **overrides: Any) -> Any:
        # FastMCP makes a title of the name when a tool has none; ours lists
        # none, and the bench requires the same definitions on every side.
        tool = super().to_mcp_tool(**overrides)
        if self.title is None:
            tool.title = None
        return tool


class Detached(Context):
    """A session's context outside any request, for the switch: its
    notification goes to the session's standalone GET stream (no request to
    relate it to)."""

    @property
    def request_id(self) -> Any:
        return None


class Sessions(Middleware):
    """Remembers each session when it sends `notifications/initialized`
    (notifications only, so requests pay nothing for it)."""

    def __init__(self, server: FastMCP):
        self.server = server
        self.sessions: dict[str, Any] = {}

    async def on_notification(self, context, call_next):
        if context.method == "notifications/initialized" and context.fastmcp_context:
            ctx = context.fastmcp_context
            self.sessions[ctx.session_id] = ctx.session
        return await call_next(context)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", required=True)
    parser.add_argument("--switchable", action="store_true")
    args = parser.parse_args()
    with open(args.tools) as file:
        spec = json.load(file)
    profiles = spec["profiles"]
    result = spec["call_result"]["content"]
    server = FastMCP("kandev-peer")
    tags: dict[str, set[str]] = {}
    tools: dict[str, dict[str, Any]] = {}
    for index, listed in enumerate(profiles):
        for tool in listed:
            tools.setdefault(tool["name"], tool)
            tags.setdefault(tool["name"], set()).add(f"p{index}")
    for name, tool in tools.items():
        server.add_tool(
            FixedTool(
                name=name,
                title=tool.get("title"),
                description=tool.get("description"),
                parameters=tool.get("inputSchema") or {"type": "object"},
                output_schema=tool.get("outputSchema"),
                annotations=ToolAnnotations(**tool["annotations"])
                if tool.get("annotations")
                else None,
                tags=tags[name],
                result=result,
            )
        )
    server.enable(tags={"p0"}, only=True)
    sessions = Sessions(server)
    if args.switchable:
        server.add_middleware(sessions)
    app = server.http_app(path="/mcp", transport="http")

    sock = socket.socket()
    # Accepted connections inherit it (Linux): without it Nagle's algorithm
    # holds the SSE response's last write for the client's delayed ACK
    # (~40 ms), a cost of neither MCP layer; our listener and node:http set
    # it too.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(4096)
    host, port = sock.getsockname()
    config = uvicorn.Config(
        app,
        http="httptools",
        log_level="warning",
        timeout_keep_alive=3600,
        lifespan="on",
        access_log=False,
    )
    uvi = uvicorn.Server(config)

    current = 0

    async def switch() -> int:
        nonlocal current
        current = 1 - current
        # Replaces the session's rules: hide every tool, show this profile's.
        rules = [
            {"enabled": False, "match_all": True, "components": ["tool"]},
            {"enabled": True, "tags": [f"p{current}"], "components": ["tool"]},
        ]
        done = 0
        for session in list(sessions.sessions.values()):
            try:
                await save_visibility_rules(
                    Detached(server, session=session), rules, components={"tool"}
                )
                done += 1
            except Exception as error:  # a closed session
                print(f"switch: {error!r}", file=sys.stderr)
        return done

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        task = asyncio.create_task(uvi.serve(sockets=[sock]))
        while not uvi.started:
            await asyncio.sleep(0.01)
        print(f"{host}:{port}", flush=True)

        def read_stdin() -> None:
            for _ in sys.stdin:
                done = asyncio.run_coroutine_threadsafe(switch(), loop).result()
                print(f"switched {done}", flush=True)
            loop.call_soon_threadsafe(setattr, uvi, "should_exit", True)

        threading.Thread(target=read_stdin, daemon=True).start()
        await task

    # The server runs in this loop (uvicorn's `loop` setting applies only
    # when uvicorn makes the loop itself): uvloop's.
    uvloop.run(serve())


if __name__ == "__main__":
    main()
