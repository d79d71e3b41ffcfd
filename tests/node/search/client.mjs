// The official MCP SDK's client against a server with tool search, for
// tests/tests/integration/search.rs: lists the tools, searches, calls a
// found tool through the proxy and directly, and calls outside the profile
// both ways, printing what each answered as one JSON object on stdout.
//
// usage: node client.mjs MCP_URL QUERY TOOL ARGUMENTS_JSON OUTSIDE_TOOL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, query, tool, argumentsJson, outside] = process.argv.slice(2);
const args = JSON.parse(argumentsJson);

const client = new Client({ name: "mcp-profiles search test", version: "0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

// A call's answer as the test compares it: the text of a result (and
// whether it is an error), or the JSON-RPC error's code and message.
const answer = async (name, callArguments) => {
  try {
    const result = await client.callTool({ name, arguments: callArguments });
    return {
      text: result.content.map((block) => block.text ?? "").join(""),
      isError: result.isError ?? false,
    };
  } catch (error) {
    return { code: error.code, message: error.message };
  }
};

const listed = (await client.listTools()).tools.map((listedTool) => listedTool.name).sort();
const search = await client.callTool({ name: "search_tools", arguments: { query } });
const found = search.structuredContent.tools.map((foundTool) => foundTool.name);
const report = {
  listed,
  found,
  schemas: search.structuredContent.tools.every((foundTool) => foundTool.inputSchema?.type === "object"),
  proxied: await answer("call_tool", { name: tool, arguments: args }),
  direct: await answer(tool, args),
  outsideProxied: await answer("call_tool", { name: outside, arguments: {} }),
  outsideDirect: await answer(outside, {}),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
await client.close();
