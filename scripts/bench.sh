#!/usr/bin/env bash
# The scale benchmarks: assetwatch (release build) against a peer in the same run, on nginx on
# loopback. Each case runs several times interleaved with its peer (A B A B ...) and prints
# medians and ratios. Timings are printed, never asserted.
#
#   scripts/bench.sh [--quick] [CASE ...]
#   CASES: big sync revalidate status statusbig idle firstframe storm tuf attach delta
#          h2sync h2revalidate (default: all)
#          fleet (opt-in: a real Prometheus scraping synthetic fleets; needs prometheus)
#          absync abrevalidate abh2sync abh2revalidate (opt-in, with BASE_BIN: A/B rows, the two
#          binaries alone, AB_ROUNDS rounds, the order swapped every round, a sync before each
#          first sync; for changes smaller than the other rows' spread between runs)
#   env:   RUNS (5; --quick 3)  BIG_MIB (1024; --quick 256)  IDLE_SECONDS (60; --quick 10)
#          STORM_RATE (1000 events/s)  STORM_KEYS (10)  STORM_SECONDS (5)
#          FLEET_SIZES ("1000x20 10000x50"; --quick "1000x20")  TUF_TARGETS (10000)
#          ATTACH_ASSETS (200)  ATTACH_WATCHERS (20)  ATTACH_SECONDS (10; --quick 5)
#          AB_ROUNDS (30)
#          DELTA_SLOW (1: also over a 100 Mbit/s, +40 ms link in a network namespace; needs root)
#          ASSETWATCH_BIN (a release binary to measure instead of building this tree's)
#          FLOOR_BIN (a release AHCFloor: the revalidation rows' AsyncHTTPClient-alone floor)
#          BASE_BIN (a second release binary, e.g. the commit before a change: the cases sync,
#          revalidate, status and idle also run it interleaved in the same runs (new base peer,
#          base new peer, ...: the two swap places each run), each on a cache of its own, and print a row "base: ..." with its
#          figure and the ratio new/base, > 1 meaning the new binary is slower)
#
# Installs what it needs from Debian's packages when run as root (nginx-light curl time tmux openssl),
# else says what to install. Writes nothing outside a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench-common.sh
source scripts/bench-common.sh

QUICK=0
CASES=()
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    *) CASES+=("$arg") ;;
  esac
