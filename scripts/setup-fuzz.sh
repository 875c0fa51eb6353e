#!/usr/bin/env bash
# Finds or installs schemathesis (the OpenAPI-driven API fuzzer) and prints the path of its `st` executable on stdout.
# Order: $SCHEMATHESIS_CLI, the cached venv in .tools/fuzz-venv, then `pip install schemathesis==<pinned>` into that
# venv. Progress and failures go to stderr so callers can capture the path alone; a failure exits non-zero (the fuzz
# test then fails loudly instead of skipping).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"
venv="$tools/fuzz-venv"
version="${SCHEMATHESIS_VERSION:-4.32.5}"
say() { echo "[setup-fuzz] $*" >&2; }
works() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -q "$version"; }
use() { say "using $1 ($2)"; echo "$1"; exit 0; }

if [ -n "${SCHEMATHESIS_CLI:-}" ]; then
  [ -x "$SCHEMATHESIS_CLI" ] && "$SCHEMATHESIS_CLI" --version >/dev/null 2>&1 && use "$SCHEMATHESIS_CLI" "SCHEMATHESIS_CLI"
  say "SCHEMATHESIS_CLI=$SCHEMATHESIS_CLI is not a working schemathesis; trying the other ways"
fi

works "$venv/bin/st" && use "$venv/bin/st" "cached in .tools/fuzz-venv"

if ! command -v python3 >/dev/null 2>&1; then
  say "python3 not found: schemathesis needs Python >= 3.9"
  exit 1
fi
mkdir -p "$tools"
say "installing schemathesis==$version from PyPI into .tools/fuzz-venv"
# --clear: a cached venv that no longer works (e.g. the checkout moved, so its scripts' interpreter paths are stale)
# is rebuilt rather than reused.
if python3 -m venv --clear "$venv" >&2 && "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version" >&2; then
  works "$venv/bin/st" && use "$venv/bin/st" "pip install schemathesis==$version"
  say "schemathesis installed but $venv/bin/st does not report version $version"
else
  say "'pip install schemathesis==$version' failed (PyPI unreachable? python3-venv missing?)"
fi
exit 1
