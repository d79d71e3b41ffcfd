#!/usr/bin/env bash
# Runs the official MCP conformance server suites against examples/everything,
# served through the profile layer over streamable HTTP:
#   stable  @modelcontextprotocol/conformance@0.1.16, every server scenario;
#   draft   @modelcontextprotocol/conformance@0.2.0-alpha.12 at protocol
#           2026-07-28, every server scenario;
#   profile tools-list (both suites) against a profile that hides tools, then
#           a check that tools/list names exactly the profile's tools and
#           that calling a hidden tool is refused.
# The scenario lists are the suites' own (`conformance list --server`).
# Prints `N passed, M failed` per suite; exits non-zero on any unexpected
# failure (or a stale entry in scripts/conformance-expected-failures.yaml).
#
# usage: scripts/conformance.sh [stable|draft|profile]...   (default: all three)
# Node 22 and the suites are installed with npm under target/conformance
# (no global install); a re-run reuses them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

STABLE=0.1.16
DRAFT=0.2.0-alpha.12
DRAFT_SPEC=2026-07-28
EXPECTED="$root/scripts/conformance-expected-failures.yaml"
# A profile without the client-requests and input-required capabilities.
HIDING_PROFILE='{"surface":"conformance"}'
cache="$root/target/conformance"
target="${CARGO_TARGET_DIR:-$root/target}"
server_bin="$target/debug/everything"
failed_suites=()
# The suites' output goes to log files: no colour codes in them.
export NO_COLOR=1 FORCE_COLOR=0

if ! command -v npm >/dev/null; then
  echo "error: npm is needed to install Node 22 and the suites; install Node.js with npm first" >&2
  exit 1
fi

# install PREFIX VERSION: node 22 and the suite, unless already there.
install() {
  local prefix="$1" version="$2" installed
  installed="$(sed -n 's/^ *"version": "\(.*\)",$/\1/p' \
    "$prefix/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null || true)"
  if [[ "$installed" != "$version" || ! -x "$prefix/node_modules/.bin/node" ]]; then
    echo "installing node@22 and @modelcontextprotocol/conformance@$version in $prefix"
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
      node@22 "@modelcontextprotocol/conformance@$version" >/dev/null
  fi
}

# suite PREFIX ARGS...: the suite's CLI, run by its own node 22.
suite() {
  local prefix="$1"
  shift
  PATH="$prefix/node_modules/.bin:$PATH" conformance "$@"
}

