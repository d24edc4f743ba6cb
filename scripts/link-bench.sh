#!/usr/bin/env bash
# What the dashboard costs an ssh link: bytes per second that a real sshd (Debian's openssh-server,
# on loopback) sends to the client while the dashboard runs in a 120x40 tmux pane on the far end,
# counted by a relay in the ssh client's ProxyCommand. The peer in the same run is htop idling on
# the same link, in the same pane size, with the same TERM. Bytes are not CPU-sensitive, so the
# numbers hold on a busy machine; they are printed, never asserted.
#
#   scripts/link-bench.sh [quiet] [busy] [htop]      (default: all three)
#   env: LINK_SECONDS (30: the measured window)  LINK_SETTLE (10: seconds after the first rows)
#        LINK_ASSETS (200)  LINK_CHANGING (50: assets whose bytes change every second, busy)
#        ASSETWATCH_BIN (a release binary to measure instead of building this tree's)
#        LINK_SHOW (1: print each case's last screen to stderr, to see what was measured)
#
# quiet: LINK_ASSETS assets on nginx, each revalidated every second (304), nothing changing.
# busy:  the same, with LINK_CHANGING of them rewritten every second (a download each).
# Bounded in time (each case at most LINK_SETTLE + LINK_SECONDS + 60 s); every process it starts
# (nginx, sshd, the writer, tmux and what runs in it) is stopped on exit, and its folder removed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench-common.sh
source scripts/bench-common.sh

SECONDS_WINDOW=${LINK_SECONDS:-30}
SETTLE=${LINK_SETTLE:-10}
ASSETS=${LINK_ASSETS:-200}
CHANGING=${LINK_CHANGING:-50}
CASES=("$@")
[ ${#CASES[@]} -eq 0 ] && CASES=(quiet busy htop)

need=()
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
command -v ssh >/dev/null 2>&1 || need+=(openssh-client)
command -v htop >/dev/null 2>&1 || need+=(htop)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
bench_install scripts/link-bench.sh "${need[@]}"
export PATH="$PATH:/usr/sbin"

bench_binary

WORK=$(mktemp -d)
chmod 755 "$WORK"
TMUX_SOCKET="awlink$$"
PIDS=()
cleanup() {
  tmux -L "$TMUX_SOCKET" kill-server 2>/dev/null || true
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
  [ -f "$WORK/sshd.pid" ] && kill "$(cat "$WORK/sshd.pid")" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# The origin: nginx serving LINK_ASSETS small JSON files.
mkdir -p "$WORK/www" "$WORK/logs" "$WORK/tmp"
HTTP_PORT=$(free_port)
cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $WORK/tmp;
  server { listen 127.0.0.1:$HTTP_PORT; root $WORK/www; }
}
CONF
python3 - "$WORK/www" "$ASSETS" <<'PY'
import sys, os, json
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open(os.path.join(d, f"a{i}.json"), "w") as f:
        json.dump({"asset": i, "round": 0, "pad": "p" * (100 + i % 200)}, f)
PY
chmod -R a+rX "$WORK/www"
nginx -c "$WORK/nginx.conf" -p "$WORK"
for _ in $(seq 1 100); do curl -sf -o /dev/null "http://127.0.0.1:$HTTP_PORT/a0.json" && break; sleep 0.05; done
python3 - "$WORK/links.json" "http://127.0.0.1:$HTTP_PORT" "$ASSETS" "$WORK/cache" <<'PY'
import sys, json
path, base, n, cache = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
assets = [{"id": f"a{i}", "remote": f"{base}/a{i}.json", "format": "json",
           "refreshEvery": "1s", "ttl": "5m"} for i in range(n)]
json.dump({"appVersion": "bench", "cacheDirectory": cache, "maxConcurrentTransfers": 8,
           "assets": assets}, open(path, "w"))
PY
"$BIN" refresh --config "$WORK/links.json" >/dev/null

# sshd on a free loopback port, a temporary host key, one authorized key.
SSH_PORT=$(free_port)
mkdir -p /run/sshd "$WORK/ssh"
ssh-keygen -q -t ed25519 -N '' -f "$WORK/ssh/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$WORK/ssh/client_key"
cp "$WORK/ssh/client_key.pub" "$WORK/ssh/authorized_keys"
cat >"$WORK/ssh/sshd_config" <<CONF
Port $SSH_PORT
ListenAddress 127.0.0.1
HostKey $WORK/ssh/host_key
AuthorizedKeysFile $WORK/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
UsePAM no
StrictModes no
PidFile $WORK/sshd.pid
AcceptEnv LANG
CONF
/usr/sbin/sshd -D -f "$WORK/ssh/sshd_config" -E "$WORK/logs/sshd.log" &
PIDS+=($!)

# The relay in ssh's ProxyCommand: passes bytes both ways and counts those sshd sends.
cat >"$WORK/relay.py" <<'PY'
import os, select, socket, sys
port, count_path = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(("127.0.0.1", port))
total = 0
def note():
    tmp = count_path + ".tmp"
    with open(tmp, "w") as f: f.write(str(total))
    os.replace(tmp, count_path)
note()
while True:
    ready, _, _ = select.select([0, s], [], [])
    if 0 in ready:
        data = os.read(0, 65536)
        if not data: s.shutdown(socket.SHUT_WR); continue
        s.sendall(data)
    if s in ready:
        data = s.recv(65536)
        if not data: break
        total += len(data)
        note()
        view = memoryview(data)
        while view: view = view[os.write(1, view):]
PY
for _ in $(seq 1 100); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $SSH_PORT)).close()" 2>/dev/null && break
  sleep 0.05