done
[ ${#CASES[@]} -eq 0 ] && CASES=(big sync revalidate status statusbig idle firstframe storm tuf attach delta h2sync h2revalidate)
if [ "$QUICK" = 1 ]; then
  RUNS=${RUNS:-3}; BIG_MIB=${BIG_MIB:-256}; IDLE_SECONDS=${IDLE_SECONDS:-10}
  ATTACH_SECONDS=${ATTACH_SECONDS:-5}
  FLEET_SIZES=${FLEET_SIZES:-1000x20}
else
  RUNS=${RUNS:-5}; BIG_MIB=${BIG_MIB:-1024}; IDLE_SECONDS=${IDLE_SECONDS:-60}
  ATTACH_SECONDS=${ATTACH_SECONDS:-10}
  FLEET_SIZES=${FLEET_SIZES:-1000x20 10000x50}
fi

need=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
[ -x /usr/bin/time ] || need+=(time)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
bench_install scripts/bench.sh "${need[@]}"
export PATH="$PATH:/usr/sbin"

bench_binary

WORK=$(mktemp -d)
chmod 755 "$WORK"
cleanup() {
  tmux -L awbench kill-server 2>/dev/null || true
  [ -n "${DELTA_PIDS:-}" ] && kill $DELTA_PIDS 2>/dev/null || true
  ip netns del awslow 2>/dev/null || true
  ip link del awh 2>/dev/null || true
  [ -f "$WORK/prometheus.pid" ] && kill "$(cat "$WORK/prometheus.pid")" 2>/dev/null || true
  [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/www" "$WORK/logs" "$WORK/tmp"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
H2PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# A test CA and a certificate for 127.0.0.1, for the same files served over TLS with HTTP/2.
mkdir -p "$WORK/pki"
(
  cd "$WORK/pki"
  ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 2 -subj "/CN=bench CA" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
  openssl req -new "${ec[@]}" -keyout server.key -out server.csr -subj /CN=127.0.0.1
  printf 'basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >server.ext
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem \
    -days 2 -extfile server.ext
) >/dev/null 2>&1
chmod -R a+rX "$WORK/pki"
cat > "$WORK/nginx.conf" <<CONF
worker_processes 2;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  log_format delta '\$uri \$status \$body_bytes_sent';
  client_body_temp_path $WORK/tmp;
  sendfile on;
  keepalive_requests 100000;
  server {
    listen 127.0.0.1:$PORT backlog=4096; root $WORK/www;
    location /delta/ { access_log $WORK/logs/delta.log delta; }
  }
  # nginx 1.22 takes HTTP/2 on the listen line (\`http2 on;\` is newer); one log line per request
  # with its protocol and connection, to count the connections each client opened.
  log_format h2 '\$server_protocol \$connection \$connection_requests \$status';
  server {
    listen 127.0.0.1:$H2PORT ssl http2 backlog=4096; root $WORK/www;
    ssl_certificate $WORK/pki/server.pem; ssl_certificate_key $WORK/pki/server.key;
    access_log $WORK/logs/h2.log h2;
  }
}
CONF
nginx -c "$WORK/nginx.conf" -p "$WORK"
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do curl -sf -o /dev/null "$BASE/" -r 0-0 2>/dev/null && break; sleep 0.05; done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# One timed run: prints "seconds maxRSS_KiB".
measure() { # seconds to the millisecond (/usr/bin/time's %e has 10 ms steps), then %M
  local start end
  start=$EPOCHREALTIME
  /usr/bin/time -f "%M" -o "$WORK/time.txt" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" || {
    echo "failed: $*" >&2; cat "$WORK/out.txt" "$WORK/err.txt" >&2; exit 1; }
  end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" -v m="$(tail -n 1 "$WORK/time.txt")" 'BEGIN{printf "%.3f %s\n", e - s, m}'
}
# The order of the two binaries in run RUN: new first in odd runs, base first in even ones, so
# neither always follows the same step (a deletion still being written back, the peer's run).
turns() { # RUN
  if [ -z "${BASE_BIN:-}" ]; then echo new
  elif (( $1 % 2 )); then echo new base
  else echo base new; fi
}
# Times, in run RUN, `BIN ARGS --config CONFIG.json` and (with BASE_BIN) `BASE_BIN ARGS --config
# CONFIG-base.json` in the order `turns` gives; appends the times to the arrays named NEW and BASE.
time_pair() { # RUN NEW BASE CONFIG ARGS...
  local run=$1 config=$4 which t
  local -n new_times=$2 base_times=$3
  shift 4
  for which in $(turns "$run"); do
    if [ "$which" = new ]; then
      read -r t _ < <(measure "$BIN" "$@" --config "$WORK/$config.json"); new_times+=("$t")
    else
      read -r t _ < <(measure "$BASE_BIN" "$@" --config "$WORK/$config-base.json"); base_times+=("$t")
    fi
  done
}
row() { printf '| %-44s | %-34s | %s |\n' "$1" "$2" "$3"; }
# With BASE_BIN: the base binary's figure for the row above and the ratio new/base.
base_row() { # CASE NEW BASE UNIT
  [ -n "${BASE_BIN:-}" ] || return 0
  row "  base: $1" "$2$4 (new) vs $3$4 (base)" "new/base $(ratio "$2" "$3")x"
}
# A copy of config NAME for the base binary, with a cache folder of its own.
base_config() { # NAME
  sed "s/\"cacheDirectory\": \"cache-$1\"/\"cacheDirectory\": \"cache-$1-base\"/" "$WORK/$1.json" >"$WORK/$1-base.json"
}

echo
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -r); runs: $RUNS"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); binary: $BIN ($(release_linker "$BIN"))${BASE_BIN:+; base: $BASE_BIN ($(release_linker "$BASE_BIN"))}"
echo
row "case" "median (assetwatch vs peer)" "ratio"
row "---" "---" "---"

# Writes N small JSON files and a config with one asset per file.
make_assets() { # N NAME
  local n=$1 name=$2
  mkdir -p "$WORK/www/$name"
  python3 - "$WORK/www/$name" "$n" <<'PY'
import sys, os, json
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open(os.path.join(d, f"a{i}.json"), "w") as f:
        json.dump({"asset": i, "flags": {"x": i % 7, "pad": "p" * (200 + i % 300)}}, f)
PY
  chmod -R a+rX "$WORK/www"
  python3 - "$WORK/$name.json" "$BASE/$name" "$n" "$name" <<'PY'
import sys, json
path, base, n, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
assets = [{"id": f"a{i}", "remote": f"{base}/a{i}.json", "format": "json",
           "refreshEvery": "1h"} for i in range(n)]
json.dump({"appVersion": "bench", "cacheDirectory": f"cache-{name}",
           "maxConcurrentTransfers": 8, "assets": assets}, open(path, "w"))
PY
  base_config "$name"
  : > "$WORK/$name.curl"
  : > "$WORK/$name.curl304"
  : > "$WORK/$name.floor"
  for i in $(seq 0 $((n - 1))); do
    f="$WORK/www/$name/a$i.json"
    etag=$(printf '"%x-%x"' "$(stat -c %Y "$f")" "$(stat -c %s "$f")")
    # `next` separates transfers; a trailing one would start an empty transfer that fails.
    sep=""; [ "$i" -gt 0 ] && sep="next\n"
    printf "${sep}"'url = "%s/a%d.json"\noutput = "%s/out/a%d.json"\n' "$BASE/$name" "$i" "$WORK" "$i" >> "$WORK/$name.curl"
    printf "${sep}"'url = "%s/a%d.json"\noutput = "/dev/null"\nheader = "If-None-Match: %s"\n' "$BASE/$name" "$i" "${etag//\"/\\\"}" >> "$WORK/$name.curl304"
    # The same conditional GETs for AHCFloor: URL and ETag per line.
    echo "$BASE/$name/a$i.json $etag" >> "$WORK/$name.floor"
  done
  mkdir -p "$WORK/out"
}

has() { for c in "${CASES[@]}"; do [ "$c" = "$1" ] && return 0; done; return 1; }
if has revalidate || has h2revalidate; then floor_binary; fi

# First syncs write new files, and so does their peer: before each run the last run's caches and
# curl's output are moved aside (never deleted between runs), and curl writes into a new folder.
# On ext4 without a journal (this machine's root) a new inode skips every inode freed in the last
# 60 s (360 s while its block is dirty), each looked up in the buffer cache: a first sync right
# after `rm -rf` of thousands of files spent a third of its CPU there, and curl writing over the
# files of its last run skipped inode allocation altogether. The moved files are deleted with
# the bench's folder at the end, not between cases (the h2 sync after the sync case would
# measure the same scan).
set_aside() { # PATH...
  local p n
  mkdir -p "$WORK/trash"
  for p in "$@"; do
    [ -e "$p" ] || continue
    n=$((${TRASHED:-0} + 1)); TRASHED=$n
    mv "$p" "$WORK/trash/$n"
  done
}
fresh_output() { set_aside "$WORK/out"; mkdir -p "$WORK/out"; }

if has big; then
  head -c $((BIG_MIB * 1048576)) /dev/urandom > "$WORK/www/big.bin"
  chmod a+r "$WORK/www/big.bin"
  SHA=$(sha256sum "$WORK/www/big.bin" | cut -d' ' -f1)
  cat > "$WORK/big.json" <<CONF
{ "appVersion": "bench", "cacheDirectory": "cache-big",
  "assets": [ { "id": "big", "remote": "$BASE/big.bin", "format": "binary",
                "size": $((BIG_MIB * 1048576)), "sha256": "$SHA", "maxBytes": "16GiB", "timeout": "60s" } ] }
CONF
  AW=(); SY=(); RAW=(); RSS=()
  for _ in $(seq 1 "$RUNS"); do
    rm -rf "$WORK/cache-big" "$WORK/big.out"
    read -r t m < <(measure "$BIN" refresh big --config "$WORK/big.json"); AW+=("$t"); RSS+=("$m")
    rm -f "$WORK/big.out"
    read -r t _ < <(measure sh -c "curl -sS -o '$WORK/big.out' '$BASE/big.bin' && sync '$WORK/big.out'"); SY+=("$t")
    rm -f "$WORK/big.out"
    read -r t _ < <(measure curl -sS -o "$WORK/big.out" "$BASE/big.bin"); RAW+=("$t")
  done
  aw=$(median "${AW[@]}"); sy=$(median "${SY[@]}"); raw=$(median "${RAW[@]}"); rss=$(median "${RSS[@]}")
  row "${BIG_MIB} MiB, hashed + durable vs curl -o && sync" "${aw}s vs ${sy}s" "throughput $(ratio "$sy" "$aw")x"
  row "${BIG_MIB} MiB, hashed + durable vs raw curl -o" "${aw}s vs ${raw}s" "throughput $(ratio "$raw" "$aw")x"
  row "${BIG_MIB} MiB, peak RSS" "$((rss / 1024)) MiB" "-"
  rm -f "$WORK/www/big.bin" "$WORK/big.out"
  rm -rf "$WORK/cache-big"
fi

if has sync || has revalidate || has status || has h2sync || has h2revalidate || has absync ||
  has abrevalidate || has abh2sync || has abh2revalidate; then
  make_assets 1000 n1000
fi

if has sync; then
  make_assets 3000 n3000
  A1=(); C1=(); O1=(); A3=(); B1=(); B3=()
  for run in $(seq 1 "$RUNS"); do
    set_aside "$WORK/cache-n1000" "$WORK/cache-n3000" "$WORK/cache-n1000-base" "$WORK/cache-n3000-base"
    fresh_output
    sync # what the last run wrote reaches the disk now, not inside this run's fsyncs
    time_pair "$run" A1 B1 n1000 refresh
    read -r t _ < <(measure curl -sS --parallel --parallel-max 8 -K "$WORK/n1000.curl"); C1+=("$t")
    # The peer until 2026-11-28: curl again, over the files it just wrote.
    read -r t _ < <(measure curl -sS --parallel --parallel-max 8 -K "$WORK/n1000.curl"); O1+=("$t")
    time_pair "$run" A3 B3 n3000 refresh
  done
  a1=$(median "${A1[@]}"); c1=$(median "${C1[@]}"); a3=$(median "${A3[@]}"); o1=$(median "${O1[@]}")
  row "first sync, 1,000 assets vs curl --parallel" "${a1}s vs ${c1}s" "$(ratio "$a1" "$c1")x"
  row "  same, curl over its files (the old peer)" "${a1}s vs ${o1}s" "$(ratio "$a1" "$o1")x"
  base_row "first sync, 1,000 (base vs curl $(ratio "$(median "${B1[@]}")" "$c1")x)" "$a1" "$(median "${B1[@]}")" s
  row "first sync, 3,000 vs 1,000 assets" "${a3}s vs ${a1}s" "$(ratio "$a3" "$a1")x"
  base_row "first sync, 3,000" "$a3" "$(median "${B3[@]}")" s
fi

if has revalidate; then
  [ -d "$WORK/cache-n1000" ] || "$BIN" refresh --config "$WORK/n1000.json" >/dev/null
  if [ -n "${BASE_BIN:-}" ] && [ ! -d "$WORK/cache-n1000-base" ]; then
    "$BASE_BIN" refresh --config "$WORK/n1000-base.json" >/dev/null
  fi
  A=(); C=(); B=(); F=()
  for run in $(seq 1 "$RUNS"); do
    time_pair "$run" A B n1000 refresh
    read -r t _ < <(measure curl -sS --parallel --parallel-max 8 -K "$WORK/n1000.curl304"); C+=("$t")
    read -r t _ < <(measure "$FLOOR_BIN" "$WORK/n1000.floor" 8); F+=("$t")
  done
  a=$(median "${A[@]}"); c=$(median "${C[@]}"); f=$(median "${F[@]}")
  row "revalidate 1,000 (all 304) vs curl If-None-Match" "${a}s vs ${c}s" "$(ratio "$a" "$c")x"
  row "  AsyncHTTPClient alone (AHCFloor) vs curl" "${f}s vs ${c}s" "$(ratio "$f" "$c")x"
  base_row "revalidate 1,000 (base vs curl $(ratio "$(median "${B[@]}")" "$c")x)" "$a" "$(median "${B[@]}")" s
fi

# HTTP/2 over TLS, as real origins serve it: the 1,000 files of n1000 from the TLS server, the
# engine trusting the test CA (defaults.tls.caFile), against curl --http2 --parallel with the
# same CA and the same 8 transfers at a time. Besides the medians, the connections each client
# opened per run and the protocol, from nginx's log.
h2_setup() {
  [ -f "$WORK/h2.json" ] && return 0
  H2BASE="https://127.0.0.1:$H2PORT"
  python3 - "$WORK/n1000.json" "$WORK/h2.json" "$BASE" "$H2BASE" "$WORK/pki/ca.pem" <<'PY'
import sys, json
src, dst, base, h2base, ca = sys.argv[1:6]
config = json.load(open(src))
config["cacheDirectory"] = "cache-h2"
# curl's --cacert replaces its CA bundle: the same trust is the test CA alone (systemRoots
# false). The engine's default also trusts the system's roots; h2-roots.json measures that.
config["defaults"] = {"tls": {"caFile": ca, "systemRoots": False}}
for asset in config["assets"]:
    asset["remote"] = asset["remote"].replace(base, h2base)
json.dump(config, open(dst, "w"))
config["defaults"] = {"tls": {"caFile": ca}}
json.dump(config, open(dst.replace("h2.json", "h2-roots.json"), "w"))
PY
  [ -z "${BASE_BIN:-}" ] || base_config h2
  # `next` resets per-transfer options: each transfer names the CA and HTTP/2 itself.
  sed "s#^$BASE#$H2BASE#" "$WORK/n1000.floor" >"$WORK/h2.floor"
  for f in curl curl304; do
    sed -e "s#$BASE#$H2BASE#" -e "/^url = /a cacert = \"$WORK/pki/ca.pem\"\nhttp2" \
      "$WORK/n1000.$f" >"$WORK/h2.$f"
  done
}
H2CURL=(curl -sS --parallel --parallel-max 8)
# Runs one timed command with an empty h2 log; prints "seconds connections protocols".
h2_measure() {
  local t
  : >"$WORK/logs/h2.log"
  read -r t _ < <(measure "$@")
  # nginx writes a request's line once its answer went out: wait until all 1,000 are there.
  for _ in $(seq 1 200); do [ "$(wc -l <"$WORK/logs/h2.log")" -ge 1000 ] && break; sleep 0.01; done
  echo "$t $(awk '{print $2}' "$WORK/logs/h2.log" | sort -u | wc -l) $(awk '{print $1}' "$WORK/logs/h2.log" | sort -u | paste -sd+)"
}

if has h2sync || has h2revalidate || has abh2sync || has abh2revalidate; then h2_setup; fi

# One h2 case: RUNS runs of assetwatch (and BASE_BIN, in turn) and curl with CURLFILE (each
# run after PREPARE), then the medians' row LABEL and the row SHORT: the connections each
# client opened per run.
h2_case() { # LABEL SHORT CURLFILE PREPARE
  local A=() B=() C=() AN="" CN="" AP="" CP="" t n p a c run which
  for run in $(seq 1 "$RUNS"); do
    $4
    for which in $(turns "$run"); do
      if [ "$which" = new ]; then
        read -r t n p < <(h2_measure "$BIN" refresh --config "$WORK/h2.json"); A+=("$t"); AN+=" $n"; AP=$p
      else
        read -r t _ _ < <(h2_measure "$BASE_BIN" refresh --config "$WORK/h2-base.json"); B+=("$t")
      fi
    done
    read -r t n p < <(h2_measure "${H2CURL[@]}" -K "$WORK/$3"); C+=("$t"); CN+=" $n"; CP=$p
  done
  a=$(median "${A[@]}"); c=$(median "${C[@]}")
  row "$1" "${a}s vs ${c}s" "$(ratio "$a" "$c")x"
  [ -z "${BASE_BIN:-}" ] || base_row "$2" "$a" "$(median "${B[@]}")" s
  row "$2: connections per run, protocol" "aw${AN} ($AP) vs curl${CN} ($CP)" "-"
}
h2_fresh_cache() { set_aside "$WORK/cache-h2" "$WORK/cache-h2-base"; fresh_output; sync; }

if has h2sync; then
  h2_case "h2 first sync, 1,000 vs curl --http2 --parallel" "h2 first sync" h2.curl h2_fresh_cache
fi

if has h2revalidate; then
  [ -d "$WORK/cache-h2" ] || "$BIN" refresh --config "$WORK/h2.json" >/dev/null
  if [ -n "${BASE_BIN:-}" ] && [ ! -d "$WORK/cache-h2-base" ]; then
    "$BASE_BIN" refresh --config "$WORK/h2-base.json" >/dev/null
  fi
  h2_case "h2 revalidate 1,000 (304) vs curl --http2" "h2 revalidate" h2.curl304 true
  # The engine's default trust, the system's roots besides the CA: the bundle is read and
  # parsed at the first TLS connection of each run.
  A=(); C=()
  for run in $(seq 1 "$RUNS"); do
    read -r t _ _ < <(h2_measure "$BIN" refresh --config "$WORK/h2-roots.json"); A+=("$t")
    read -r t _ _ < <(h2_measure "${H2CURL[@]}" -K "$WORK/h2.curl304"); C+=("$t")
  done
  a=$(median "${A[@]}"); c=$(median "${C[@]}")
  row "  same, the system's roots trusted too" "${a}s vs ${c}s" "$(ratio "$a" "$c")x"
  # The floor: the same 1,000 conditional GETs through AsyncHTTPClient alone, 8 at a time,
  # trusting the CA alone, against the same curl.
  F=(); C=()
  for run in $(seq 1 "$RUNS"); do
    read -r t _ _ < <(h2_measure "$FLOOR_BIN" "$WORK/h2.floor" 8 "$WORK/pki/ca.pem"); F+=("$t")
    read -r t _ _ < <(h2_measure "${H2CURL[@]}" -K "$WORK/h2.curl304"); C+=("$t")
  done
  f=$(median "${F[@]}"); c=$(median "${C[@]}")
  row "  AsyncHTTPClient alone (AHCFloor) vs curl" "${f}s vs ${c}s" "$(ratio "$f" "$c")x"
fi

# A/B rows (opt-in, BASE_BIN required): the two binaries alone, AB_ROUNDS rounds, the order
# swapped every round, each first sync into a new cache after a `sync` (no run pays for another
# run's writeback), and new/base of the medians. A change of a few percent moves the rows above
# by more than that from one bench run to the next (they sync once per run, before a pair of
# first syncs); these show it.
ab_case() { # LABEL CONFIG FRESH (1: a first sync into a new cache each run)
  local label=$1 config=$2 fresh=$3 N=() B=() run which t n b
  [ -n "${BASE_BIN:-}" ] || { echo "$label: A/B rows need BASE_BIN" >&2; return 0; }
  if [ "$fresh" = 0 ]; then # revalidations: both caches filled first
    [ -d "$WORK/cache-$config" ] || "$BIN" refresh --config "$WORK/$config.json" >/dev/null
    [ -d "$WORK/cache-$config-base" ] ||
      "$BASE_BIN" refresh --config "$WORK/$config-base.json" >/dev/null
  fi
  for run in $(seq 1 "${AB_ROUNDS:-30}"); do
    for which in $(turns "$run"); do
      if [ "$fresh" = 1 ]; then set_aside "$WORK/cache-$config" "$WORK/cache-$config-base"; sync; fi
      if [ "$which" = new ]; then
        read -r t _ < <(measure "$BIN" refresh --config "$WORK/$config.json"); N+=("$t")
      else
        read -r t _ < <(measure "$BASE_BIN" refresh --config "$WORK/$config-base.json"); B+=("$t")
      fi
    done
  done
  n=$(median "${N[@]}"); b=$(median "${B[@]}")
  row "A/B: $label, ${AB_ROUNDS:-30} rounds" "${n}s (new) vs ${b}s (base)" "new/base $(ratio "$n" "$b")x"
}
if has absync; then ab_case "first sync, 1,000" n1000 1; fi
if has abrevalidate; then ab_case "revalidate 1,000" n1000 0; fi
if has abh2sync; then ab_case "h2 first sync, 1,000" h2 1; fi
if has abh2revalidate; then ab_case "h2 revalidate 1,000" h2 0; fi

if has status; then
  [ -d "$WORK/cache-n1000" ] || "$BIN" refresh --config "$WORK/n1000.json" >/dev/null
  make_assets 10000 n10000
  echo "  (filling 10,000 cached assets...)" >&2
  "$BIN" refresh --config "$WORK/n10000.json" >/dev/null
  if [ -n "${BASE_BIN:-}" ] && [ ! -d "$WORK/cache-n1000-base" ]; then
    "$BASE_BIN" refresh --config "$WORK/n1000-base.json" >/dev/null
  fi
  A=(); C=(); T=(); TR=(); B=()
  for run in $(seq 1 "$RUNS"); do
    time_pair "$run" A B n1000 status --json
    read -r t _ < <(measure "$BIN" check --config "$WORK/n1000.json"); C+=("$t")
    read -r t m < <(measure "$BIN" status --json --config "$WORK/n10000.json"); T+=("$t"); TR+=("$m")
  done
  a=$(median "${A[@]}"); c=$(median "${C[@]}"); t10=$(median "${T[@]}"); r10=$(median "${TR[@]}")
  row "status --json, 1,000 cached vs check" "${a}s vs ${c}s" "$(ratio "$a" "$c")x"
  base_row "status --json, 1,000 cached" "$a" "$(median "${B[@]}")" s
  row "status --json, 10,000 vs 1,000 cached" "${t10}s vs ${a}s" "$(ratio "$t10" "$a")x"
  row "status --json, 10,000 cached, peak RSS" "$((r10 / 1024)) MiB" "-"
fi

if has statusbig; then
  head -c $((BIG_MIB * 1048576)) /dev/urandom > "$WORK/www/big2.bin"
  chmod a+r "$WORK/www/big2.bin"
  for with in yes no; do
    extra=""
    [ "$with" = yes ] && extra=", { \"id\": \"big\", \"remote\": \"$BASE/big2.bin\", \"format\": \"binary\", \"maxBytes\": \"16GiB\" }"
    cat > "$WORK/sb-$with.json" <<CONF
{ "appVersion": "bench", "cacheDirectory": "cache-sb-$with",
  "assets": [ { "id": "small", "remote": "$BASE/n1000/a1.json", "format": "json" } $extra ] }
CONF
    "$BIN" refresh --config "$WORK/sb-$with.json" >/dev/null
  done
  W=(); N=()
  for _ in $(seq 1 "$RUNS"); do
    read -r t _ < <(measure "$BIN" status --config "$WORK/sb-yes.json"); W+=("$t")
    read -r t _ < <(measure "$BIN" status --config "$WORK/sb-no.json"); N+=("$t")
  done
  w=$(median "${W[@]}"); n=$(median "${N[@]}")
  row "status with a ${BIG_MIB} MiB asset cached vs without" "${w}s vs ${n}s" "$(ratio "$w" "$n")x"
  rm -rf "$WORK/www/big2.bin" "$WORK/cache-sb-yes" "$WORK/cache-sb-no"
fi

# The dashboard in tmux: CPU of an idle dashboard, time to its first frame and first row, and
# frames/s and key latency under a storm of events. Each case is a function of its own.
dash_kill() { # and wait until the server is gone: a new session must not reach a dying one
  tmux -L awbench kill-server 2>/dev/null || true
  for _ in $(seq 1 200); do tmux -L awbench ls >/dev/null 2>&1 || return 0; sleep 0.01; done
}
dash_screen() { tmux -L awbench capture-pane -t bench -p 2>/dev/null; }
# Starts the dashboard on CONFIG (extra environment as further NAME=VALUE arguments); sets DPID.
dash_launch() { # CONFIG [NAME=VALUE ...]
  local config=$1; shift
  local envs=(-e LANG=C.UTF-8 -e TERM=tmux-256color)
  for e in "$@"; do envs+=(-e "$e"); done
  dash_kill
  tmux -L awbench new-session -d -s bench -x 140 -y 45 "${envs[@]}" "${DASH_BIN:-$BIN} watch --config $config" ||
    { sleep 0.2; tmux -L awbench new-session -d -s bench -x 140 -y 45 "${envs[@]}" "${DASH_BIN:-$BIN} watch --config $config"; }
  DPID=$(tmux -L awbench display -p -t bench '#{pane_pid}')
}
# Polls the screen until it matches PATTERN (grep -E); prints the milliseconds since T0_NS.
dash_wait_for() { # PATTERN T0_NS
  for _ in $(seq 1 4000); do
    dash_screen | grep -qE "$1" && break
    sleep 0.002
  done
  echo $((($(date +%s%N) - $2) / 1000000))
}
dash_wait_gone() { # PATTERN T0_NS
  for _ in $(seq 1 4000); do
    dash_screen | grep -qE "$1" || break
    sleep 0.002
  done
  echo $((($(date +%s%N) - $2) / 1000000))
}
# Starts the dashboard on CONFIG; prints "ms-to-first-frame ms-to-first-row ms-to-all-loaded".
dash_start() { # CONFIG
  local t0 frame row loaded
  t0=$(date +%s%N)
  dash_launch "$1"
  frame=$(dash_wait_for 'AssetWatch' "$t0")
  row=$(dash_wait_for ' a0 | a1 ' "$t0")
  loaded=$(dash_wait_gone 'loading [0-9]+ asset' "$t0")
  echo "$frame $row $loaded"
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

dash_fill() { # N...: configs n<N> with every asset cached
  for n in "$@"; do
    [ -f "$WORK/n$n.json" ] || make_assets "$n" "n$n"
    [ -d "$WORK/cache-n$n" ] || "$BIN" refresh --config "$WORK/n$n.json" >/dev/null
    if [ -n "${BASE_BIN:-}" ] && [ ! -d "$WORK/cache-n$n-base" ]; then
      "$BASE_BIN" refresh --config "$WORK/n$n-base.json" >/dev/null
    fi
  done
}

# Starts piping what the pane's program writes to its terminal into FILE (tmux pipe-pane).
dash_pipe_start() { : >"$1"; tmux -L awbench pipe-pane -o -t bench "cat >> $1"; }
# Stops it; prints the bytes written per second over the NS nanoseconds measured.
dash_pipe_rate() { # FILE NS
  tmux -L awbench pipe-pane -t bench
  sleep 0.2 # the cat behind the pipe drains
  awk -v b="$(wc -c <"$1")" -v ns="$2" 'BEGIN{printf "%.0f", b / (ns / 1e9)}'
}

# CPU of an idle dashboard (1,000 and 3,000 assets against 7) and, for 7, the bytes it writes to
# its terminal over the same window against htop's in the same pane size (a test checks that
# idle output is only what changes on screen; the amounts are measured here).
bench_dashboard_idle() {
  dash_fill 7 1000 3000
  local hz n c0 c1 s0 s1 bytes7 bytesHtop
  hz=$(getconf CLK_TCK)
  declare -A IDLE BIDLE
  local which suffix
  for n in 7 1000 3000; do
    for which in new ${BASE_BIN:+base}; do
      suffix=""; DASH_BIN=""
      [ "$which" = base ] && { suffix="-base"; DASH_BIN="$BASE_BIN"; }
      dash_start "$WORK/n$n$suffix.json" >/dev/null
      sleep 2
      [ "$n$which" = 7new ] && dash_pipe_start "$WORK/idle-bytes"
      c0=$(cpu_ticks "$DPID"); s0=$(date +%s%N)
      sleep "$IDLE_SECONDS"
      c1=$(cpu_ticks "$DPID"); s1=$(date +%s%N)
      [ "$n$which" = 7new ] && bytes7=$(dash_pipe_rate "$WORK/idle-bytes" $((s1 - s0)))
      c0=$(awk -v c=$((c1 - c0)) -v hz="$hz" -v ns=$((s1 - s0)) 'BEGIN{printf "%.2f", 100 * c / hz / (ns / 1e9)}')
      if [ "$which" = base ]; then BIDLE[$n]=$c0; else IDLE[$n]=$c0; fi
    done
  done
  DASH_BIN=""
  bytesHtop="-"
  if command -v htop >/dev/null 2>&1; then
    dash_kill
    tmux -L awbench new-session -d -s bench -x 140 -y 45 -e TERM=tmux-256color htop
    sleep 2
    dash_pipe_start "$WORK/idle-bytes"
    s0=$(date +%s%N); sleep "$IDLE_SECONDS"; s1=$(date +%s%N)
    bytesHtop=$(dash_pipe_rate "$WORK/idle-bytes" $((s1 - s0)))
  fi
  dash_kill
  row "dashboard idle ${IDLE_SECONDS}s, 1,000 assets vs 7" "${IDLE[1000]}% vs ${IDLE[7]}% of a core" "-"
  base_row "dashboard idle, 1,000 (base 7: ${BIDLE[7]:-}%)" "${IDLE[1000]}" "${BIDLE[1000]:-}" %
  row "dashboard idle ${IDLE_SECONDS}s, 3,000 assets vs 7" "${IDLE[3000]}% vs ${IDLE[7]}% of a core" "-"
  base_row "dashboard idle, 3,000" "${IDLE[3000]}" "${BIDLE[3000]:-}" %
  row "dashboard idle ${IDLE_SECONDS}s, 7 assets: bytes to the terminal vs htop" "${bytes7} B/s vs ${bytesHtop} B/s" "-"
}

bench_dashboard_firstframe() {
  dash_fill 7 1000 3000
  local F1=() R1=() L1=() F7=() R7=() F3=() R3=() L3=() f r l
  for _ in $(seq 1 "$RUNS"); do
    read -r f r l < <(dash_start "$WORK/n1000.json"); F1+=("$f"); R1+=("$r"); L1+=("$l")
    read -r f r _ < <(dash_start "$WORK/n7.json"); F7+=("$f"); R7+=("$r")
    read -r f r l < <(dash_start "$WORK/n3000.json"); F3+=("$f"); R3+=("$r"); L3+=("$l")
  done
  dash_kill
  local f1 r1 l1 f7 r7 f3 r3 l3
  f1=$(median "${F1[@]}"); r1=$(median "${R1[@]}"); l1=$(median "${L1[@]}")
  f7=$(median "${F7[@]}"); r7=$(median "${R7[@]}")
  f3=$(median "${F3[@]}"); r3=$(median "${R3[@]}"); l3=$(median "${L3[@]}")
  row "first frame, 1,000 cached vs 7" "${f1}ms vs ${f7}ms" "$(ratio "$f1" "$f7")x"
  row "first frame with rows, 1,000 cached vs 7" "${r1}ms vs ${r7}ms" "$(ratio "$r1" "$r7")x"
  row "first frame with rows, 3,000 cached vs 7" "${r3}ms vs ${r7}ms" "$(ratio "$r3" "$r7")x"
  row "all rows loaded, 1,000 / 3,000 cached" "${l1}ms / ${l3}ms" "-"
}

# 1,000 synthetic engine events a second (ASSETWATCH_EVENT_STORM) into a dashboard of 1,000
# assets: frames drawn (counted by the dashboard, ASSETWATCH_FRAME_STATS) and the time from a
# key sent through tmux to the screen showing its effect (the filter line opening and closing).
bench_dashboard_storm() {
  dash_fill 1000
  local stats="$WORK/storm-stats.txt" lat=() t0 i
  rm -f "$stats"
  t0=$(date +%s%N)
  dash_launch "$WORK/n1000.json" ASSETWATCH_EVENT_STORM="${STORM_RATE:-1000}" ASSETWATCH_FRAME_STATS="$stats"
  dash_wait_gone 'loading [0-9]+ asset' "$t0" >/dev/null
  sleep 2
  for i in $(seq 1 "${STORM_KEYS:-10}"); do
    t0=$(date +%s%N); tmux -L awbench send-keys -t bench /
    lat+=("$(dash_wait_for ' of 1000' "$t0")")
    sleep 0.3
    t0=$(date +%s%N); tmux -L awbench send-keys -t bench Escape
    lat+=("$(dash_wait_gone ' of 1000' "$t0")")
    sleep 0.3
  done
  sleep "${STORM_SECONDS:-5}"
  tmux -L awbench send-keys -t bench q
  for _ in $(seq 1 500); do [ -s "$stats" ] && break; sleep 0.02; done
  # The peer: the same round trip through tmux to `cat`, which echoes at once (tmux's own share).
  local peer=()
  dash_kill
  tmux -L awbench new-session -d -s bench -x 140 -y 45 "stty -echo; cat"
  sleep 0.5
  for i in $(seq 1 "${STORM_KEYS:-10}"); do
    t0=$(date +%s%N); tmux -L awbench send-keys -t bench "k$i" Enter
    peer+=("$(dash_wait_for "^k$i\$" "$t0")")
    sleep 0.3
  done
  dash_kill
  local fps most eps kmed kmax lmed lmax
  fps=$(awk '$1=="frames_per_second"{print $2}' "$stats")
  most=$(awk '$1=="most_frames_in_one_second"{print $2}' "$stats")
  eps=$(awk '$1=="events_per_second"{print $2}' "$stats")
  kmed=$(awk '$1=="key_to_screen_ms_median"{print $2}' "$stats")
  kmax=$(awk '$1=="key_to_screen_ms_max"{print $2}' "$stats")
  lmed=$(median "${lat[@]}"); lmax=$(printf '%s\n' "${lat[@]}" | sort -g | tail -1)
  row "storm ${eps} events/s, 1,000 assets: frames/s" "${fps} (most in one second: ${most})" "-"
  local pmed; pmed=$(median "${peer[@]}")
  row "storm: key sent by tmux to screen (median, max)" "${lmed}ms, ${lmax}ms vs cat ${pmed}ms" "-"
  row "storm: key handled to frame drawn (median, max)" "${kmed}ms, ${kmax}ms" "-"
}

if has idle; then bench_dashboard_idle; fi
if has firstframe; then bench_dashboard_firstframe; fi
if has storm; then bench_dashboard_storm; fi

# The fleet view against a real Prometheus scraping a synthetic fleet (scripts/fleet-page.py:
# pages of 1,000 instances each, scraped with honor_labels) and loading
# deploy/prometheus/assetwatch-recording-rules.yml, per size NxA: `fleet --json` (counts and one
# page of 100 rows, evaluated at one time) reading the recorded counts, and with `--counts raw`
# (Prometheus counts the raw series at query time), each against curl fetching the five raw
# queries the first fleet view asked (compressed, in parallel); the two sources' counts are
# checked equal; assetwatch's peak RSS; the rule group's evaluation time (Prometheus' cost, once
# per evaluation interval instead of once per refresh).
bench_fleet() {
  command -v prometheus >/dev/null 2>&1 || { echo "fleet: needs prometheus (apt-get install -y prometheus)" >&2; return; }
  local size n a dir prom ppid interval shards targets t
  for size in $FLEET_SIZES; do
    n=${size%x*}; a=${size#*x}
    dir="$WORK/www/fleet-$size"
    python3 scripts/fleet-page.py "$dir" "$n" "$a" 1 1000
    chmod -R a+rX "$WORK/www"
    shards=$(( (n + 999) / 1000 ))
    interval=15; [ $((n * a)) -gt 100000 ] && interval=60
    prom=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    rm -rf "$WORK/prom-data"; mkdir -p "$WORK/prom-data"
    {
      printf 'global:\n  scrape_interval: %ss\n  scrape_timeout: %ss\n  evaluation_interval: %ss\n' "$interval" "$((interval - 5))" "$interval"
      printf 'rule_files:\n  - %s\nscrape_configs:\n' "$PWD/deploy/prometheus/assetwatch-recording-rules.yml"
      printf '  - job_name: fleet-exporter\n    honor_labels: true\n    static_configs:\n'
      for s in $(seq 0 $((shards - 1))); do
        printf "      - targets: ['127.0.0.1:%s']\n        labels: { __metrics_path__: /fleet-%s/%s.prom, instance: 'page-%s' }\n" "$PORT" "$size" "$s" "$s"
      done
    } > "$WORK/prometheus.yml"
    prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prom-data" \
      --web.listen-address="127.0.0.1:$prom" --storage.tsdb.retention.time=1h \
      > "$WORK/logs/prometheus.log" 2>&1 &
    ppid=$!; echo "$ppid" > "$WORK/prometheus.pid"
    local P="http://127.0.0.1:$prom" want=$((n * a)) have=0 started=$SECONDS
    # Wait (bounded, 15 min) until every shard was scraped: as many info series as the pages hold.
    want=$(cat "$dir"/*.prom | grep -c '^remote_assets_asset_info{')
    while [ $((SECONDS - started)) -lt 900 ]; do
      have=$(curl -sf "$P/api/v1/query" --data-urlencode 'query=count(remote_assets_asset_info{job="assets"})' \
        | python3 -c 'import sys, json; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null || echo 0)
      [ "$have" = "$want" ] && break
      sleep 2
    done
    if [ "$have" != "$want" ]; then
      echo "fleet $size: Prometheus holds $have of $want info series after 15 min; skipped" >&2
      kill "$ppid"; wait "$ppid" 2>/dev/null || true; continue
    fi
    # Wait (bounded, 10 min) for a whole evaluation of the rules that started after every shard
    # was in (the group's lastEvaluation is set when all its rules are done).
    local ingested evaluated=""; ingested=$(date -u +%Y-%m-%dT%H:%M:%S); started=$SECONDS
    while [ $((SECONDS - started)) -lt 600 ]; do
      evaluated=$(curl -sf "$P/api/v1/rules?type=record" \
        | python3 -c 'import sys, json; g = [g for g in json.load(sys.stdin)["data"]["groups"] if g["name"] == "assetwatch-fleet"]; print(g[0]["lastEvaluation"][:19] if g else "")' 2>/dev/null || true)
      [[ "$evaluated" > "$ingested" ]] && break
      sleep 2
    done
    [[ "$evaluated" > "$ingested" ]] || echo "fleet $size: the recording rules were not evaluated after the ingest" >&2
    local ruletime; ruletime=$(curl -s "$P/api/v1/rules?type=record" \
      | python3 -c 'import sys, json; g = [g for g in json.load(sys.stdin)["data"]["groups"] if g["name"] == "assetwatch-fleet"]; print("%.2f" % g[0]["evaluationTime"] if g else "?")')
    local scrape; scrape=$(curl -s "$P/api/v1/query" --data-urlencode 'query=max(scrape_duration_seconds{job="fleet-exporter"})' \
      | python3 -c 'import sys, json; r = json.load(sys.stdin)["data"]["result"]; print("%.1f" % float(r[0]["value"][1]) if r else "?")')
    t=$(date +%s.%3N)
    local q; : > "$WORK/fleet.curl"
    for q in 'remote_assets_asset_info{job="assets"}' 'remote_assets_last_success_timestamp_seconds{job="assets"}' \
      'remote_assets_consecutive_failures{job="assets"}' 'min_over_time(remote_assets_asset_behind{job="assets"}[600s])' 'up{job="assets"}'; do
      printf 'url = "%s/api/v1/query?query=%s&time=%s"\noutput = "/dev/null"\nnext\n' "$P" \
        "$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$q")" "$t" >> "$WORK/fleet.curl"
    done
    sed -i '$ d' "$WORK/fleet.curl"
    # One untimed round of each first: Prometheus' first queries after the ingest are cold.
    # Both sources give the same counts (and the default reads the recorded ones).
    "$BIN" fleet --prometheus "$P" --selector '{job="assets"}' --json --at "$t" --timeout 120 > "$WORK/fleet-recorded.json"
    "$BIN" fleet --prometheus "$P" --selector '{job="assets"}' --json --at "$t" --timeout 120 --counts raw > "$WORK/fleet-raw.json"
    python3 - "$WORK/fleet-recorded.json" "$WORK/fleet-raw.json" <<'PY' || echo "fleet $size: the recorded and the raw counts differ" >&2
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["counts"] == "recorded" and b["counts"] == "raw", (a["counts"], b["counts"])
strip = lambda d: {k: v for k, v in d.items() if k not in ("counts",)}
assert strip(a) == strip(b)
PY
    curl -sSf --compressed --parallel -K "$WORK/fleet.curl" 2>/dev/null
    AW=(); AR=(); CU=(); RSS=()
    for _ in $(seq 1 "$RUNS"); do
      read -r s r < <(measure "$BIN" fleet --prometheus "$P" --selector '{job="assets"}' --json --at "$t" --timeout 120)
      AW+=("$s"); RSS+=("$r")
      read -r s _ < <(measure "$BIN" fleet --prometheus "$P" --selector '{job="assets"}' --json --at "$t" --timeout 120 --counts raw)
      AR+=("$s")
      read -r s _ < <(measure curl -sSf --compressed --parallel -K "$WORK/fleet.curl")
      CU+=("$s")
    done
    local aw ar cu rss
    aw=$(median "${AW[@]}"); ar=$(median "${AR[@]}"); cu=$(median "${CU[@]}"); rss=$(median "${RSS[@]}")
    row "fleet --json ${n}x${a} (recorded counts) vs curl 5 raw queries" "${aw}s vs ${cu}s" "$(ratio "$aw" "$cu")x"
    row "fleet --json ${n}x${a} --counts raw vs curl 5 raw queries" "${ar}s vs ${cu}s" "$(ratio "$ar" "$cu")x"
    row "fleet --json ${n}x${a}, peak RSS (recorded counts)" "$((rss / 1024)) MiB" "-"
    row "fleet ${n}x${a}: one evaluation of the recording rules in Prometheus" "${ruletime}s (every ${interval}s)" "-"
    row "fleet ${n}x${a}: Prometheus scrape of a 1,000-instance page" "${scrape}s (interval ${interval}s)" "-"
    kill "$ppid"; wait "$ppid" 2>/dev/null || true
    rm -rf "$WORK/prom-data" "$dir"
  done
}

# Signed targets: a repository of TUF_TARGETS targets written by python-tuf (scripts/tuf-bench/
# make_repo.py: one signed targets.json listing them all, about 1.4 MB at 10,000), served by the
# same nginx. `assetwatch tuf-client` against python-tuf's ngclient Updater (the reference
# client, scripts/tuf-bench/client.py), each from a metadata folder holding only the trusted
# root: the whole top-level refresh (root probe, timestamp, snapshot, targets: every signature,
# hash and expiry checked) and the lookup of the last target; then a refresh of the unchanged
# repository (the timestamp alone is fetched). Both times include starting the process.
bench_tuf() {
  local n=${TUF_TARGETS:-10000}
  bash scripts/tuf-venv.sh
  local py=.build/tuf-venv/bin/python
  echo "  (writing a repository of $n signed targets with python-tuf...)" >&2
  "$py" scripts/tuf-bench/make_repo.py "$WORK/tuf" "$n" >/dev/null
  mv "$WORK/tuf/www" "$WORK/www/tuf"
  local url="$BASE/tuf/metadata/" last="t/$((n - 1)).json"
  fresh() { rm -rf "$WORK/tuf/$1"; mkdir -p "$WORK/tuf/$1"; cp "$WORK/tuf/root.json" "$WORK/tuf/$1/root.json"; }
  fresh aw; "$BIN" tuf-client --metadata-dir "$WORK/tuf/aw" --metadata-url "$url" refresh
  fresh py; "$py" scripts/tuf-bench/client.py "$WORK/tuf/py" "$url" "$last"
  local A=() P=() AU=() PU=() RSS=()
  for _ in $(seq 1 "$RUNS"); do
    fresh aw
    read -r t m < <(measure "$BIN" tuf-client --metadata-dir "$WORK/tuf/aw" --metadata-url "$url" \
      --target-name "$last" --target-base-url "$BASE/tuf/targets/" --target-dir "$WORK/tuf/aw-targets" download)
    A+=("$t"); RSS+=("$m")
    fresh py
    read -r t _ < <(measure "$py" scripts/tuf-bench/client.py "$WORK/tuf/py" "$url" "$last"); P+=("$t")
    read -r t _ < <(measure "$BIN" tuf-client --metadata-dir "$WORK/tuf/aw" --metadata-url "$url" refresh); AU+=("$t")
    read -r t _ < <(measure "$py" scripts/tuf-bench/client.py "$WORK/tuf/py" "$url" "$last"); PU+=("$t")
  done
  local a p au pu rss
  a=$(median "${A[@]}"); p=$(median "${P[@]}"); au=$(median "${AU[@]}"); pu=$(median "${PU[@]}"); rss=$(median "${RSS[@]}")
  row "tuf: refresh + lookup, $n targets vs python-tuf" "${a}s vs ${p}s" "$(ratio "$a" "$p")x"
  row "tuf: refresh of the unchanged repository vs python-tuf" "${au}s vs ${pu}s" "$(ratio "$au" "$pu")x"
  row "tuf: refresh + lookup, $n targets, peak RSS" "$((rss / 1024)) MiB" "-"
}

# `serve` keeping ATTACH_ASSETS assets fresh every second (nginx answers 304s) with watchers on
# its control socket: the engine's CPU and RSS alone, with readers, with stalled watchers, and
# after they left; the peer is the same engine with no watcher, in the same run.
bench_attach() {
  local n=${ATTACH_ASSETS:-200} w=${ATTACH_WATCHERS:-20} secs=$ATTACH_SECONDS
  [ -f "$WORK/n$n.json" ] || make_assets "$n" "n$n"
  python3 - "$WORK/n$n.json" "$WORK/att.json" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config["cacheDirectory"] = "cache-att"
for asset in config["assets"]:
    asset["refreshEvery"] = "1s"
    asset["ttl"] = "1s"
json.dump(config, open(sys.argv[2], "w"))
PY
  rm -rf "$WORK/cache-att"
  "$BIN" refresh --config "$WORK/att.json" >/dev/null
  (cd "$WORK" && exec "$BIN" serve --config "$WORK/att.json" >"$WORK/serve.log" 2>&1) &
  local spid=$! sock="$WORK/cache-att/control.sock" hz
  hz=$(getconf CLK_TCK)
  for _ in $(seq 1 200); do [ -S "$sock" ] && break; sleep 0.05; done
  sleep 3 # settle into the once-a-second rhythm
  rss() { awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$spid/status"; }
  cpu() { # percent of a core over SECONDS, while "$@" runs (or sleeps)
    local c0 s0 c1 s1
    c0=$(cpu_ticks "$spid"); s0=$(date +%s%N)
    "$@"
    c1=$(cpu_ticks "$spid"); s1=$(date +%s%N)
    awk -v c=$((c1 - c0)) -v hz="$hz" -v ns=$((s1 - s0)) 'BEGIN{printf "%.1f", 100 * c / hz / (ns / 1e9)}'
  }
  local alone rss0 readers bytes stalled rss1 rss2
  rss0=$(rss)
  alone=$(cpu sleep "$secs")
  read_all() { python3 scripts/attach-bench/watchers.py "$sock" read "$w" "$secs" > "$WORK/read.out"; }
  readers=$(cpu read_all)
  bytes=$(cat "$WORK/read.out")
  python3 scripts/attach-bench/watchers.py "$sock" stall "$w" $((secs + 2)) > "$WORK/stall.out" &
  local stpid=$!
  for _ in $(seq 1 200); do grep -q ready "$WORK/stall.out" 2>/dev/null && break; sleep 0.05; done
  sleep 1
  stalled=$(cpu sleep "$secs")
  rss1=$(rss)
  wait "$stpid"
  sleep 3 # the engine lets go of what it kept for them
  rss2=$(rss)
  kill -TERM "$spid"; wait "$spid" 2>/dev/null || true
  row "attach: engine CPU, $w readers vs none ($n assets/s)" "${readers}% vs ${alone}% of a core" "$(ratio "$readers" "$alone")x"
  row "attach: engine CPU, $w stalled vs none" "${stalled}% vs ${alone}% of a core" "$(ratio "$stalled" "$alone")x"
  row "attach: bytes to each reader" "$((bytes / 1024)) KiB/s" "-"
  row "attach: engine RSS before / with $w stalled / after" "${rss0} / ${rss1} / ${rss2} MiB" "+$((rss1 - rss0)) / +$((rss2 - rss0)) MiB"
}

# Delta updates (issue 21): a BIG_MIB asset whose second version has 1 % of its bytes changed in
# place and 4 MiB inserted, published with `assetwatch index` and a manifest naming the index.
# The engine holds the first version; the timed run updates to the second (fetching only what
# changed with Range requests). Peers in the same run: curl -o && sync of the whole second
# version from the same nginx, and the engine downloading it whole. Bytes fetched come from
# nginx's log. DELTA_SLOW=1 (default) repeats it over a 100 Mbit/s link with 40 ms more round trip:
# tc tbf on a veth pair into a network namespace, plus a delaying forwarder (no netem here).
bench_delta() {
  local d="$WORK/www/delta" size=$((BIG_MIB * 1048576))
  mkdir -p "$d"
  echo "  (writing two ${BIG_MIB} MiB versions, their chunk indexes and manifests...)" >&2
  head -c "$size" /dev/urandom > "$d/v1.bin"
  python3 scripts/delta-bench/versions.py "$d/v1.bin" "$d/v2.bin"
  for v in v1 v2; do
    ln -f "$d/$v.bin" "$d/model.bin"; "$BIN" index "$d/model.bin" >/dev/null
    mv "$d/model.bin.chunks" "$d/$v.chunks"; ln -f "$d/$v.chunks" "$d/model.bin.chunks"
    python3 scripts/delta-bench/manifest.py "$d" "$v" > "$WORK/$v.manifest"
  done
  chmod -R a+rX "$d"
  local published=0
  publish() { # VERSION
    ln -f "$d/$1.bin" "$d/model.bin"; ln -f "$d/$1.chunks" "$d/model.bin.chunks"
    # nginx's ETag is mtime-size: two manifests of one length written in the same second would
    # look unchanged (a 304). Each publication gets a later mtime than the last.
    published=$((published + 1))
    cp "$WORK/$1.manifest" "$d/manifest.new"
    touch -d "@$(($(date +%s) + published))" "$d/manifest.new"; mv "$d/manifest.new" "$d/manifest.json"
  }
  config() { # NAME BASE_URL
    cat > "$WORK/$1.json" <<CONF
{ "appVersion": "bench", "cacheDirectory": "cache-$1", "manifest": "$2/delta/manifest.json",
  "assets": [ { "id": "model", "remote": "$2/delta/model.bin", "format": "binary",
                "maxBytes": "16GiB", "timeout": "60s", "refreshEvery": "manual" } ] }
CONF
  }
  fetched() { awk '$1 == "/delta/model.bin" { s += $3 } END { print s + 0 }' "$WORK/logs/delta.log"; }
  reopen_log() { : > "$WORK/logs/delta.log"; kill -USR1 "$(cat "$WORK/nginx.pid")"; sleep 0.2; }
  local v1sha v2sha
  v1sha=$(sha256sum "$d/v1.bin" | cut -d' ' -f1); v2sha=$(sha256sum "$d/v2.bin" | cut -d' ' -f1)
  verified() { # NAME: the engine's copy is the second version, hash-checked
    "$BIN" status --json --config "$WORK/$1.json" | grep -q "\"sha256\" *: *\"$v2sha\"" || {
      echo "delta bench: $1 does not hold the second version" >&2; exit 1; }
  }
  # The engine holding the first version, as after it downloaded it (a copied cache would not
  # do: its blob's stamp changes, and the engine re-hashes it at start). Done on the direct
  # loopback: the slow link's URLs are the same (127.0.0.1:PORT inside the namespace).
  hold_v1() {
    publish v1; rm -rf "$WORK/cache-dl"
    "$BIN" refresh model --config "$WORK/dl.json" >/dev/null
    publish v2; reopen_log
  }
  # Per run: a delta with no index beside the cached copy (it indexes the copy first), a delta
  # as it happens (the whole download of v1 kept v1's published index), curl -o && sync of the
  # whole second version, the engine's whole download of it, and OpenSSL hashing it.
  run_case() { # LABEL BASE_URL RUNS [prefix to run in the namespace...]
    local label=$1 base=$2 runs=$3; shift 3
    config dl "$base"; config dlfull "$base"
    local D=() F=() C=() B=() I=() H=()
    for _ in $(seq 1 "$runs"); do
      # Without an index beside the cached copy (a cache from before the engine kept the
      # published one): the delta reads and indexes the copy first.
      hold_v1; rm -f "$WORK/cache-dl/objects/$v1sha.chunks"
      read -r t _ < <(measure "$@" "$BIN" refresh model --config "$WORK/dl.json"); I+=("$t"); verified dl
      # As it happens: the whole download of v1 kept v1's published index beside the blob.
      hold_v1
      [ -f "$WORK/cache-dl/objects/$v1sha.chunks" ] || {
        echo "delta bench: the whole download kept no chunk index" >&2; exit 1; }
      read -r t _ < <(measure "$@" "$BIN" refresh model --config "$WORK/dl.json"); D+=("$t"); B+=("$(fetched)")
      verified dl
      rm -f "$WORK/full.out"
      read -r t _ < <(measure "$@" sh -c "curl -sS -o '$WORK/full.out' '$base/delta/model.bin' && sync '$WORK/full.out'"); C+=("$t")
      rm -f "$WORK/full.out"; rm -rf "$WORK/cache-dlfull"
      read -r t _ < <(measure "$@" "$BIN" refresh model --config "$WORK/dlfull.json"); F+=("$t")
      verified dlfull
      # The floor of any update that checks the whole file's SHA-256 before its commit (the
      # issue asks for it): OpenSSL hashing the new version alone, from the page cache.
      read -r t _ < <(measure openssl dgst -sha256 "$d/v2.bin"); H+=("$t")
      echo "    run ${#D[@]}: no index kept ${I[-1]}s, delta ${D[-1]}s, curl -o && sync ${C[-1]}s, whole ${F[-1]}s, SHA-256 ${H[-1]}s" >&2
    done
    local dm fm cm bm im hm v2size
    dm=$(median "${D[@]}"); fm=$(median "${F[@]}"); cm=$(median "${C[@]}"); bm=$(median "${B[@]}"); im=$(median "${I[@]}")
    hm=$(median "${H[@]}")
    v2size=$(stat -c %s "$d/v2.bin")
    row "delta$label: bytes fetched (1 % changed + 4 MiB)" "$((bm / 1048576)) MiB of $((v2size / 1048576)) MiB" "$(awk -v a="$bm" -v b="$v2size" 'BEGIN{printf "%.2f%%", 100*a/b}')"
    row "delta$label: update vs curl -o && sync (whole)" "${dm}s vs ${cm}s" "$(ratio "$dm" "$cm")x"
    row "delta$label: update vs assetwatch whole download" "${dm}s vs ${fm}s" "$(ratio "$dm" "$fm")x"
    row "delta$label: with no index kept (indexes the copy)" "${im}s vs ${cm}s" "$(ratio "$im" "$cm")x"
    row "delta$label: floor: SHA-256 alone vs curl -o && sync" "${hm}s vs ${cm}s" "$(ratio "$hm" "$cm")x"
  }
  run_case "" "$BASE" "$RUNS"
  if [ "${DELTA_SLOW:-1}" = 1 ] && [ "$(id -u)" = 0 ]; then
    # 10.77.0.1 (this namespace) <-veth, tbf 100 Mbit/s both ways-> 10.77.0.2 (awslow).
    ip netns add awslow
    ip link add awh type veth peer name awn
    ip link set awn netns awslow
    ip addr add 10.77.0.1/24 dev awh; ip link set awh up
    ip netns exec awslow sh -c 'ip addr add 10.77.0.2/24 dev awn && ip link set awn up && ip link set lo up'
    tc qdisc add dev awh root tbf rate 100mbit burst 256kb latency 100ms
    ip netns exec awslow tc qdisc add dev awn root tbf rate 100mbit burst 256kb latency 100ms
    # nginx <- delaying forwarder (20 ms each way) on 10.77.0.1 <- plain forwarder on the
    # namespace's loopback (so the engine's loopback-only http policy holds).
    python3 scripts/delta-bench/delay_proxy.py 10.77.0.1 "$PORT" 127.0.0.1 "$PORT" 0.02 > "$WORK/proxy1.out" &
    DELTA_PIDS="$!"
    ip netns exec awslow python3 scripts/delta-bench/delay_proxy.py 127.0.0.1 "$PORT" 10.77.0.1 "$PORT" 0 > "$WORK/proxy2.out" &
    DELTA_PIDS="$DELTA_PIDS $!"
    for _ in $(seq 1 100); do grep -q ready "$WORK/proxy1.out" "$WORK/proxy2.out" 2>/dev/null && [ "$(cat "$WORK/proxy1.out" "$WORK/proxy2.out" | grep -c ready)" = 2 ] && break; sleep 0.1; done
    run_case " (100 Mbit/s, +40 ms)" "http://127.0.0.1:$PORT" "${DELTA_SLOW_RUNS:-1}" ip netns exec awslow
    kill $DELTA_PIDS 2>/dev/null || true; DELTA_PIDS=""
    ip netns del awslow; ip link del awh 2>/dev/null || true
  elif [ "${DELTA_SLOW:-1}" = 1 ]; then
    echo "  (delta over a slow link skipped: network namespaces need root)" >&2
  fi
  rm -rf "$d" "$WORK"/cache-dl* "$WORK/cache-v1"
}

if has tuf; then bench_tuf; fi
if has attach; then bench_attach; fi
if has fleet; then bench_fleet; fi
if has delta; then bench_delta; fi
