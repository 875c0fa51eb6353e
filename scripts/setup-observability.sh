#!/usr/bin/env bash
# Finds or builds the trace store and the Prometheus-format scraper the production drill exports to, and prints the
# path of the one asked for on stdout: `setup-observability.sh jaeger` or `setup-observability.sh victoria-metrics`.
# Order: $JAEGER_BIN / $VICTORIA_METRICS_BIN, the copy cached in .tools/bin, then a build from the Go module proxy.
# - Jaeger v2 (`cmd/jaeger`, tagged v1.x in its Go module: OTLP receiver, in-memory trace store, query API on
#   :16686, the same query API as the compose file's all-in-one image). Its go.mod carries replace directives, which `go install pkg@version` refuses, so it is built
#   from a throw-away module in .tools/jaeger-build that requires it as a tool (the replaces do not apply there).
#   A cold build compiles the OpenTelemetry collector: 10-20 minutes on two cores.
# - VictoriaMetrics single-node: scrapes Prometheus-format targets (-promscrape.config) and answers PromQL on
#   /api/v1/query; a cold build takes about two minutes.
# Progress and failures go to stderr so callers can capture the path alone; a failure exits non-zero.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"
jaeger_version="v1.76.0"
vm_version="v1.151.0"
what="${1:-}"
say() { echo "[setup-observability] $*" >&2; }
use() { say "using $1 ($2)"; echo "$1"; exit 0; }

command_works() {
  case "$what" in
    jaeger) [ -x "$1" ] && "$1" --help >/dev/null 2>&1 ;;
    victoria-metrics) [ -x "$1" ] && "$1" -version >/dev/null 2>&1 ;;
  esac
}

case "$what" in
  jaeger) given="${JAEGER_BIN:-}" ;;
  victoria-metrics) given="${VICTORIA_METRICS_BIN:-}" ;;
  *)
    say "usage: setup-observability.sh jaeger|victoria-metrics"
    exit 2
    ;;
esac
cached="$tools/bin/$what"
if [ -n "$given" ]; then
  command_works "$given" && use "$given" "from the environment"
  say "$given is not a working $what; trying the other ways"
fi
command_works "$cached" && use "$cached" "cached in .tools/bin"

command -v go >/dev/null 2>&1 || { say "go not found: install Go 1.25 or later, or set JAEGER_BIN / VICTORIA_METRICS_BIN"; exit 1; }
mkdir -p "$tools/bin"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0
started=$(date +%s)
if [ "$what" = victoria-metrics ]; then
  say "building github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics@$vm_version with go install (about two minutes)"
  GOBIN="$tools/bin" go install -trimpath -ldflags "-s -w" "github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics@$vm_version" >&2 ||
    { say "go install of victoria-metrics@$vm_version failed (Go module proxy unreachable?)"; exit 1; }
else
  build="$tools/jaeger-build"
  mkdir -p "$build"
  say "building github.com/jaegertracing/jaeger/cmd/jaeger@$jaeger_version (a cold build takes 10-20 minutes on two cores)"
  (
    cd "$build" &&
      { [ -f go.mod ] || go mod init jaeger-build >&2; } &&
      go get -tool "github.com/jaegertracing/jaeger/cmd/jaeger@$jaeger_version" >&2 &&
      go build -trimpath -ldflags "-s -w" -o "$cached" github.com/jaegertracing/jaeger/cmd/jaeger >&2
  ) || { say "building jaeger@$jaeger_version failed (Go module proxy unreachable?)"; exit 1; }
fi
say "built in $(($(date +%s) - started)) s"
command_works "$cached" && use "$cached" "built with Go"
say "the build finished but $cached does not run"
exit 1
