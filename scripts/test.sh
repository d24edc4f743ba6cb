#!/usr/bin/env bash
# Runs the whole test suite: installs the system tools the tests use when they are missing
# (nginx, tmux, curl, tinyproxy, openssl, prometheus and promtool, the ncurses headers, apache2,
# lighttpd with its deflate module, caddy), checks that every folder under
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
# The revalidation tests' other origins (each started by the tests on a free loopback port).
command -v apache2 >/dev/null 2>&1 || [ -x /usr/sbin/apache2 ] || missing+=(apache2)
command -v lighttpd >/dev/null 2>&1 || [ -x /usr/sbin/lighttpd ] || missing+=(lighttpd)
[ -e /usr/lib/lighttpd/mod_deflate.so ] || missing+=(lighttpd-mod-deflate)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
# apache2, lighttpd and caddy start a system service on port 80 when installed where an init
# system runs: the tests never use one (they start their own on free ports), so stop them.
stop_services() {
    for service in apache2 lighttpd caddy; do
        if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$service" 2>/dev/null; then
            ${SUDO:-} systemctl disable --now "$service" >/dev/null 2>&1 || true
        elif command -v service >/dev/null 2>&1; then
            ${SUDO:-} service "$service" stop >/dev/null 2>&1 || true
        fi
    done
}
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "Installing: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # No package's postinst may start a service (apache2, lighttpd, caddy on port 80, which
        # may be taken): invoke-rc.d asks policy-rc.d, and 101 means "not now".
        made_policy=false
        if [ ! -e /usr/sbin/policy-rc.d ]; then
            printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && made_policy=true
        fi
        apt-get install -y -qq "${missing[@]}" >/dev/null
        if [ "$made_policy" = true ]; then rm -f /usr/sbin/policy-rc.d; fi
        stop_services
    elif command -v sudo >/dev/null 2>&1; then
        echo "Installing with sudo: ${missing[*]}"
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
        SUDO=sudo stop_services
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
# It also keeps the test process's descriptors few: Foundation's `Process.run()` in the 6.3.1
# toolchain lists /proc/self/fd and copies each entry's whole 256-byte name field, which can read
# past readdir's buffer once that buffer is full (over a thousand descriptors open at once);
# `swift test` without a width crashed there twice (swift-corelibs-foundation pull request 5472).
#
# A watchdog bounds the run (TEST_TIME_LIMIT seconds, default 1800; a clean run takes about a
# minute after the build): a test process that stops making progress is reported, with the
# tests still running and every thread's stack when gdb is installed, and killed, so a hang
# fails in minutes with its cause in the log instead of running into CI's own limit silently.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift test --experimental-maximum-parallelization-width "${TEST_WIDTH:-6}" "$@" > >(tee "$log") 2>&1 &
runner=$!
limit=${TEST_TIME_LIMIT:-1800}
started=$SECONDS
while kill -0 "$runner" 2>/dev/null; do
    if (( SECONDS - started >= limit )); then
        bash scripts/report-hung-tests.sh "$log" "$limit" "$runner"
        pkill -KILL -P "$runner" 2>/dev/null || true
        kill -KILL "$runner" 2>/dev/null || true
        exit 1
    fi
    sleep 2
done
wait "$runner"
