#!/usr/bin/env bash
# Installs the Debian packages gcbridge needs (only the missing ones) and configures a Release
# build in ${BUILD_DIR:-build}, with ${CMAKE_ARGS} added (the single-precision tree of `make test`,
# the sanitized tree of `make sanitize`). Safe to run repeatedly: it does nothing that is already
# done.
set -euo pipefail

packages=(cmake make g++ pkg-config libeigen3-dev libbullet-dev libbullet-extras-dev libtinyxml2-dev
          libgtest-dev libgmock-dev libbenchmark-dev libassimp-dev libjs-three python3)
# clang, its sanitizer runtimes and libFuzzer build the sanitized tree: `make sanitize` asks for
# them with GCBRIDGE_SANITIZER_TOOLS=1.
if [ "${GCBRIDGE_SANITIZER_TOOLS:-0}" = 1 ]; then
  packages+=(clang-14 libclang-rt-14-dev libfuzzer-14-dev)
fi
# The viewer's browser tests run in Debian's Chromium (headless, software WebGL) and Firefox ESR
# (in an Xvfb display, WebGL through Mesa's software renderer); only the tests need them, so
# `make test` asks for them with GCBRIDGE_BROWSER_TESTS=1.
if [ "${GCBRIDGE_BROWSER_TESTS:-0}" = 1 ]; then
  packages+=(chromium firefox-esr xvfb libgl1-mesa-dri libglx-mesa0 libegl-mesa0)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing missing packages: ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
fi

build_dir=${BUILD_DIR:-build}
cmake -S "$(dirname "$0")/.." -B "$build_dir" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} > /dev/null
echo "setup: configured a Release build in $build_dir"
