#!/usr/bin/env bash
# Builds the Debian package of assetwatch: a self-contained binary (Swift's runtime linked in),
# its man page, shell completions, the systemd unit and the docs, for a server without Swift.
#
#   bash scripts/package.sh            # -> .build/package/assetwatch_<version>_<arch>.deb
#
# The version is read from Sources/AssetModel/AssetWatchVersion.swift (its one place). Needs
# Swift, dpkg-deb and dpkg-shlibdeps (dpkg-dev), strip and readelf (binutils); systemd-analyze,
# when present, verifies the unit. Environment:
#   PACKAGE_OUT          where the .deb and the staging tree go (default .build/package)
#   PACKAGE_SWIFT_FLAGS  extra `swift build` flags, word-split (e.g. "--scratch-path .build-osize
#                        -Xswiftc -Osize" to compare a size-optimized build)
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

fail() { echo "package.sh: $*" >&2; exit 1; }
step() { echo "==> $* ($((SECONDS - started)) s)"; }

for tool in swift dpkg-deb dpkg-shlibdeps strip readelf gzip; do
    command -v "$tool" >/dev/null 2>&1 ||
        fail "needs $tool (apt-get install -y dpkg-dev binutils; Swift 6.3 for swift)"
done

version_file=Sources/AssetModel/AssetWatchVersion.swift
version=$(sed -n 's/^ *package static let current = "\([^"]*\)".*/\1/p' "$version_file")
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
    fail "no MAJOR.MINOR.PATCH version in $version_file (read: '$version')"
arch=$(dpkg --print-architecture)
out=${PACKAGE_OUT:-.build/package}
name=assetwatch_${version}_${arch}
deb=$out/$name.deb

# --- build -------------------------------------------------------------------------------
# Release, Swift's runtime and Foundation linked in statically, linked by lld
# (scripts/release-flags.sh says why). SwiftPM already passes --gc-sections to the linker for
# release builds (dead stripping; --disable-dead-strip turns it off), so unreferenced code is
# dropped before strip.
# shellcheck source=scripts/release-flags.sh
source scripts/release-flags.sh
read -r -a extra <<< "${PACKAGE_SWIFT_FLAGS:-}"
flags=("${RELEASE_FLAGS[@]}" "${extra[@]}")
step "swift build ${flags[*]} --product assetwatch"
swift build "${flags[@]}" --product assetwatch
# swift-argument-parser's own man page generator (what its generate-manual plugin runs), built
# from the package's dependency, run on the very binary this package ships. The plugin itself
# (`swift package plugin generate-manual`) works offline here too and writes the same page, but
# it first builds every product without --static-swift-stdlib: a second full release build.
step "swift build ${flags[*]} --product generate-manual"
swift build "${flags[@]}" --product generate-manual
bin=$(swift build "${flags[@]}" --show-bin-path)

# --- stage -------------------------------------------------------------------------------
stage=$out/$name
rm -rf "$stage" "$deb"
mkdir -p "$stage/DEBIAN"
step "staging $stage"

install -D -m 0755 "$bin/assetwatch" "$stage/usr/bin/assetwatch"
strip --strip-all "$stage/usr/bin/assetwatch"
unstripped=$(stat -c %s "$bin/assetwatch")
stripped=$(stat -c %s "$stage/usr/bin/assetwatch")
linker=$(release_linker "$stage/usr/bin/assetwatch")
[ "$linker" = LLD ] || fail "the binary was linked by $linker, not lld as RELEASE_FLAGS ask \
(scripts/release-flags.sh); if the build folder was made with other flags, remove its release/ \
(.build/release unless PACKAGE_SWIFT_FLAGS moves it) and run again"
reported=$("$stage/usr/bin/assetwatch" --version)
[ "$reported" = "$version" ] || fail "assetwatch --version says '$reported', the source says '$version'"

# The man page: generated from the command definitions (assetwatch --experimental-dump-help),
# dated by the last commit so the same tree gives the same page.
man_tmp=$(mktemp -d)
trap 'rm -rf "$man_tmp"' EXIT
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
"$bin/generate-manual" "$stage/usr/bin/assetwatch" --output-directory "$man_tmp" \
    --date "$date" --section 1
[ -s "$man_tmp/assetwatch.1" ] || fail "generate-manual wrote no assetwatch.1"
grep -q '^\.Nm assetwatch' "$man_tmp/assetwatch.1" || fail "assetwatch.1 does not name the command"
# The generator copies the commands' discussions verbatim, blank lines included, which mdoc
# warns about ("Empty input line"): a blank line becomes the paragraph macro .Pp.
mkdir -p "$stage/usr/share/man/man1"
sed 's/^$/.Pp/' "$man_tmp/assetwatch.1" | gzip -9n > "$stage/usr/share/man/man1/assetwatch.1.gz"
if command -v man >/dev/null 2>&1; then
    man_warnings=$(MANWIDTH=80 man -P cat -l "$stage/usr/share/man/man1/assetwatch.1.gz" 2>&1 >/dev/null)
    [ -z "$man_warnings" ] || fail "the man page does not render cleanly: $man_warnings"
fi

# Completions, where each shell looks for a package's.
completion() { # shell path
    install -d "$stage/$(dirname "$2")"
    "$stage/usr/bin/assetwatch" --generate-completion-script "$1" > "$stage/$2"
    [ -s "$stage/$2" ] || fail "no $1 completion script"
    chmod 0644 "$stage/$2"
}
completion bash usr/share/bash-completion/completions/assetwatch
completion zsh usr/share/zsh/vendor-completions/_assetwatch
completion fish usr/share/fish/vendor_completions.d/assetwatch.fish

