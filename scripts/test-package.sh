#!/usr/bin/env bash
# The Debian package tested as an operator would use it, on a minimal Debian without Swift:
# debootstrap --variant=minbase bookworm into a temporary folder, `apt-get install ./the.deb`
# there (so its Depends are resolved by apt), then, inside that chroot: --version, check,
# refresh and status --json against a loopback origin on the host (the chroot shares the
# host's network), serve as the package's service user with its metrics and control socket,
# the man page (man-db), bash completion, and the dashboard in tmux (the table shows, `q`
# quits with status 0 and the terminal's settings restored).
#
#   bash scripts/test-package.sh [PATH.deb]      # default: builds it with scripts/package.sh
#
# Needs root (debootstrap, chroot, mount) and Debian's mirror; .ci/run runs it after the
# tests. Environment: PACKAGE_TEST_MIRROR (default: the host's apt mirror for Debian).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
passed=0

step() { echo "==> $* ($((SECONDS - started)) s)"; }
ok() { passed=$((passed + 1)); echo "  ok: $*"; }
fail() {
    echo "FAILED: $*" >&2
    echo "package test: $passed passed, 1 failed ($((SECONDS - started)) s)"
    exit 1
}

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot, mount)"
for tool in debootstrap chroot tmux python3 curl dpkg-deb; do
    command -v "$tool" >/dev/null 2>&1 ||
        fail "needs $tool (apt-get install -y debootstrap tmux python3 curl dpkg)"
done

deb=${1:-}
if [ -z "$deb" ]; then
    step "building the package (scripts/package.sh)"
    package_log=$(mktemp)
    bash scripts/package.sh | tee "$package_log" >&2
    deb=$(tail -n 1 "$package_log")
    rm -f "$package_log"
fi
[ -f "$deb" ] || fail "no package at '$deb'"
deb=$(realpath "$deb")
version=$(dpkg-deb --field "$deb" Version)
echo "package: $deb (version $version)"

