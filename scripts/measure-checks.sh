#!/usr/bin/env bash
# What the independent checks cost (#29): the static pass over the whole library, every target, cold (no persistent
# cache), checked and unchecked, ROUNDS times each, alternating; prints each wall time, the medians and their ratio.
#
#   bash scripts/measure-checks.sh [ROUNDS] [BINARY]
#
# BINARY defaults to the release `shader-builder` (built here with -j 1 if missing). Set
# SHADER_INFO_CHECK_WITH_COMMANDS=1 to measure the checkers as commands instead of in process.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bin=${2:-}
if [ -z "$bin" ]; then
  target_dir=${CARGO_TARGET_DIR:-target}
  bin="$target_dir/release/shader-builder"
  [ -x "$bin" ] || cargo build --release --locked -j 1 -p shaders --features cli --bin shader-builder
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}

time_one() {
  local start end
  start=$(date +%s.%N)
  "$bin" --no-cache --root shaders/glsl build --target all "$@" --json > /dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

checked=()
unchecked=()
for i in $(seq "$rounds"); do
  u=$(time_one --no-target-check)
  c=$(time_one)
  unchecked+=("$u")
  checked+=("$c")
  echo "round $i: unchecked ${u} s, checked ${c} s"
done
mu=$(printf '%s\n' "${unchecked[@]}" | median)
mc=$(printf '%s\n' "${checked[@]}" | median)
echo "median: unchecked ${mu} s, checked ${mc} s, ratio $(echo "scale=2; $mc / $mu" | bc)"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
