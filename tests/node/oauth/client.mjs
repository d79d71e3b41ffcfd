// The official MCP SDK's client authorising against our resource server, for
// the end-to-end test (tests/tests/integration/oauth/sdk.rs).
//
// `Client` + `StreamableHTTPClientTransport` with an in-memory
// `OAuthClientProvider`; the SDK does the OAuth work itself: on the 401 it
// discovers the authorization server through the resource's metadata,
// registers, sends the browser to authorize with PKCE and `resource`; on a
// 403 `insufficient_scope` it authorizes again with the challenge's scope.
// This script is the browser and the redirect target: the provider's
// `redirectToAuthorization` fetches the authorization URL without following
// redirects and keeps the `code` of its Location, which the script hands to
// `transport.finishAuth` (the token request) before trying again, as an app
// does when its callback is hit.
//
// usage: node client.mjs MCP_URL [TOOL [ARGUMENTS_JSON]]
// TOOL (default `set_task_title`, with `{}`) is the tool the step-up calls.
// Prints one JSON line per step on stdout; exits non-zero on any failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const mcpUrl = new URL(process.argv[2] ?? "");
const stepUpTool = process.argv[3] ?? "set_task_title";
const stepUpArguments = JSON.parse(process.argv[4] ?? "{}");
// Never contacted: the code is read from the authorization's redirect.
const REDIRECT_URL = "http://127.0.0.1:9/callback";

const emit = (step) => process.stdout.write(`${JSON.stringify(step)}\n`);

class InMemoryProvider {
  #client;
  #tokens;
  #verifier;
  #code;

  get redirectUrl() {
    return REDIRECT_URL;
  }

  get clientMetadata() {
    return {
      client_name: "mcp-profiles oauth-sdk test",
      redirect_uris: [REDIRECT_URL],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation() {
    return this.#client;
  }

  saveClientInformation(client) {
    if (!this.#client) emit({ step: "registered", client_id: client.client_id });
    this.#client = client;
  }

  tokens() {
    return this.#tokens;
  }

  saveTokens(tokens) {
    this.#tokens = tokens;
    emit({ step: "token", scope: tokens.scope ?? null });
  }

  saveCodeVerifier(verifier) {
    this.#verifier = verifier;
  }

  codeVerifier() {
    if (!this.#verifier) throw new Error("no code verifier saved");
    return this.#verifier;
  }

  // The browser: the authorization server approves at once and redirects.
  async redirectToAuthorization(url) {
    const response = await fetch(url, { redirect: "manual" });
    const location = response.headers.get("location");
    if (response.status !== 302 || !location) {
      throw new Error(`authorization answered ${response.status}: ${await response.text()}`);
    }
    const callback = new URL(location);
    const error = callback.searchParams.get("error");
    if (error) {
      throw new Error(`authorization refused: ${error}: ${callback.searchParams.get("error_description")}`);
    }
    this.#code = callback.searchParams.get("code");
    emit({
      step: "authorize",
      scope: url.searchParams.get("scope"),
      resource: url.searchParams.get("resource"),
      code_challenge_method: url.searchParams.get("code_challenge_method"),
    });
  }

  // The code of the last authorization, once.
  takeCode() {
    const code = this.#code;
    this.#code = undefined;
    if (!code) throw new Error("no authorization code: the SDK did not authorize");
    return code;
  }
}

// Every 401 and 403 the transport receives, with its challenge.
const recordingFetch = async (url, init) => {
  const response = await fetch(url, init);
  if (response.status === 401 || response.status === 403) {
    emit({
      step: "challenge",
      status: response.status,
      www_authenticate: response.headers.get("www-authenticate"),
    });
  }
  return response;
};

const provider = new InMemoryProvider();
const newTransport = () => new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: recordingFetch });
const newClient = () => new Client({ name: "mcp-profiles-oauth-sdk-test", version: "1.0.0" });

// Runs `attempt`; on the SDK's UnauthorizedError (it has sent the browser to
// authorize) completes the authorization on `transport` and says so.
async function authorizing(transport, attempt) {
  try {
    await attempt();
    return false;
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    emit({ step: "unauthorized", message: error.message });
    await transport.finishAuth(provider.takeCode());
    return true;
  }
}

const toolNames = async (client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

try {
  // Without a token: 401, discovery, registration, authorization, token.
  const first = newTransport();
  if (!(await authorizing(first, () => newClient().connect(first)))) {
    throw new Error("connected without a token");
  }

  // With the token: a session.
  const transport = newTransport();
  const client = newClient();
  await client.connect(transport);
  emit({ step: "connected", session: transport.sessionId ?? null });
  emit({ step: "tools/list", tools: await toolNames(client) });

  // A tool the token's scopes hide: 403 insufficient_scope, the SDK
  // authorizes with the challenge's scope, the call is sent again.
  const call = () => client.callTool({ name: stepUpTool, arguments: stepUpArguments });
  let result;
  const steppedUp = await authorizing(transport, async () => {
    result = await call();
  });
  if (steppedUp) result = await call();
  emit({
    step: "call",
    tool: stepUpTool,
    stepped_up: steppedUp,
    is_error: result.isError ?? false,
    session: transport.sessionId ?? null,
  });
  emit({ step: "tools/list", tools: await toolNames(client) });

  await client.close();
  emit({ step: "done" });
  process.exit(0);
} catch (error) {
  emit({ step: "error", message: String(error?.stack ?? error) });
  process.exit(1);
}
