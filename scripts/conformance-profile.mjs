// The second-profile check of scripts/conformance.sh: against a server
// serving a profile that hides some tools, tools/list must name exactly the
// profile's tools, and calling a hidden tool must be refused.
//
// usage: node conformance-profile.mjs URL SHOWN_FILE HIDDEN_FILE
// (files: tool names, one per line). Speaks the 2025-era session protocol.
import { readFileSync } from "node:fs";

const [url, shownFile, hiddenFile] = process.argv.slice(2);
const lines = (file) => readFileSync(file, "utf8").split("\n").filter(Boolean);
const shown = lines(shownFile).sort();
const hidden = lines(hiddenFile).sort();
let session;
let id = 0;

async function rpc(method, params) {
  const message = { jsonrpc: "2.0", method, params };
  const notification = method.startsWith("notifications/");
  if (!notification) message.id = ++id;
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  if (session) headers["mcp-session-id"] = session;
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(message) });
  session ??= response.headers.get("mcp-session-id");
  const body = await response.text();
  if (notification) return undefined;
  // A JSON body, or an SSE stream whose data lines hold the response.
  const messages = body.trim().startsWith("{")
    ? [JSON.parse(body)]
    : body.split("\n").filter((l) => l.startsWith("data:") && l.length > 6).map((l) => JSON.parse(l.slice(5)));
  const answer = messages.find((m) => m.id === message.id);
  if (!answer) throw new Error(`no answer to ${method}: HTTP ${response.status} ${body}`);
  return answer;
}

const failures = [];
await rpc("initialize", {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "conformance-profile-check", version: "1" },
});
await rpc("notifications/initialized", {});
const listed = (await rpc("tools/list", {})).result.tools.map((t) => t.name).sort();
if (JSON.stringify(listed) !== JSON.stringify(shown)) {
  failures.push(`tools/list named [${listed}], the profile has [${shown}]`);
}
for (const name of hidden) {
  if (listed.includes(name)) failures.push(`hidden tool ${name} is listed`);
  const answer = await rpc("tools/call", { name, arguments: {} });
  const refused = answer.error?.code === -32602 && /not available in the current profile/.test(answer.error.message);
  if (!refused) failures.push(`calling hidden tool ${name} was not refused: ${JSON.stringify(answer)}`);
}
for (const failure of failures) console.log(`  FAIL ${failure}`);
console.log(`  ${shown.length} tools listed as the profile says, ${hidden.length} hidden tools refused: ${failures.length === 0 ? "ok" : "FAILED"}`);
process.exit(failures.length === 0 ? 0 : 1);
