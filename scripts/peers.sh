#!/usr/bin/env bash
# Installs the peer MCP servers of the `peers` bench under target/peers, pinned:
#   ts       Node 22 and @modelcontextprotocol/sdk@1.32.2 (npm, no global
#            install), for bench/peers/ts/server.mjs;
#   fastmcp  a Python 3.11 venv with fastmcp==4.2.3 on uvicorn[standard]==0.55.0
#            (uvloop and httptools, as a performance-minded user serves
#            it), for bench/peers/fastmcp/server.py. 3.11 is the newest
#            Python this machine's sources give (Debian 12, pyenv); the
#            bench records the exact version it ran.
# A re-run reuses what is there. The bench runs this itself before it starts
# a peer (`cargo bench -p mcp-profiles-bench --bench peers`); `cargo test`
# and `cargo bench --no-run` never do, so neither needs Node or Python.
#
# usage: scripts/peers.sh [ts|fastmcp]...   (default: both)
# Prints, per peer, `NAME COMMAND...`: the command line that starts it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

TS_SDK=1.32.2
FASTMCP=4.2.3
UVICORN=0.55.0
PYTHON=python3.11
prefix="$root/target/peers"

ts() {
  local dir="$prefix/ts" installed
  installed="$(sed -n 's/^ *"version": "\(.*\)",$/\1/p' \
    "$dir/node_modules/@modelcontextprotocol/sdk/package.json" 2>/dev/null || true)"
  if [[ "$installed" != "$TS_SDK" || ! -x "$dir/node_modules/.bin/node" ]]; then
    command -v npm >/dev/null || { echo "error: npm is needed to install the TypeScript SDK peer" >&2; exit 1; }
    echo "installing node@22 and @modelcontextprotocol/sdk@$TS_SDK in $dir" >&2
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
      node@22 "@modelcontextprotocol/sdk@$TS_SDK" >/dev/null
  fi
  # The server imports the SDK from target/peers/ts/node_modules.
  echo "ts $dir/node_modules/.bin/node $root/bench/peers/ts/server.mjs --sdk $dir"
}

fastmcp() {
  local venv="$prefix/fastmcp"
  if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c \
    "import importlib.metadata as m, sys, uvloop, httptools
sys.exit(m.version('fastmcp') != '$FASTMCP' or m.version('uvicorn') != '$UVICORN')" 2>/dev/null; then
    command -v "$PYTHON" >/dev/null || { echo "error: $PYTHON is needed for the FastMCP peer" >&2; exit 1; }
    echo "installing fastmcp==$FASTMCP and uvicorn[standard]==$UVICORN in a venv at $venv" >&2
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    "$venv/bin/pip" install -q "fastmcp==$FASTMCP" "uvicorn[standard]==$UVICORN" >&2
  fi
  echo "fastmcp $venv/bin/python $root/bench/peers/fastmcp/server.py"
}

peers=("$@")
[[ ${#peers[@]} -eq 0 ]] && peers=(ts fastmcp)
for peer in "${peers[@]}"; do
  case "$peer" in
    ts) ts ;;
    fastmcp) fastmcp ;;
    *) echo "error: unknown peer \`$peer\` (ts, fastmcp)" >&2; exit 2 ;;
  esac
done
