#!/usr/bin/env bash
# The official TypeScript MCP SDK for the OAuth end-to-end test
# (tests/tests/integration/oauth/sdk.rs): its client authorises against an
# authorization server built on the SDK's own mcpAuthRouter
# (tests/node/oauth/), then calls our resource server, stepping up on 403.
#
# usage: scripts/oauth-sdk.sh install
#        scripts/oauth-sdk.sh authorization-server SUBJECT [PORT]
#        scripts/oauth-sdk.sh client MCP_URL [TOOL [ARGUMENTS_JSON]]
#   installs node@$NODE, @modelcontextprotocol/sdk@$SDK and jose@$JOSE with
#   npm under $CARGO_TARGET_DIR/oauth-sdk (default target/oauth-sdk; no
#   global install), unless already there at those versions. The test finds
#   them there and skips without them (fails under
#   MCP_PROFILES_REQUIRE_OAUTH_SDK=1, as CI sets); run it with
#     cargo test -p mcp-profiles-tests --test integration oauth::sdk
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

NODE=22.23.3
# The newest 1.x: its StreamableHTTPClientTransport re-authorises on a 403
# `insufficient_scope` with the challenge's scope.
SDK=1.32.2
# Signs the authorization server's access tokens (the SDK depends on it too).
JOSE=6.2.19
prefix="${CARGO_TARGET_DIR:-$root/target}/oauth-sdk"

# installed PACKAGE: its version under $prefix, or nothing.
installed() {
  sed -n 's/^ *"version": "\(.*\)",\{0,1\}$/\1/p' "$prefix/node_modules/$1/package.json" 2>/dev/null \
    | head -n 1 || true
}

install() {
  if [[ "$(installed node)" == "$NODE" && -x "$prefix/node_modules/.bin/node" \
    && "$(installed @modelcontextprotocol/sdk)" == "$SDK" && "$(installed jose)" == "$JOSE" ]]; then
    echo "node@$NODE, @modelcontextprotocol/sdk@$SDK and jose@$JOSE are in $prefix"
    return
  fi
  if ! command -v npm >/dev/null; then
    echo "error: npm is needed to install Node $NODE and the MCP SDK; install Node.js with npm first" >&2
    exit 1
  fi
  echo "installing node@$NODE, @modelcontextprotocol/sdk@$SDK and jose@$JOSE in $prefix"
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --save-exact --no-audit --no-fund --loglevel=error \
    "node@$NODE" "@modelcontextprotocol/sdk@$SDK" "jose@$JOSE" >/dev/null
  "$prefix/node_modules/.bin/node" --version >/dev/null
}

# run SCRIPT ARGS...: one of tests/node/oauth's scripts, by the installed
# node, from a copy beside node_modules so that its imports resolve.
run() {
  local script="$1"
  shift
  install >/dev/null
  mkdir -p "$prefix/scripts"
  cp "$root/tests/node/oauth/$script" "$prefix/scripts/$script"
  exec "$prefix/node_modules/.bin/node" "$prefix/scripts/$script" "$@"
}

case "${1:-}" in
install) install ;;
authorization-server) shift && run authorization-server.mjs "$@" ;;
client) shift && run client.mjs "$@" ;;
*)
  echo "usage: scripts/oauth-sdk.sh install | authorization-server SUBJECT [PORT] | client MCP_URL [TOOL [ARGUMENTS_JSON]]" >&2
  exit 2
  ;;
esac
