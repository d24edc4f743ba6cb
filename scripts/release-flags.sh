# Sourced by scripts/package.sh and scripts/bench-common.sh: how the shipped binary is built, in
# one place, so the benchmarks measure what the Debian package installs.
#
# - Release, with Swift's runtime and Foundation linked in statically (--static-swift-stdlib):
#   only libc, libstdc++, libgcc, zlib and ncurses are needed on the server.
# - Linked by lld, the toolchain's own linker, not gold (the default here): the same code
#   starts sooner and runs faster. Measured on 1,000 assets against nginx (2 cores, two
#   scripts/bench.sh runs, which swap the two binaries' order every run): revalidation in
#   0.86-0.92x the time over HTTP/1.1 and 0.91-0.95x over h2, an h2 first sync 0.95-0.96x
#   (BENCHMARKS.md, "Linked by lld").
#   `-z pack-relative-relocs` on top was 2 % faster again, and is not used: it needs glibc 2.36,
#   where the binary runs today on 2.35 (Ubuntu 22.04).
RELEASE_FLAGS=(-c release --static-swift-stdlib -Xswiftc -use-ld=lld)

# release_linker BINARY: prints the linker that wrote BINARY ("LLD", "gold", or "unknown"), from
# the notes each linker leaves (`.comment` for lld, `.note.gnu.gold-version` for gold; strip
# keeps both). SwiftPM has been seen to keep a build folder's link command when only -X flags
# changed (a build without -use-ld=lld, after one with it, still came out linked by lld), so
# package.sh checks the linker of what it ships instead of trusting the flags.
release_linker() {
    # Read whole, not piped into `grep -q`: under `set -o pipefail` a grep that stops at its
    # match can leave readelf to die of SIGPIPE, and the pipe would then count as no match.
    if [[ "$(readelf -p .comment "$1" 2>/dev/null || true)" == *"Linker: LLD"* ]]; then
        echo LLD
    elif [[ "$(readelf -n "$1" 2>/dev/null || true)" == *NT_GNU_GOLD_VERSION* ]]; then
        echo gold
    else
        echo unknown
    fi
}
