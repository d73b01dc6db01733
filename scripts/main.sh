#!/usr/bin/env bash
# The main job: statically compile and check every shader of the library, create its pipelines and render the
# demo picture (out/frame.png).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo run --release --locked --features cli -- "$@"
