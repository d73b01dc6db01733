#!/usr/bin/env bash
# The remote cache's figure in the README: an S3-compatible server on the loopback address (moto's), then ROUNDS
# rounds (default 3) of three runners of `build --target all`, each with a local cache folder never made before:
# one that fills a new prefix, one with an empty local cache reading that prefix, one cold without a remote.
# Wall clock per runner, and the cache counts of its report. Usage: bash scripts/measure-remote.sh [ROUNDS] [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
BIN=${2:-target/release/shader-builder}
[ -x "$BIN" ] || cargo build --release --locked -p shaders --features cli --bin shader-builder
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
coproc S3 { python3 scripts/s3-server.py shader-cache 2>/dev/null; }
read -r line <&"${S3[0]}"
export AWS_ENDPOINT="http://127.0.0.1:${line#ready }" AWS_ALLOW_HTTP=true AWS_ACCESS_KEY_ID=test \
    AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1
runner() {
    local what=$1
    shift
    local start end
    start=$(date +%s.%N)
    "$BIN" --root shaders/glsl "$@" build --target all --json > "$WORK/report.json"
    end=$(date +%s.%N)
    python3 - "$what" "$(echo "$end - $start" | bc)" "$WORK/report.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[3]))["cache"]
print(f"{sys.argv[1]:<28} {float(sys.argv[2]):7.2f} s  hits {c['hits']} (remote {c['remote_hits']}), misses {c['misses']}")
PY
}
for i in $(seq "$ROUNDS"); do
    runner "fills the remote" --cache "$WORK/a$i" --remote-cache "s3://shader-cache/r$i"
    runner "empty local, remote warm" --cache "$WORK/b$i" --remote-cache "s3://shader-cache/r$i"
    runner "cold, no remote" --cache "$WORK/c$i"
done
