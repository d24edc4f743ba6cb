#!/usr/bin/env bash
# Runs the public TUF client conformance suite (github.com/theupdateframework/tuf-conformance)
# against `assetwatch tuf-client`. A manual step: CI cannot fetch the suite.
#
# Usage: scripts/tuf-conformance.sh SUITE_DIR [pytest arguments...]
#   SUITE_DIR  a checkout of tuf-conformance (its pyproject.toml at the top)
#
# Needs python3 (3.11+) with venv and PyPI, and the built binary (`swift build`; ASSETWATCH_BIN
# overrides .build/debug/assetwatch). The suite's Python dependencies go into
# .build/tuf-conformance-venv. Tests that set a fake time need `faketime` on PATH (libfaketime);
# without it they fail. Prints pytest's summary; the JSON report is written to
# .build/tuf-conformance-report.json.
set -euo pipefail
cd "$(dirname "$0")/.."

suite=${1:?usage: scripts/tuf-conformance.sh SUITE_DIR [pytest arguments...]}
shift
suite=$(cd "$suite" && pwd)
binary=${ASSETWATCH_BIN:-$PWD/.build/debug/assetwatch}
if [ ! -x "$binary" ]; then
    echo "no binary at $binary: run swift build first" >&2
    exit 1
fi

venv=${TUF_CONFORMANCE_VENV:-.build/tuf-conformance-venv}
if [ ! -x "$venv/bin/pytest" ]; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$suite"
fi
command -v faketime >/dev/null || echo "note: faketime is not installed; the fake-time tests will fail" >&2

# The suite runs ENTRYPOINT with the protocol's arguments; a wrapper adds the subcommand.
entry=$PWD/.build/tuf-conformance-client
cat >"$entry" <<WRAPPER
#!/bin/sh
exec "$binary" tuf-client "\$@"
WRAPPER
chmod +x "$entry"

"$venv/bin/pytest" -q -p no:cacheprovider "$suite/tuf_conformance" \
    --entrypoint "$entry" \
    --json-report --json-report-file=.build/tuf-conformance-report.json "$@"
