#!/usr/bin/env python3
"""Keeps one bench run's results: copies target/bench-results/BENCH.json
into bench/results/BENCH-DATE-N.json, wrapped with what reproduces it (the
commit, whether the tree had changes, the CPU model and core count, the
command, when it was recorded).

usage: python3 bench/record.py BENCH "COMMAND"
       e.g. python3 bench/record.py profiles \
              "cargo bench -p mcp-profiles-bench --bench profiles -- cold replacement tools/list dispatch"

BENCHMARKS.md's tables are generated from the kept files
(python3 bench/tables.py) and name them.
"""

import datetime
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git(*args):
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def cpu_model():
    with open("/proc/cpuinfo") as info:
        for line in info:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    bench, command = sys.argv[1], sys.argv[2]
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    with open(os.path.join(target, "bench-results", f"{bench}.json")) as raw:
        results = json.load(raw)
    now = datetime.datetime.now(datetime.timezone.utc)
    kept = os.path.join(ROOT, "bench", "results")
    os.makedirs(kept, exist_ok=True)
    n = 1
    while os.path.exists(os.path.join(kept, f"{bench}-{now:%Y-%m-%d}-{n}.json")):
        n += 1
    path = os.path.join(kept, f"{bench}-{now:%Y-%m-%d}-{n}.json")
    record = {
        "bench": bench,
        "commit": git("rev-parse", "HEAD"),
        "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "command": command,
        "recorded": now.isoformat(timespec="seconds"),
        "results": results,
    }
    with open(path, "w") as out:
        json.dump(record, out, indent=2)
        out.write("\n")
    print(os.path.relpath(path, ROOT))


if __name__ == "__main__":
    main()
