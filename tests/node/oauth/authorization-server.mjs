// An OAuth 2.1 authorization server for the end-to-end test
// (tests/tests/integration/oauth/sdk.rs), built on the official MCP SDK's own
// `mcpAuthRouter`: dynamic client registration, authorization with PKCE (the
// SDK's token handler verifies the challenge) and the token endpoint, with an
// in-memory provider that approves every authorization at once.
//
// Access tokens are ES256 JWTs signed by a key generated at start: `iss` this
// server's URL (no trailing slash), `aud` the `resource` the client sent
// (RFC 8707; an authorization without one is refused), `sub` SUBJECT,
// `scope` the scopes requested, a five-minute `exp`. No refresh tokens: a
// step-up is a new authorization.
//
// Serves its RFC 8414 metadata (the router's, with this issuer and a
// `jwks_uri`) and the JWKS, and at GET /counts how many registrations,
// authorizations and token grants it saw.
//
// usage: node authorization-server.mjs SUBJECT [PORT]
// Listens on PORT (default: a free port) of 127.0.0.1 and prints `{"issuer":"http://..."}`
// on stdout; logs one JSON line per event on stderr.
import { randomUUID } from "node:crypto";
import express from "express";
import { SignJWT, exportJWK, generateKeyPair, jwtVerify } from "jose";
import { createOAuthMetadata, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import {
  InvalidGrantError,
  InvalidTargetError,
  InvalidTokenError,
  UnsupportedGrantTypeError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";

const subject = process.argv[2];
const port = Number(process.argv[3] ?? 0);
if (!subject || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error("usage: node authorization-server.mjs SUBJECT [PORT]");
  process.exit(2);
}
const TOKEN_LIFETIME_SECONDS = 300;
const ALG = "ES256";

const { privateKey, publicKey } = await generateKeyPair(ALG);
const kid = randomUUID();
const jwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: "sig" };

const counts = { registrations: 0, authorizations: 0, token_grants: 0 };
const log = (event) => process.stderr.write(`${JSON.stringify(event)}\n`);

const app = express();
const server = await new Promise((resolve, reject) => {
  const listening = app.listen(port, "127.0.0.1", () => resolve(listening));
  listening.on("error", reject);
});
const issuer = `http://127.0.0.1:${server.address().port}`;

const clients = new Map();
// code -> what the authorization granted, until the code is exchanged once.
const codes = new Map();

const provider = {
  clientsStore: {
    getClient: (clientId) => clients.get(clientId),
    registerClient: (client) => {
      clients.set(client.client_id, client);
      counts.registrations++;
      log({ event: "registration", client_id: client.client_id, scope: client.scope });
      return client;
    },
  },

  async authorize(client, params, res) {
    if (!params.resource) {
      throw new InvalidTargetError("the `resource` parameter (RFC 8707) is required");
    }
    const code = randomUUID();
    codes.set(code, {
      clientId: client.client_id,
      codeChallenge: params.codeChallenge,
      redirectUri: params.redirectUri,
      scopes: params.scopes ?? [],
      resource: params.resource.href,
    });
    counts.authorizations++;
    log({ event: "authorization", scope: (params.scopes ?? []).join(" "), resource: params.resource.href });
    const target = new URL(params.redirectUri);
    target.searchParams.set("code", code);
    if (params.state !== undefined) target.searchParams.set("state", params.state);
    res.redirect(302, target.href);
  },

  async challengeForAuthorizationCode(client, code) {
    return granted(client, code).codeChallenge;
  },

  async exchangeAuthorizationCode(client, code, _verifier, redirectUri, resource) {
    const grant = granted(client, code);
    codes.delete(code);
    if (redirectUri !== undefined && redirectUri !== grant.redirectUri) {
      throw new InvalidGrantError("redirect_uri differs from the authorization's");
    }
    if (resource !== undefined && resource.href !== grant.resource) {
      throw new InvalidTargetError("resource differs from the authorization's");
    }
    const scope = grant.scopes.join(" ");
    const now = Math.floor(Date.now() / 1000);
    const accessToken = await new SignJWT({ scope, client_id: client.client_id })
      .setProtectedHeader({ alg: ALG, kid, typ: "at+jwt" })
      .setIssuer(issuer)
      .setAudience(grant.resource)
      .setSubject(subject)
      .setIssuedAt(now)
      .setExpirationTime(now + TOKEN_LIFETIME_SECONDS)
      .setJti(randomUUID())
      .sign(privateKey);
    counts.token_grants++;
    log({ event: "token", grant: counts.token_grants, scope, aud: grant.resource });
    return { access_token: accessToken, token_type: "Bearer", expires_in: TOKEN_LIFETIME_SECONDS, scope };
  },

  async exchangeRefreshToken() {
    throw new UnsupportedGrantTypeError("this server issues no refresh tokens");
  },

  async verifyAccessToken(token) {
    try {
      const { payload } = await jwtVerify(token, publicKey, { issuer });
      return {
        token,
        clientId: payload.client_id,
        scopes: String(payload.scope ?? "").split(" ").filter(Boolean),
        expiresAt: payload.exp,
      };
    } catch (error) {
      throw new InvalidTokenError(String(error));
    }
  },
};

// The authorization `code` names, issued to `client`.
function granted(client, code) {
  const grant = codes.get(code);
  if (!grant || grant.clientId !== client.client_id) {
    throw new InvalidGrantError("unknown authorization code");
  }
  return grant;
}

// The router's metadata names `issuerUrl.href`, slash-suffixed, and no
// `jwks_uri`: this route, installed first, serves it with the issuer exactly
// as tokens carry it and the JWKS.
const options = {
  provider,
  issuerUrl: new URL(issuer),
  scopesSupported: ["tasks:ask", "tasks:title"],
  authorizationOptions: { rateLimit: false },
  tokenOptions: { rateLimit: false },
  clientRegistrationOptions: { rateLimit: false },
};
const metadata = {
  ...createOAuthMetadata(options),
  issuer,
  jwks_uri: `${issuer}/jwks`,
  grant_types_supported: ["authorization_code"],
};
app.get("/.well-known/oauth-authorization-server", (_req, res) => res.json(metadata));
app.get("/jwks", (_req, res) => res.json({ keys: [jwk] }));
app.get("/counts", (_req, res) => res.json(counts));
app.use(mcpAuthRouter(options));

process.stdout.write(`${JSON.stringify({ issuer })}\n`);
