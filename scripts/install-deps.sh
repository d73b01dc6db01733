#!/usr/bin/env bash
# Installs the system packages shader-info needs, only when something is missing (idempotent, quiet when done).
# shaderc and glslang come from Debian's static archives (see TOOLCHAIN notes in the README), the Vulkan loader,
# validation layer and lavapipe (Mesa's CPU Vulkan driver) make every Vulkan test run on a machine without a GPU.
# glslang, spirv-tools and spirv-cross are also the independent checkers of the cross-language translations;
# Tint (Dawn's WGSL compiler, npm `webgpu`, run by node on its null backend) is the independent checker of WGSL,
# installed into .tools/webgpu (git ignores it), where gpu::cross::check finds it.
set -euo pipefail

packages=(libshaderc-dev glslc glslang-tools spirv-tools spirv-cross mesa-vulkan-drivers libvulkan1 libvulkan-dev
          vulkan-validationlayers vulkan-tools libssl-dev pkg-config)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

# The remote shader cache's tests run against moto's S3-compatible server on the loopback address (PyPI).
install_moto() {
  if python3 -c "import moto.server, boto3" >/dev/null 2>&1; then
    return 0
  fi
  echo "installing: moto[server] (PyPI)" >&2
  if ! python3 -m pip --version >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    $sudo apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
  fi
  python3 -m pip install -q "moto[server]" 2>/dev/null \
    || python3 -m pip install -q --break-system-packages "moto[server]"
}

# Tint: the npm package `webgpu` (Dawn for node, prebuilt), pinned. Needs node (Debian's `nodejs`, >= 18).
WEBGPU_VERSION=0.6.2
install_tint() {
  local dir
  dir="$(cd "$(dirname "$0")/.." && pwd)/.tools/webgpu"
  if [ -f "$dir/node_modules/webgpu/package.json" ] \
     && grep -q "\"version\": \"$WEBGPU_VERSION\"" "$dir/node_modules/webgpu/package.json"; then
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
      $sudo apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
    else
      echo "error: npm is missing (Tint, the WGSL check, comes from npm's webgpu package)" >&2
      return 1
    fi
  fi
  echo "installing: webgpu@$WEBGPU_VERSION (npm, into $dir)" >&2
  mkdir -p "$dir"
  npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$dir" "webgpu@$WEBGPU_VERSION" >/dev/null
}

if [ ${#missing[@]} -eq 0 ]; then
  install_moto
  install_tint
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "error: these packages are missing and there is no apt-get here: ${missing[*]}" >&2
  echo "install shaderc, glslang, SPIRV-Tools, a Vulkan loader, a Vulkan driver and the Khronos validation layer" >&2
  exit 1
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_moto
install_tint
