#!/usr/bin/env bash
# Installs the Debian packages robotscan builds and tests with.
# Usage: scripts/deps.sh [--check | --check-build]
#   (none)         install every missing package (build, tests, benchmarks); needs root
#   --check        only report what is missing (exit 1 when something is)
#   --check-build  only check what plain `make` needs; when something is missing,
#                  print the apt-get line and exit 2 (never installs)
set -eu

# pkg-config module -> Debian package: needed to build the library and CLI
build_modules="libzstd:libzstd-dev libxxhash:libxxhash-dev zlib:zlib1g-dev libdeflate:libdeflate-dev libidn2:libidn2-dev jansson:libjansson-dev"
build_commands="pkg-config:pkg-config cc:gcc"
# pkg-config module -> Debian package: tests and benchmarks
modules="$build_modules criterion:libcriterion-dev benchmark:libbenchmark-dev libisal:libisal-dev"
# command -> Debian package (tools the tests and benchmarks run)
commands="$build_commands c++:g++ clang:clang zstd:zstd gzip:gzip python3:python3 man:man-db nroff:groff-base chromium:chromium"

mode=${1:-}
if [ "$mode" = "--check-build" ]; then
    modules=$build_modules
    commands=$build_commands
fi

missing=""
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
for m in $modules; do
    mod=${m%%:*}; pkg=${m##*:}
    if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$mod"; then
        missing="$missing $pkg"
    fi
done
for c in $commands; do
    cmd=${c%%:*}; pkg=${c##*:}
    command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ "$mode" != "--check-build" ]; then
    # clang's fuzzer and sanitizer runtimes, and the Python peers of the tests and benchmark
    [ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] || \
        ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 || missing="$missing libclang-rt-14-dev"
    /usr/bin/python3 -c 'import protego' >/dev/null 2>&1 || missing="$missing python3-protego"
    /usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || missing="$missing python3-pytest"
    /usr/bin/python3 -c 'import scrapy' >/dev/null 2>&1 || missing="$missing python3-scrapy"
    /usr/bin/python3 -c 'import distributed' >/dev/null 2>&1 || missing="$missing python3-distributed"
    # `pip install --no-build-isolation .` (tests/python/test_pip_install.py): no network
    /usr/bin/python3 -c 'import setuptools' >/dev/null 2>&1 || missing="$missing python3-setuptools"
    /usr/bin/python3 -c 'import wheel' >/dev/null 2>&1 || missing="$missing python3-wheel"
    /usr/bin/python3 -c 'import pip' >/dev/null 2>&1 || missing="$missing python3-pip"
    /usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="$missing python3-venv"
    /usr/bin/python3 -c 'import requests' >/dev/null 2>&1 || missing="$missing python3-requests"
    # the matcher arena's peers (robotscan bench --builtin-peers, tests/bench, docs/bench.md)
    perl -MWWW::RobotRules -e1 >/dev/null 2>&1 || missing="$missing libwww-robotrules-perl"
    ruby -rwebrobots -e1 >/dev/null 2>&1 || missing="$missing ruby-webrobots"
    command -v node >/dev/null 2>&1 || missing="$missing nodejs"
    command -v npm >/dev/null 2>&1 || missing="$missing npm"
fi

# robots-parser (npm) for the arena, in a project-local folder: never installed globally
root=$(cd "$(dirname "$0")/.." && pwd)
npm_peer() {
    [ -f "$root/build/peers/node_modules/robots-parser/package.json" ] && return 0
    case "$mode" in
        --check-build) return 0 ;;
        --check) echo "deps: missing npm package robots-parser (build/peers/node_modules)"; return 1 ;;
    esac
    command -v npm >/dev/null 2>&1 || return 0
    echo "deps: installing robots-parser (npm) into $root/build/peers"
    mkdir -p "$root/build/peers"
    npm install --prefix "$root/build/peers" --no-audit --no-fund --silent robots-parser ||
        echo "deps: robots-parser not installed (no network?): robotscan bench names it as missing" >&2
}

missing=$(echo $missing | tr ' ' '\n' | sort -u | tr '\n' ' ')
if [ -z "${missing// /}" ]; then
    npm_peer || exit 1
    echo "deps: all present"
    exit 0
fi
if [ "$mode" = "--check-build" ]; then
    echo "robotscan: missing build packages: $missing" >&2
    echo "robotscan: install them with: sudo apt-get install -y $missing" >&2
    exit 2
fi
if [ "$mode" = "--check" ]; then
    echo "deps: missing Debian packages: $missing"
    exit 1
fi
if [ "$(id -u)" != 0 ]; then
    echo "deps: missing Debian packages: $missing" >&2
    echo "deps: run as root, or: sudo apt-get install -y $missing" >&2
    exit 1
fi
echo "deps: installing $missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq $missing
npm_peer
