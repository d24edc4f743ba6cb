#!/usr/bin/env bash
# Creates .build/tuf-venv, a Python virtual environment with the reference TUF implementation
# (python-tuf) the TUFTests build their fixture repositories with. Idempotent: when the venv
# already has the pinned versions it returns at once. Needs python3 (with venv) and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

TUF_VERSION=7.0.1
SSLIB_VERSION=1.6.0
CRYPTOGRAPHY_VERSION=48.0.0
venv=.build/tuf-venv
stamp="$venv/.pinned-tuf-$TUF_VERSION-sslib-$SSLIB_VERSION-cryptography-$CRYPTOGRAPHY_VERSION"

if [ -f "$stamp" ] && [ -x "$venv/bin/python" ]; then
    exit 0
fi
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq python3-venv >/dev/null
    else
        echo "scripts/tuf-venv.sh needs python3 with the venv module (apt-get install python3-venv)" >&2
        exit 1
    fi
fi
mkdir -p .build
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "tuf==$TUF_VERSION" "securesystemslib==$SSLIB_VERSION" "cryptography==$CRYPTOGRAPHY_VERSION"
touch "$stamp"
echo "python-tuf $TUF_VERSION ready in $venv"
