#!/usr/bin/env bash
# The test command: formatting, lints, then every test of the workspace (Vulkan tests run on lavapipe with the
# validation layer on). CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo fmt --all --check
# No crate's modules form a circle, and none may start one.
python3 scripts/module_cycles.py --check gpu/src shaders/src shader-info-macros/src shader-info/src
# Every feature on (the command line, the test helpers), and the library as a renderer sees it (features off).
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
cargo clippy --workspace --lib --locked -- -D warnings
# The API docs build without a broken link or warning.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --all-features --locked
cargo test --workspace --all-features --locked
# The library crates package and build as a stranger would get them from crates.io. An earlier dry run of the same
# version left its copies of this workspace's crates, extracted from a temporary registry and built: cargo takes
# registry sources as immutable (their fingerprints list no files), so it would verify against those old copies.
# Drop them: the extracted sources (crates.io's own directory is left alone) and the builds whose dependency list
# is empty (a workspace crate's lists its files).
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/shader-info*
for f in target/debug/.fingerprint/shader-info*/dep-lib-*; do
    if [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 16 ]; then rm -rf "$(dirname "$f")"; fi
done
cargo publish --dry-run --locked --allow-dirty -p shader-info-glsl-names -p shader-info-macros -p shader-info \
    -p shader-info-gpu
