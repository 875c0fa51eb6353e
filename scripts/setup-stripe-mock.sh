#!/usr/bin/env bash
# Finds or builds stripe-mock (Stripe's official mock API server, used by the Stripe connector's tests) and prints its
# path on stdout. Order: $STRIPE_MOCK_BIN, the cached copy in .tools/bin, then `go install …@$version` into .tools/bin.
# The version is pinned: its fixtures and OpenAPI specification are what the tests assert against.
# Progress and failures go to stderr so callers can capture the path alone.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"
cached="$tools/bin/stripe-mock"
version="v0.203.0"
say() { echo "[setup-stripe-mock] $*" >&2; }
works() { [ -x "$1" ] && "$1" -version >/dev/null 2>&1; }
use() { say "using $1 ($2)"; echo "$1"; exit 0; }

if [ -n "${STRIPE_MOCK_BIN:-}" ]; then
  works "$STRIPE_MOCK_BIN" && use "$STRIPE_MOCK_BIN" "STRIPE_MOCK_BIN"
  say "STRIPE_MOCK_BIN=$STRIPE_MOCK_BIN is not an executable stripe-mock; trying the other ways"
fi

works "$cached" && use "$cached" "cached in .tools/"

if ! command -v go >/dev/null 2>&1; then
  say "go not found: install Go (1.22 or later) or set STRIPE_MOCK_BIN to a stripe-mock $version binary"
  exit 1
fi
mkdir -p "$tools/bin"
say "building github.com/stripe/stripe-mock@$version with go install"
if GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0 GOBIN="$tools/bin" go install -trimpath -ldflags "-s -w" \
    "github.com/stripe/stripe-mock@$version" >&2; then
  works "$cached" && use "$cached" "go install @$version"
  say "go install finished but $cached does not run"
else
  say "'go install github.com/stripe/stripe-mock@$version' failed (Go module proxy unreachable?)"
fi
say "set STRIPE_MOCK_BIN to a stripe-mock $version binary"
exit 1
