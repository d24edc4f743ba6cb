# Sourced by the benchmark scripts (bench.sh, link-bench.sh): what they share.

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
    echo "building assetwatch (release)..." >&2
    swift build -c release --product assetwatch >/dev/null
    BIN="$(swift build -c release --show-bin-path)/assetwatch"
  fi
}
