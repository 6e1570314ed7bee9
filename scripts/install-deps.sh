#!/bin/sh
# Install what building (and, with --test, testing) fntrace needs, on Debian
# or Ubuntu, if it is missing.  `make demo` installs the build packages,
# `make check` and .ci/run also the test ones (a headless Chromium for the
# svg/html export tests); safe to re-run.
set -e
pkgs="make gcc g++ clang libclang-rt-14-dev libc6-dev libdw-dev libelf-dev zlib1g-dev libiberty-dev libncurses-dev libcapstone-dev libzydis-dev pkg-config python3 binutils"
[ "$1" = "--test" ] && pkgs="$pkgs chromium chromium-driver python3-selenium protobuf-compiler tmux uftrace linux-perf strace e2fsprogs libboost-context-dev libboost-fiber-dev"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# node and npm (the speedscope test): Debian's, unless the machine has them
# already (a NodeSource nodejs carries its own npm and conflicts with Debian's)
[ "$1" = "--test" ] && ! command -v npm >/dev/null && missing="$missing nodejs npm"
[ -z "$missing" ] && exit 0
echo "fntrace: installing dependencies:$missing"
if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq $missing >/dev/null