install -D -m 0644 deploy/systemd/assetwatch.service "$stage/lib/systemd/system/assetwatch.service"

# Docs: the README, the guides it links to (docs/, so its relative links resolve as installed)
# and the example config with the bundled files it names (relative paths resolve from the
# config's folder, so `assetwatch check --config` works on it as installed).
doc=$stage/usr/share/doc/assetwatch
install -D -m 0644 README.md "$doc/README.md"
for file in docs/*.md; do
    install -D -m 0644 "$file" "$doc/$file"
done
install -D -m 0644 assets.example.json "$doc/assets.example.json"
for file in examples/bundled/* examples/live/*; do
    install -D -m 0644 "$file" "$doc/$file"
done

# --- metadata ----------------------------------------------------------------------------
# Depends: what the binary links (dpkg-shlibdeps reads its NEEDED entries and the installed
# libraries' shlibs/symbols files), never guessed.
shlib_tmp=$(mktemp -d)
trap 'rm -rf "$man_tmp" "$shlib_tmp"' EXIT
mkdir -p "$shlib_tmp/debian"
printf 'Source: assetwatch\n\nPackage: assetwatch\nArchitecture: any\n' > "$shlib_tmp/debian/control"
binary=$(realpath "$stage/usr/bin/assetwatch")
depends=$(cd "$shlib_tmp" && dpkg-shlibdeps -O "-e$binary" 2>"$shlib_tmp/warnings" |
    sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { cat "$shlib_tmp/warnings" >&2; fail "dpkg-shlibdeps found no Depends"; }
# The user the unit runs as is made by postinst with useradd (passwd, essential).
installed_size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)

cat > "$stage/DEBIAN/control" <<EOF
Package: assetwatch
Version: $version
Architecture: $arch
Maintainer: AssetWatch maintainers <assetwatch@localhost>
Installed-Size: $installed_size
Depends: $depends
Section: admin
Priority: optional
Description: keeps remotely refreshed app assets fresh, with a terminal dashboard
 AssetWatch's engine refreshes an app's assets (JSON, scripts, images, models)
 from remote URLs with conditional HTTP, keeps the last good copy on disk and
 serves it through crashes and offline starts. The assetwatch command runs the
 engine headless (assetwatch serve, a systemd unit is included), drives it
 (status, refresh, verify, rollback) and shows it in an ncurses dashboard.
 The binary is self-contained: Swift's runtime is linked in.
EOF

cat > "$stage/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    # The service's user: a system account without login or home of its own (the unit's
    # StateDirectory= makes /var/lib/assetwatch, owned by it).
    if ! getent passwd assetwatch >/dev/null; then
        useradd --system --user-group --home-dir /var/lib/assetwatch --no-create-home \
            --shell /usr/sbin/nologin --comment "AssetWatch engine" assetwatch
    fi
    if [ -d /run/systemd/system ]; then
        systemctl daemon-reload >/dev/null || true
    fi
fi
exit 0
EOF
cat > "$stage/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload >/dev/null || true
fi
if [ "$1" = purge ]; then
    # The cache (last good copies, instance id, probation ledger) goes with the package.
    rm -rf /var/lib/assetwatch /var/lib/private/assetwatch
fi
exit 0
EOF
cat > "$stage/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
    systemctl stop assetwatch.service >/dev/null 2>&1 || true
fi
exit 0
EOF
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/postrm" "$stage/DEBIAN/prerm"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
    xargs -0 md5sum > DEBIAN/md5sums)

# --- checks ------------------------------------------------------------------------------
if command -v systemd-analyze >/dev/null 2>&1; then
    # The unit against the package's own tree (the binary it names must exist and be
    # executable) plus the host's units (the targets it orders after). Any output is a
    # finding: systemd-analyze only warns about unknown keys.
    verify_root=$(mktemp -d)
    trap 'rm -rf "$man_tmp" "$shlib_tmp" "$verify_root"' EXIT
    cp -a "$stage/." "$verify_root/"
    rm -rf "$verify_root/DEBIAN"
    cp -an /lib/systemd/system/. "$verify_root/lib/systemd/system/" 2>/dev/null || true
    findings=$(systemd-analyze verify --man=no --root="$verify_root" \
        /lib/systemd/system/assetwatch.service 2>&1) ||
        fail "systemd-analyze verify failed: $findings"
    [ -z "$findings" ] || fail "systemd-analyze verify: $findings"
    exposure=$(systemd-analyze security --offline=yes --root="$verify_root" \
        /lib/systemd/system/assetwatch.service 2>/dev/null | sed -n 's/.*Overall exposure level[^:]*: //p')
    echo "systemd-analyze verify: clean; security exposure: ${exposure:-unknown}"
else
    echo "systemd-analyze not found: the unit was not verified"
fi

# --- build the .deb ----------------------------------------------------------------------
step "dpkg-deb --build"
dpkg-deb --root-owner-group --build "$stage" "$deb" >/dev/null
dpkg-deb --info "$deb" >/dev/null

mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
echo "version:         $version"
echo "Depends:         $depends"
echo "binary:          $(mib "$unstripped") built, $(mib "$stripped") stripped"
echo "package:         $(mib "$(stat -c %s "$deb")") ($deb)"
echo "took:            $((SECONDS - started)) s"
echo "$deb"
