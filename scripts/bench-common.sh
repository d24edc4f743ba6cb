# Sourced by the benchmark scripts (bench.sh, link-bench.sh): what they share.

# shellcheck source=scripts/release-flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/release-flags.sh"

# bench_install SCRIPT PACKAGE...: installs the missing Debian packages when run as root, else
# says what to install and exits 1.
bench_install() {
  local script=$1
  shift
  [ $# -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "$script needs: apt-get install -y $*" >&2
    exit 1
  fi
}

# bench_binary: sets BIN to the release binary to measure: $ASSETWATCH_BIN (another build's, to
# compare before and after a change), or this tree's, built now.
bench_binary() {
  if [ -n "${ASSETWATCH_BIN:-}" ]; then
    BIN="$ASSETWATCH_BIN"
  else
    # Built as the Debian package builds it (scripts/release-flags.sh): Swift's runtime and
    # Foundation linked in statically, by lld. The dynamically linked build starts 9 ms later
    # (resolving symbols) and revalidates 1,000 assets 14 % slower (BENCHMARKS, "Parked fsync
    # helpers and a window of refreshes"); the one linked by gold takes 1.05-1.16x the time
    # ("Linked by lld").
    echo "building assetwatch (release, static Swift runtime, lld, as packaged)..." >&2
    swift build "${RELEASE_FLAGS[@]}" --product assetwatch >/dev/null
    BIN="$(swift build "${RELEASE_FLAGS[@]}" --show-bin-path)/assetwatch"
  fi
}

# floor_binary: sets FLOOR_BIN to the revalidation rows' floor, AsyncHTTPClient alone
# (Sources/AHCFloor), built from this tree as assetwatch is; $FLOOR_BIN if set.
floor_binary() {
  [ -n "${FLOOR_BIN:-}" ] && return 0
  swift build "${RELEASE_FLAGS[@]}" --product AHCFloor >/dev/null
  FLOOR_BIN="$(swift build "${RELEASE_FLAGS[@]}" --show-bin-path)/AHCFloor"
}
