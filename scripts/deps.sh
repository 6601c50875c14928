#!/usr/bin/env bash
# Installs the Debian packages robotscan builds and tests with.
# Usage: scripts/deps.sh [--check]   (--check: only report what is missing)
set -eu

# pkg-config module -> Debian package
modules="libzstd:libzstd-dev libxxhash:libxxhash-dev zlib:zlib1g-dev libidn2:libidn2-dev criterion:libcriterion-dev benchmark:libbenchmark-dev jansson:libjansson-dev"
# command -> Debian package (tools the tests and benchmarks run)
commands="pkg-config:pkg-config cc:gcc c++:g++ clang:clang zstd:zstd gzip:gzip python3:python3 chromium:chromium"

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
# clang's fuzzer and sanitizer runtimes, and the Python peers of the benchmark
[ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] || \
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 || missing="$missing libclang-rt-14-dev"
/usr/bin/python3 -c 'import protego' >/dev/null 2>&1 || missing="$missing python3-protego"
/usr/bin/python3 -c 'import distributed' >/dev/null 2>&1 || missing="$missing python3-distributed"

missing=$(echo $missing | tr ' ' '\n' | sort -u | tr '\n' ' ')
if [ -z "${missing// /}" ]; then
    echo "deps: all present"
    exit 0
fi
if [ "${1:-}" = "--check" ]; then
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