server_pid=""
stop_server() {
  local i
  if [[ -n "$server_pid" ]]; then
    # Ctrl-C is the server's graceful stop; a server that ignores it is killed.
    kill -INT "$server_pid" 2>/dev/null || true
    for i in $(seq 1 50); do
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
trap stop_server EXIT

# start_server LOG [ARGS...]: a fresh server on a free port; sets $url.
start_server() {
  local log="$1" i
  shift
  stop_server
  : >"$log"
  "$server_bin" --http 127.0.0.1:0 "$@" 2>"$log" &
  server_pid=$!
  for i in $(seq 1 300); do
    url="$(sed -n 's/^mcp: \(http:.*\)$/\1/p' "$log" || true)"
    [[ -n "$url" ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "error: the everything server did not start; its log:" >&2
  cat "$log" >&2
  exit 1
}

# tally NAME LIST OUT: per-scenario verdicts from the suite's checks.json
# files; prints them and `NAME: N passed, M failed`.
tally() {
  local name="$1" list="$2" out="$3"
  "$prefix/node_modules/.bin/node" - "$list" "$out" "$EXPECTED" "$name" <<'JS'
const fs = require("node:fs");
const path = require("node:path");
const [list, out, expectedFile, name] = process.argv.slice(2);
const scenarios = fs.readFileSync(list, "utf8").split("\n").filter(Boolean);
const expected = fs.readFileSync(expectedFile, "utf8").split("\n")
  .map((l) => l.match(/^\s*-\s*(\S+)/)?.[1]).filter(Boolean);
const dirs = fs.existsSync(out) ? fs.readdirSync(out) : [];
let passed = 0, failed = 0;
for (const scenario of scenarios) {
  const dir = dirs.find((d) => d.startsWith(`server-${scenario}-`) && /\d{4}-\d\d-\d\dT/.test(d.slice(scenario.length + 8)));
  let checks = [];
  if (dir) checks = JSON.parse(fs.readFileSync(path.join(out, dir, "checks.json"), "utf8"));
  const failures = checks.filter((c) => c.status === "FAILURE").map((c) => c.id);
  const ok = dir !== undefined && failures.length === 0;
  ok ? passed++ : failed++;
  const known = failures.length > 0 && failures.every((id) => expected.includes(scenario) || expected.includes(`${scenario}:${id}`));
  const why = !dir ? " (no result)" : failures.length ? ` (${failures.join(", ")})${known ? " expected" : ""}` : "";
  console.log(`  ${ok ? "ok  " : "FAIL"} ${scenario}${why}`);
}
console.log(`${name}: ${passed} passed, ${failed} failed`);
JS
}

# run_suite NAME PREFIX VERSION [--spec-version V]: every server scenario.
run_suite() {
  local name="$1" version="$3" out="$cache/results/$1" count status=0
  prefix="$2"
  shift 3
  install "$prefix" "$version"
  printf '\n==> %s suite: @modelcontextprotocol/conformance@%s %s\n' "$name" "$version" "$*"
  suite "$prefix" list --server "$@" | sed -n 's/^ *- \([^ ]*\).*/\1/p' >"$cache/$name.scenarios"
  count="$(wc -l <"$cache/$name.scenarios")"
  rm -rf "$out"
  start_server "$cache/$name.server.log"
  suite "$prefix" server --url "$url" --suite all "$@" \
    --expected-failures "$EXPECTED" -o "$out" >"$cache/$name.log" 2>&1 || status=$?
  stop_server
  # The run covers exactly the scenarios the suite lists.
  if ! grep -q "^Running all suite ($count scenarios)" "$cache/$name.log"; then
    echo "error: the $name suite did not run the $count scenarios it lists; see $cache/$name.log" >&2
    status=1
  fi
  tally "$name" "$cache/$name.scenarios" "$out"
  if [[ $status -ne 0 ]]; then
    echo "  unexpected failures or stale expected failures; the suite's output: $cache/$name.log"
    sed -n '/=== SUMMARY ===/,$p' "$cache/$name.log" | grep -iE 'unexpected|stale|✗' | sed 's/^/  /' || true
    failed_suites+=("$name")
  fi
}

# The suites' tools-list against a profile that hides tools, and the check
# that the profile is what a client sees.
run_profile() {
  local shown="$cache/profile.shown" all="$cache/profile.all" hidden="$cache/profile.hidden"
  local passed=0 failed=0 s
  install "$cache/stable" "$STABLE"
  install "$cache/draft" "$DRAFT"
  printf '\n==> profile: tools-list with %s\n' "$HIDING_PROFILE"
  "$server_bin" --print-tools --profile "$HIDING_PROFILE" >"$shown"
  "$server_bin" --print-tools >"$all"
  comm -23 "$all" "$shown" >"$hidden"
  start_server "$cache/profile.server.log" --profile "$HIDING_PROFILE"
  for s in "stable $STABLE" "draft $DRAFT --spec-version $DRAFT_SPEC"; do
    set -- $s
    local name="$1"
    shift 2
    if suite "$cache/$name" server --url "$url" --scenario tools-list "$@" \
      >"$cache/profile.$name.log" 2>&1; then
      echo "  ok   tools-list ($name suite)"
      passed=$((passed + 1))
    else
      echo "  FAIL tools-list ($name suite): see $cache/profile.$name.log"
      failed=$((failed + 1))
    fi
  done
  if "$cache/stable/node_modules/.bin/node" "$root/scripts/conformance-profile.mjs" \
    "$url" "$shown" "$hidden"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
  stop_server
  echo "profile: $passed passed, $failed failed"
  [[ $failed -eq 0 ]] || failed_suites+=(profile)
}

started=$SECONDS
mkdir -p "$cache"
echo "==> cargo build -p everything"
cargo build -p everything --quiet
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(stable draft profile)
for part in "${parts[@]}"; do
  case "$part" in
  stable) run_suite stable "$cache/stable" "$STABLE" ;;
  draft) run_suite draft "$cache/draft" "$DRAFT" --spec-version "$DRAFT_SPEC" ;;
  profile) run_profile ;;
  *)
    echo "error: unknown part \`$part\`: give stable, draft or profile" >&2
    exit 2
    ;;
  esac
done
echo
echo "conformance: $((SECONDS - started))s"
if [[ ${#failed_suites[@]} -gt 0 ]]; then
  echo "error: unexpected failures in: ${failed_suites[*]}" >&2
  exit 1
fi
