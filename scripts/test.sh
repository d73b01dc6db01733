#!/usr/bin/env bash
# The test command: formatting, lints, then every test of the workspace (Vulkan tests run on lavapipe with the
# validation layer on). CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