done

# Runs COMMAND on the far end of the ssh link in a 120x40 tmux pane; the relay counts into
# $WORK/count.
link_start() { # COMMAND
  rm -f "$WORK/count"
  tmux -L "$TMUX_SOCKET" kill-server 2>/dev/null || true
  local ssh_cmd="ssh -tt -F none -i $WORK/ssh/client_key -o IdentitiesOnly=yes \
    -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
    -o ProxyCommand='python3 $WORK/relay.py $SSH_PORT $WORK/count' -p $SSH_PORT root@127.0.0.1 \
    \"TERM=screen-256color LANG=C.UTF-8 SWIFT_BACKTRACE=interactive=no $1\""
  tmux -L "$TMUX_SOCKET" new-session -d -s link -x 120 -y 40 -e LANG=C.UTF-8 "$ssh_cmd"
}
screen_text() { tmux -L "$TMUX_SOCKET" capture-pane -t link -p 2>/dev/null || true; }
wait_for() { # PATTERN: at most 60 s
  for _ in $(seq 1 600); do screen_text | grep -qE "$1" && return 0; sleep 0.1; done
  echo "the screen never showed $1:" >&2
  screen_text >&2
  return 1
}
count() { cat "$WORK/count" 2>/dev/null || echo 0; }
# Bytes per second sshd sent over the window, after the settle time.
measure_window() {
  sleep "$SETTLE"
  local b0 b1 t0 t1
  b0=$(count); t0=$(date +%s%N)
  sleep "$SECONDS_WINDOW"
  b1=$(count); t1=$(date +%s%N)
  awk -v b=$((b1 - b0)) -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", b / (ns / 1e9) }'
}
link_stop() {
  if [ "${LINK_SHOW:-0}" = 1 ]; then screen_text | head -16 >&2; fi
  tmux -L "$TMUX_SOCKET" send-keys -t link q 2>/dev/null || true
  for _ in $(seq 1 50); do tmux -L "$TMUX_SOCKET" ls >/dev/null 2>&1 || break; sleep 0.1; done
  tmux -L "$TMUX_SOCKET" kill-server 2>/dev/null || true
}

declare -A RESULT
run_dashboard() { # NAME
  local writer=""
  if [ "$1" = busy ]; then
    # LINK_CHANGING assets get new bytes every second.
    python3 - "$WORK/www" "$CHANGING" <<'PY' &
import sys, os, json, time
d, n = sys.argv[1], int(sys.argv[2])
r = 0
while True:
    r += 1
    for i in range(n):
        tmp = os.path.join(d, f".a{i}.tmp")
        with open(tmp, "w") as f:
            json.dump({"asset": i, "round": r, "pad": "p" * (100 + i % 200)}, f)
        os.chmod(tmp, 0o644)
        os.replace(tmp, os.path.join(d, f"a{i}.json"))
    time.sleep(1)
PY
    writer=$!
    PIDS+=("$writer")
  fi
  link_start "$BIN watch --config $WORK/links.json"
  wait_for ' a1 '
  RESULT[$1]=$(measure_window)
  link_stop
  [ -n "$writer" ] && kill "$writer" 2>/dev/null || true
}
run_htop() {
  link_start "htop"
  wait_for 'Load average|Tasks'
  RESULT[htop]=$(measure_window)
  link_stop
}

for c in "${CASES[@]}"; do
  case "$c" in
    quiet | busy) run_dashboard "$c" ;;
    htop) run_htop ;;
    *) echo "unknown case $c" >&2; exit 64 ;;
  esac
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
echo
echo "ssh link, 120x40, TERM=screen-256color, ${SECONDS_WINDOW}s window after ${SETTLE}s; $ASSETS assets revalidated every second"
printf '| %-52s | %-22s | %s |\n' "case" "bytes/s from sshd" "ratio"
printf '| %-52s | %-22s | %s |\n' "---" "---" "---"
htop=${RESULT[htop]:-}
[ -n "$htop" ] && printf '| %-52s | %-22s | %s |\n' "htop idle (the peer)" "$htop B/s" "1.00"
if [ -n "${RESULT[quiet]:-}" ]; then
  printf '| %-52s | %-22s | %s |\n' "dashboard, quiet ($ASSETS assets, 304 every second)" \
    "${RESULT[quiet]} B/s" "$([ -n "$htop" ] && ratio "${RESULT[quiet]}" "$htop" || echo -)x htop"
fi
if [ -n "${RESULT[busy]:-}" ]; then
  printf '| %-52s | %-22s | %s |\n' "dashboard, busy ($CHANGING of $ASSETS changing every second)" \
    "${RESULT[busy]} B/s" "$(ratio "${RESULT[busy]}" 16384)x 16 KiB/s"
fi
