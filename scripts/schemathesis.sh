#!/usr/bin/env bash
# Fuzzes the control APIs from their own OpenAPI 3.1 descriptions with
# Schemathesis, against running servers: `kandev-mcp serve --control`,
# `kandev-mcp gateway` on a real redis-server, and the help desk example
# (`helpdesk`, the library's control API as a server of its own uses it)
# on a redis-server of its own (pub/sub channels span a server's databases). Every operation (the admin
# pages' HTML forms left to their own tests), their stateful links
# (create -> read -> compare-and-set -> delete) and negative data, with
# every check but `positive_data_acceptance` (the schemas give the bodies'
# shape; the decoders check more, such as exclusive capabilities, and
# refuse what breaks it with a 400 naming it). Nothing may answer 5xx, no
# answer may break its documented schema, and both servers must still
# answer afterwards. First, the committed descriptions are validated
# (openapi-spec-validator) and checked identical to what the code builds.
#
# usage: scripts/schemathesis.sh [EXAMPLES]   (default 50 per operation;
#        CI runs a bounded 50, a longer run takes e.g. 1000)
# Python packages are installed in a venv under target/schemathesis; a
# re-run reuses it. Needs python3 and redis-server.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

SCHEMATHESIS=4.32.5
VALIDATOR=0.9.0
examples="${1:-50}"
venv="$root/target/schemathesis"
target="${CARGO_TARGET_DIR:-$root/target}"
binary="$target/debug/kandev-mcp"
helpdesk="$target/debug/helpdesk"
token="schemathesis-control-token"
export NO_COLOR=1

if [ ! -x "$venv/bin/st" ] || ! "$venv/bin/st" --version | grep -q "$SCHEMATHESIS"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "schemathesis==$SCHEMATHESIS" "openapi-spec-validator==$VALIDATOR"
fi

cargo build -q -p kandev-mcp -p helpdesk
for api in serve gateway; do
  if ! diff -q <("$binary" openapi --api "$api") "docs/openapi/$api.json" >/dev/null; then
    echo "error: docs/openapi/$api.json is out of date; regenerate it with" >&2
    echo "  cargo run -p kandev-mcp -- openapi --api $api > docs/openapi/$api.json" >&2
    exit 1
  fi
done
if ! diff -q <("$helpdesk" --openapi) docs/openapi/helpdesk.json >/dev/null; then
  echo "error: docs/openapi/helpdesk.json is out of date; regenerate it with" >&2
  echo "  cargo run -p helpdesk -- --openapi > docs/openapi/helpdesk.json" >&2
  exit 1
fi
"$venv/bin/openapi-spec-validator" docs/openapi/serve.json docs/openapi/gateway.json docs/openapi/helpdesk.json

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --dir "$work" >"$work/redis.log" 2>&1 &
pids+=($!)
helpdesk_redis="$(free_port)"
redis-server --port "$helpdesk_redis" --bind 127.0.0.1 --save "" --dir "$work" >"$work/helpdesk-redis.log" 2>&1 &
pids+=($!)
serve_control="127.0.0.1:$(free_port)"
gateway_control="127.0.0.1:$(free_port)"
helpdesk_control="127.0.0.1:$(free_port)"
"$binary" serve --http "127.0.0.1:$(free_port)" --control "$serve_control" \
  --control-token "$token" >"$work/serve.log" 2>&1 &
pids+=($!)
for port in "$redis_port" "$helpdesk_redis"; do
  for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
done
"$binary" gateway --http "127.0.0.1:$(free_port)" --control "$gateway_control" \
  --store "redis://127.0.0.1:$redis_port/0" --control-token "$token" >"$work/gateway.log" 2>&1 &
pids+=($!)
"$helpdesk" --mcp "127.0.0.1:$(free_port)" --control "$helpdesk_control" \
  --store "redis://127.0.0.1:$helpdesk_redis/0" --control-token "$token" >"$work/helpdesk.log" 2>&1 &
pids+=($!)

# answers URL: whether the control API at URL serves its description.
answers() {
  curl -fsS -o /dev/null -H "Authorization: Bearer $token" "$1/api/v1/openapi.json"
}
for control in "$serve_control" "$gateway_control" "$helpdesk_control"; do
  for _ in $(seq 100); do answers "http://$control" && break; sleep 0.1; done
done

failed=()
for pair in "serve $serve_control" "gateway $gateway_control" "helpdesk $helpdesk_control"; do
  set -- $pair
  echo "==> schemathesis: $1 ($examples examples per operation)"
  if ! "$venv/bin/st" run "http://$2/api/v1/openapi.json" \
      -H "Authorization: Bearer $token" \
      --checks all --exclude-checks positive_data_acceptance \
      --exclude-path-regex '^/admin' \
      --max-examples "$examples" --seed 1; then
    failed+=("$1")
  fi
  if ! answers "http://$2"; then
    echo "error: $1 no longer answers after the run" >&2
    failed+=("$1 (down)")
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "error: schemathesis failed for: ${failed[*]}" >&2
  echo "--- serve log"; tail -n 20 "$work/serve.log"
  echo "--- gateway log"; tail -n 20 "$work/gateway.log"
  echo "--- helpdesk log"; tail -n 20 "$work/helpdesk.log"
  exit 1
fi
echo "schemathesis: every control API passed"