# The mirror apt uses here (deb822 URIs: or one-line deb), else Debian's.
mirror=${PACKAGE_TEST_MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v '^ *#' |
        grep -Eo 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -n 1 | tr -d ' ' || true)
    mirror=${mirror:-http://deb.debian.org/debian}
fi

work=$(mktemp -d /tmp/assetwatch-package-test.XXXXXX)
root=$work/root
origin_pid=""
serve_pid=""
tmux_socket=assetwatch-package-test-$$
cleanup() {
    set +e
    [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
    [ -n "$origin_pid" ] && kill "$origin_pid" 2>/dev/null && wait "$origin_pid" 2>/dev/null
    tmux -L "$tmux_socket" kill-server 2>/dev/null
    for mount in "$root/dev/pts" "$root/proc"; do
        mountpoint -q "$mount" && umount -l "$mount"
    done
    # Only remove the tree once nothing is mounted in it.
    if ! grep -q " $root/" /proc/mounts; then rm -rf "$work"; else
        echo "left $work: something is still mounted in it" >&2
    fi
}
trap cleanup EXIT

# Polls `command` (a shell string) until it succeeds or `seconds` pass.
wait_for() { # seconds description command
    local deadline=$((SECONDS + $1)) description=$2
    shift 2
    until eval "$1"; do
        (( SECONDS < deadline )) || return 1
        sleep 0.2
    done
}

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

step "debootstrap --variant=minbase bookworm ($mirror)"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1 ||
    { tail -n 30 "$work/debootstrap.log" >&2; fail "debootstrap"; }
mount -t proc proc "$root/proc"
mkdir -p "$root/dev/pts"
# The host's ptys (tmux's pane is one): ttyname() in the chroot finds them.
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
in_root sh -c '! command -v swift && ! ls /usr/lib/swift' >/dev/null 2>&1 || fail "Swift in the chroot"
ok "a minimal bookworm without Swift ($(du -smx "$root" | cut -f1) MiB)"

# The test can fail: the bare binary, without the libraries the package's Depends bring,
# does not start here.
dpkg-deb -x "$deb" "$work/unpacked"
cp "$work/unpacked/usr/bin/assetwatch" "$root/tmp/assetwatch-bare"
if bare=$(in_root /tmp/assetwatch-bare --version 2>&1); then
    echo "  note: the bare binary starts without the Depends here: $bare"
else
    echo "  (without the Depends: $bare)"
    ok "the bare binary needs what Depends installs"
fi
rm -f "$root/tmp/assetwatch-bare"

step "apt-get install ./$(basename "$deb") man-db"
cp "$deb" "$root/tmp/"
in_root apt-get update -qq > "$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "apt-get update"; }
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "/tmp/$(basename "$deb")" man-db >> "$work/apt.log" 2>&1 ||
    { tail -n 30 "$work/apt.log" >&2; fail "apt-get install of the package"; }
ok "installed with apt (Depends: $(dpkg-deb --field "$deb" Depends))"
[ "$(in_root dpkg-query -W -f '${Version}' assetwatch)" = "$version" ] || fail "dpkg's version"
in_root sh -c '! ls /usr/lib/swift /usr/bin/swift*' >/dev/null 2>&1 || fail "Swift came with it"

step "assetwatch --version"
reported=$(in_root assetwatch --version) || fail "assetwatch --version exited $?"
[ "$reported" = "$version" ] || fail "--version says '$reported', the package says '$version'"
ok "assetwatch --version: $reported"

# --- a loopback origin on the host -------------------------------------------------------
mkdir -p "$work/origin"
printf '{"beta": true, "build": "%s"}\n' "$version" > "$work/origin/flags.json"
sha=$(sha256sum "$work/origin/flags.json" | cut -d' ' -f1)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$work/origin" "$port" > "$work/origin.log" 2>&1 &
origin_pid=$!
wait_for 20 "origin" "curl -fsS -o /dev/null http://127.0.0.1:$port/flags.json 2>/dev/null" ||
    fail "the origin on 127.0.0.1:$port did not answer"

mkdir -p "$root/etc/assetwatch"
cat > "$root/etc/assetwatch/assets.json" <<EOF
{ "appVersion": "1.0.0", "cacheDirectory": "/var/lib/assetwatch",
  "assets": [
    { "id": "flags", "remote": "http://127.0.0.1:$port/flags.json", "format": "json",
      "sha256": "$sha", "essential": true } ] }
EOF

step "check, refresh, status --json (as the service user, on its state folder)"
account=$(in_root getent passwd assetwatch) || fail "postinst made no assetwatch system user"
[ "$(echo "$account" | cut -d: -f7)" = /usr/sbin/nologin ] || fail "the assetwatch user has a shell: $account"
ok "postinst made the system user: $account"
# What StateDirectory= does under systemd.
in_root install -d -o assetwatch -g assetwatch -m 0700 /var/lib/assetwatch
as_service() { chroot --userspec=assetwatch:assetwatch "$root" /usr/bin/env -i \
    PATH=/usr/bin:/bin HOME=/var/lib/assetwatch LANG=C.UTF-8 "$@"; }
out=$(in_root assetwatch check --config /etc/assetwatch/assets.json 2>&1) || fail "check: $out"
ok "check: $(echo "$out" | tail -n 1)"
out=$(in_root assetwatch check --config /usr/share/doc/assetwatch/assets.example.json 2>&1) ||
    fail "check of the shipped example: $out"
ok "check of /usr/share/doc/assetwatch/assets.example.json"
echo '{ "appVersion": 3, "assets": [] }' > "$root/tmp/bad.json"
set +e
out=$(in_root assetwatch check --config /tmp/bad.json 2>&1)
status=$?
set -e
[ "$status" = 2 ] && [[ "$out" == *appVersion* ]] || fail "a bad config: exit $status, '$out'"
ok "a bad config exits 2 naming the field"
# The unit must not restart what a restart cannot mend: the exit of its own command line with
# the bad config, and with an unknown option (a typo in an edited ExecStart=).
unit=$root/lib/systemd/system/assetwatch.service
prevent=" $(sed -n 's/^RestartPreventExitStatus=//p' "$unit") "
serve_line=$(sed -n 's/^ExecStart=//p' "$unit" | sed 's/%S/\/var\/lib/')
run_unit_line() { timeout 20 chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 "$@" > /dev/null 2>&1; }
set +e
run_unit_line ${serve_line/\/etc\/assetwatch\/assets.json//tmp/bad.json}
bad_config=$?
run_unit_line $serve_line --no-such-option
bad_option=$?
set -e
[[ "$prevent" == *" $bad_config "* && "$prevent" == *" $bad_option "* ]] ||
    fail "the unit restarts exit $bad_config (bad config) or $bad_option (bad option): RestartPreventExitStatus=$prevent"
ok "the unit does not restart a bad config (exit $bad_config) or a bad option (exit $bad_option)"
out=$(as_service assetwatch refresh --config /etc/assetwatch/assets.json 2>&1) || fail "refresh: $out"
as_service assetwatch status --config /etc/assetwatch/assets.json --json > "$work/status.json" ||
    fail "status --json exited $?: $(cat "$work/status.json")"
python3 - "$work/status.json" "$version" "$sha" <<'EOF' || fail "status --json: $(cat "$work/status.json")"
import json, sys
status = json.load(open(sys.argv[1]))
assert list(status)[0] == "assetwatchVersion", list(status)
assert status["assetwatchVersion"] == sys.argv[2], status["assetwatchVersion"]
asset = status["assets"][0]
assert asset["id"] == "flags" and asset["state"] == "FRESH" and asset["source"] == "cached", asset
assert asset["sha256"] == sys.argv[3], asset
EOF
ok "status --json: assetwatchVersion $version, flags FRESH from the origin"

step "serve (the unit's command line) with metrics and the control socket"
metrics_port=$(free_port)
# Under the kernel's PR_SET_MDWE (Linux 6.3+), what the unit's MemoryDenyWriteExecute=yes
# enforces: no memory may become writable and executable.
# (python3 sets it and execs the rest, so $! is the server's own pid.)
mdwe=(python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(65, 1, 0, 0, 0) != 0:  # PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN
    print("  note: no PR_SET_MDWE here (errno %d): serve runs without it" % ctypes.get_errno(), file=sys.stderr)
os.execvp(sys.argv[1], sys.argv[1:])')
"${mdwe[@]}" chroot --userspec=assetwatch:assetwatch "$root" /usr/bin/env -i PATH=/usr/bin:/bin \
    HOME=/var/lib/assetwatch LANG=C.UTF-8 \
    assetwatch serve --config /etc/assetwatch/assets.json --cache-dir /var/lib/assetwatch \
    --log-json --metrics "127.0.0.1:$metrics_port" > "$work/serve.log" 2>&1 &
serve_pid=$!
wait_for 30 "metrics" \
    "curl -fsS http://127.0.0.1:$metrics_port/metrics 2>/dev/null | grep -q '^remote_assets_build_info{version=\"$version\"} 1'" ||
    fail "no remote_assets_build_info{version=\"$version\"} 1 on /metrics: $(curl -sS "http://127.0.0.1:$metrics_port/metrics" | grep build_info; tail -n 5 "$work/serve.log")"
ok "serve's /metrics: remote_assets_build_info{version=\"$version\"} 1"
[ "$(cat "/proc/$serve_pid/comm")" = assetwatch ] || fail "pid $serve_pid is not the server"
out=$(as_service assetwatch status --attach /var/lib/assetwatch 2>&1) || fail "status --attach: $out"
[[ "$out" == *flags* ]] || fail "status --attach shows no flags: $out"
ok "status --attach /var/lib/assetwatch (the control socket, as the service user)"
kill -TERM "$serve_pid"
set +e
wait "$serve_pid"
status=$?
set -e
serve_pid=""
[ "$status" = 0 ] || fail "serve exited $status on SIGTERM: $(tail -n 5 "$work/serve.log")"
ok "serve (under MDWE) stops on SIGTERM with status 0"

step "man assetwatch"
in_root env MANWIDTH=80 man -P cat assetwatch > "$work/man.txt" 2> "$work/man.err" ||
    fail "man assetwatch: $(cat "$work/man.err")"
[ ! -s "$work/man.err" ] || fail "man assetwatch warned: $(cat "$work/man.err")"
for word in NAME SYNOPSIS serve status "--config"; do
    grep -q -- "$word" "$work/man.txt" || fail "the man page has no '$word'"
done
ok "man assetwatch ($(wc -l < "$work/man.txt") lines: NAME, SYNOPSIS, the subcommands)"

step "completions"
for file in /usr/share/bash-completion/completions/assetwatch \
    /usr/share/zsh/vendor-completions/_assetwatch \
    /usr/share/fish/vendor_completions.d/assetwatch.fish; do
    [ -s "$root$file" ] || fail "no $file"
done
out=$(in_root bash -c 'source /usr/share/bash-completion/completions/assetwatch && complete -p assetwatch') ||
    fail "the bash completion does not load"
ok "completions for bash (loads: $out), zsh and fish"

step "the dashboard in tmux (assetwatch demo), then q"
cat > "$root/tmp/dashboard.sh" <<'EOF'
#!/bin/sh
stty -g > /tmp/stty.before
assetwatch demo
echo $? > /tmp/demo.status
stty -g > /tmp/stty.after
EOF
chmod 0755 "$root/tmp/dashboard.sh"
rm -f "$root/tmp/demo.status"
tmux -L "$tmux_socket" -f /dev/null new-session -d -s pkg -x 120 -y 40 \
    "chroot $root /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 TERM=xterm-256color /tmp/dashboard.sh"
tmux -L "$tmux_socket" set-option -t pkg remain-on-exit on >/dev/null
screen() { tmux -L "$tmux_socket" capture-pane -p -t pkg; }
wait_for 60 "the table" 'screen | grep -q "STATE" && screen | grep -q "feature-flags"' ||
    fail "the dashboard shows no table: $(screen)"
screen > "$work/dashboard.txt"
sed -n '1,8p' "$work/dashboard.txt" | sed 's/^/    | /'
ok "the dashboard's table: $(grep -m1 STATE "$work/dashboard.txt" | tr -s ' ')"
tmux -L "$tmux_socket" send-keys -t pkg q
wait_for 20 "exit" "[ -s '$root/tmp/demo.status' ]" || fail "q did not quit: $(screen)"
[ "$(cat "$root/tmp/demo.status")" = 0 ] || fail "demo exited $(cat "$root/tmp/demo.status")"
cmp -s "$root/tmp/stty.before" "$root/tmp/stty.after" ||
    fail "the terminal's settings were not restored: $(cat "$root/tmp/stty.before") -> $(cat "$root/tmp/stty.after")"
! screen | grep -q "feature-flags" || fail "the table is still on the screen after q: $(screen)"
ok "q quits with status 0; the terminal's settings and screen are restored"

echo "package test: $passed passed, 0 failed ($((SECONDS - started)) s)"
