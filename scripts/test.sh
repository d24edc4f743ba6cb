#!/usr/bin/env bash
# Runs the whole test suite: installs the system tools the tests use when they are missing
# (nginx, tmux, curl, tinyproxy, openssl, prometheus and promtool, the ncurses headers), checks that every folder under
# Tests/ is a declared test target, builds, then runs `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v tinyproxy >/dev/null 2>&1 || [ -x /usr/bin/tinyproxy ] || missing+=(tinyproxy)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
[ -e /usr/include/ncursesw/curses.h ] || missing+=(libncurses-dev)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "Installing: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}" >/dev/null
    elif command -v sudo >/dev/null 2>&1; then
        echo "Installing with sudo: ${missing[*]}"
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "The tests need: ${missing[*]}. Install them with: apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
fi

# Every folder under Tests/ must be a declared test target, or its tests silently never run.
undeclared=()
manifest=$(tr -d ' \t\n' < Package.swift)
for folder in Tests/*/; do
    name=$(basename "$folder")
    [[ "$manifest" == *".testTarget(name:\"$name\""* ]] || undeclared+=("$name")
done
if [ ${#undeclared[@]} -gt 0 ]; then
    for name in "${undeclared[@]}"; do
        echo "Tests/$name has no .testTarget(name: \"$name\", ...) in Package.swift: its tests would never run. Declare it." >&2
    done
    exit 1
fi

# The TUF tests build their fixture repositories with python-tuf, pinned in a venv.
bash scripts/tuf-venv.sh
# The end-to-end tests run the built binary, so build it first.
swift build
# At most TEST_WIDTH tests at once (default 6): many tests start child processes and servers,
# and a 2-core machine running every test at once starves them past their (generous) timeouts.
swift test --experimental-maximum-parallelization-width "${TEST_WIDTH:-6}" "$@"
