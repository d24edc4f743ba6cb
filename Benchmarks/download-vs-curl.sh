#!/usr/bin/env bash
# Benchmark: a large asset fetched by `assetwatch refresh` (stream to disk, SHA-256 while
# streaming, fsync, crash-safe commit) against curl on the same nginx, in the same run.
# Prints medians and ratios; never asserts timings.
#
#   Benchmarks/download-vs-curl.sh [SIZE_MIB=256] [RUNS=5] [CONFIG=release|debug]
#
# Needs nginx-light, curl and GNU time (apt-get install -y nginx-light curl time).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MIB=${1:-256}
RUNS=${2:-5}
CONFIGURATION=${3:-release}

for tool in nginx curl sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || { echo "missing: $tool" >&2; exit 1; }
done
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "missing GNU time: apt-get install -y time" >&2; exit 1; }

swift build -c "$CONFIGURATION" --product assetwatch >/dev/null 2>&1
BIN="$(swift build -c "$CONFIGURATION" --show-bin-path 2>/dev/null)/assetwatch"

WORK=$(mktemp -d)
chmod 755 "$WORK"
trap 'kill $(cat "$WORK/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/www" "$WORK/logs" "$WORK/tmp"
head -c $((SIZE_MIB * 1048576)) /dev/urandom > "$WORK/www/model.bin"
chmod -R a+rX "$WORK/www"
SHA=$(sha256sum "$WORK/www/model.bin" | cut -d' ' -f1)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$WORK/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $WORK/tmp;
  sendfile on;
  server { listen 127.0.0.1:$PORT; root $WORK/www; }
}
CONF
nginx -c "$WORK/nginx.conf" -p "$WORK"
for _ in $(seq 1 100); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/model.bin" -r 0-0 && break; sleep 0.05; done

cat > "$WORK/assets.json" <<CONF
{ "appVersion": "bench", "cacheDirectory": "cache",
  "assets": [ { "id": "model", "remote": "http://127.0.0.1:$PORT/model.bin", "format": "binary",
                "size": $((SIZE_MIB * 1048576)), "sha256": "$SHA", "maxBytes": "8GiB", "timeout": "60s" } ] }
CONF

# One measurement: prints "seconds maxRSS_KiB".
measure() { "$TIME" -f "%e %M" -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/err.txt" || { cat "$WORK/err.txt" >&2; exit 1; }; cat "$WORK/time.txt"; }

declare -a AW CURL CURLSHA AWRSS CURLRSS
for i in $(seq 1 "$RUNS"); do
  rm -rf "$WORK/cache" "$WORK/out.bin"
  read -r t m < <(measure "$BIN" refresh model --config "$WORK/assets.json")
  AW+=("$t"); AWRSS+=("$m")
  read -r t m < <(measure curl -sS -o "$WORK/out.bin" "http://127.0.0.1:$PORT/model.bin")
  CURL+=("$t"); CURLRSS+=("$m")
  rm -f "$WORK/out.bin"
  read -r t _ < <(measure sh -c "curl -sS -o '$WORK/out.bin' 'http://127.0.0.1:$PORT/model.bin' && sha256sum '$WORK/out.bin' >/dev/null && sync '$WORK/out.bin'")
  CURLSHA+=("$t")
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
aw=$(median "${AW[@]}"); cu=$(median "${CURL[@]}"); cs=$(median "${CURLSHA[@]}")
awm=$(median "${AWRSS[@]}"); cum=$(median "${CURLRSS[@]}")
echo "asset: ${SIZE_MIB} MiB from nginx on loopback, ${RUNS} runs each, assetwatch built ${CONFIGURATION}"
printf '%-44s %8s s  %8s MiB/s  max RSS %6d KiB\n' "assetwatch refresh (hash+fsync+commit)" "$aw" \
  "$(awk -v s="$SIZE_MIB" -v t="$aw" 'BEGIN{printf "%.0f", s/t}')" "$awm"
printf '%-44s %8s s  %8s MiB/s  max RSS %6d KiB\n' "curl -o" "$cu" \
  "$(awk -v s="$SIZE_MIB" -v t="$cu" 'BEGIN{printf "%.0f", s/t}')" "$cum"
printf '%-44s %8s s\n' "curl -o && sha256sum && sync" "$cs"
echo "ratio assetwatch / curl:                 $(awk -v a="$aw" -v b="$cu" 'BEGIN{printf "%.2f", a/b}')"
echo "ratio assetwatch / (curl+sha256sum+sync): $(awk -v a="$aw" -v b="$cs" 'BEGIN{printf "%.2f", a/b}')"
echo "memory: assetwatch peaks at $((awm / 1024)) MiB for a ${SIZE_MIB} MiB asset (streamed to disk; run a larger SIZE_MIB to see it stay flat)"
