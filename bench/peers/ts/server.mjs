// The TypeScript SDK peer of the `peers` bench (bench/benches/peers).
//
// Serves the tools of a tools file (both profiles' `tools/list` as our
// server lists them; written by the bench) over streamable HTTP on
// 127.0.0.1 with @modelcontextprotocol/sdk: one `McpServer` per session on
// its `StreamableHTTPServerTransport`, as the SDK's stateful examples do,
// on node:http. Each tool is registered with `registerTool` from a zod
// schema made by `z.fromJSONSchema` (the SDK takes zod, and lists its own
// conversion back to JSON Schema); every call answers the fixed result the
// tools file gives (`list_workspaces_kandev`'s on Kandev's demo board).
// A session starts with the first profile's tools enabled; a switch calls
// `RegisteredTool.enable()` / `disable()` on every session's tools whose
// visibility changes. Each of those calls sends a tools/list_changed unless
// `--debounce` passes the SDK's `debouncedNotificationMethods`, which
// coalesces one tick's into one.
//
// `--low-level` serves the same tools as a performance-minded user of the
// SDK would: its low-level `Server` per session, with `tools/list` answering
// a list built once per profile (the tools file's definitions, as ours
// lists them, so no schema conversion) and `tools/call` answering the fixed
// result for a listed tool (-32602 for another); a switch sends one
// `tools/list_changed` per session.
//
// Side channel (the bench's): prints `127.0.0.1:PORT` once listening; each
// stdin line switches every session to the other profile and is answered
// with `switched N` (N sessions); end of stdin stops it.
//
// usage: node server.mjs --sdk DIR --tools FILE [--debounce | --low-level]
//   DIR: where scripts/peers.sh installed the SDK (target/peers/ts).
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const sdk = flag("--sdk");
const toolsFile = flag("--tools");
const debounce = args.includes("--debounce");
const lowLevel = args.includes("--low-level");
if (!sdk || !toolsFile) {
  console.error("usage: server.mjs --sdk DIR --tools FILE [--debounce | --low-level]");
  process.exit(2);
}
// The SDK lives under target/, not next to this file.
const require = createRequire(join(resolve(sdk), "package.json"));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { Server } = require("@modelcontextprotocol/sdk/server/index.js");
const {
  isInitializeRequest,
  ListToolsRequestSchema,
  CallToolRequestSchema,
  McpError,
  ErrorCode,
} = require("@modelcontextprotocol/sdk/types.js");
const { z } = require("zod");

const spec = JSON.parse(readFileSync(toolsFile, "utf8"));
const profiles = spec.profiles.map((tools) => new Set(tools.map((t) => t.name)));
const result = spec.call_result;
const definitions = new Map();
for (const tools of spec.profiles) {
  for (const tool of tools) {
    if (!definitions.has(tool.name)) definitions.set(tool.name, tool);
  }
}
// Converted once: the zod schemas are shared by every session's server.
const schemas = new Map();
let unconverted = 0;
for (const [name, tool] of definitions) {
  try {
    schemas.set(name, z.fromJSONSchema(tool.inputSchema ?? { type: "object" }));
  } catch {
    unconverted += 1;
    schemas.set(name, z.object({}).passthrough());
  }
}
if (unconverted > 0) console.error(`ts peer: ${unconverted} input schemas kept as open objects`);

let current = 0;
const sessions = new Map();
// The low-level server's answers, built once per profile.
const lists = spec.profiles.map((tools) => ({ tools }));

function newLowLevelSession() {
  const server = new Server(
    { name: "kandev-peer", version: "0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => lists[current]);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (!profiles[current].has(request.params.name)) {
      throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${request.params.name}`);
    }
    return result;
  });
  return { server, registered: null };
}

function newSession() {
  if (lowLevel) return newLowLevelSession();
  const server = new McpServer(
    { name: "kandev-peer", version: "0" },
    debounce ? { debouncedNotificationMethods: ["notifications/tools/list_changed"] } : {},
  );
  const registered = new Map();
  for (const [name, tool] of definitions) {
    const config = { description: tool.description, inputSchema: schemas.get(name) };
    if (tool.title) config.title = tool.title;
    if (tool.annotations) config.annotations = tool.annotations;
    const handle = server.registerTool(name, config, async () => result);
    if (!profiles[current].has(name)) handle.disable();
    registered.set(name, handle);
  }
  return { server, registered };
}

function switchAll() {
  current = 1 - current;
  for (const { server, registered } of sessions.values()) {
    if (!registered) {
      server.sendToolListChanged().catch(() => {});
      continue;
    }
    for (const [name, handle] of registered) {
      const wanted = profiles[current].has(name);
      if (handle.enabled !== wanted) wanted ? handle.enable() : handle.disable();
    }
  }
  return sessions.size;
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

const http = createServer(async (req, res) => {
  try {
    if (!req.url.startsWith("/mcp")) {
      res.writeHead(404).end();
      return;
    }
    const body = req.method === "POST" ? await readBody(req) : undefined;
    const id = req.headers["mcp-session-id"];
    const known = id && sessions.get(id);
    if (known) {
      await known.transport.handleRequest(req, res, body);
      return;
    }
    if (!id && req.method === "POST" && isInitializeRequest(body)) {
      const session = newSession();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, { ...session, transport }),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await session.server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    res.writeHead(id ? 404 : 400, { "content-type": "application/json" }).end(
      JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "no such session" }, id: null }),
    );
  } catch (error) {
    console.error("ts peer:", error);
    if (!res.headersSent) res.writeHead(500).end();
  }
});
// Keep-alive connections and GET streams live as long as the bench needs.
http.keepAliveTimeout = 3_600_000;
http.requestTimeout = 0;
http.listen(0, "127.0.0.1", () => {
  const { address, port } = http.address();
  process.stdout.write(`${address}:${port}\n`);
});

const lines = createInterface({ input: process.stdin });
lines.on("line", () => {
  const switched = switchAll();
  process.stdout.write(`switched ${switched}\n`);
});
lines.on("close", () => process.exit(0));
