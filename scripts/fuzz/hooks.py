"""Schemathesis hooks for the platform's fuzz runs (loaded through SCHEMATHESIS_HOOKS by scripts/fuzz/schemathesis.ts).

`before_call` runs on every request of every phase, just before it is sent, so it is where two safety rules live:

- The fuzzer reuses identifiers it saw in responses, so it would sooner or later replace or delete the OAuth client whose
  credentials the run (and, inside `npm test`, every later test file) depends on. A request addressing a client listed
  in FUZZ_PROTECTED_CLIENTS (comma-separated ids) is sent to a client id that does not exist instead.
- Webhook configs and generic payment connectors make the worker call the URL in their `endpoint` field, ledger
  exporters the `url` of their config. The machine may only talk to itself, so every `endpoint` and `url` in a body is
  replaced by a closed port on 127.0.0.1 (FUZZ_SINK_URL, or FUZZ_PG_SINK_URL for a postgres URL): the platform still
  stores, validates and calls it, and the call is refused locally. A Stripe connector installed without an `endpoint`
  would call Stripe's own API, so its install bodies get the same local endpoint.
"""
import os

import schemathesis

PROTECTED = {c for c in os.environ.get("FUZZ_PROTECTED_CLIENTS", "").split(",") if c}
SINK = os.environ.get("FUZZ_SINK_URL", "http://127.0.0.1:9/fuzz")


PG_SINK = os.environ.get("FUZZ_PG_SINK_URL", "postgres://fuzz:fuzz@127.0.0.1:9/fuzz")


def _neutralise_endpoints(value):
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "endpoint" and isinstance(inner, str):
                value[key] = SINK
            elif key == "url" and isinstance(inner, str):
                # A ledger exporter's target (http or postgres driver), which a pipeline makes the worker call.
                value[key] = PG_SINK if inner.startswith("postgres") else SINK
            else:
                _neutralise_endpoints(inner)
    elif isinstance(value, list):
        for inner in value:
            _neutralise_endpoints(inner)


@schemathesis.hook
def before_call(context, case, kwargs):
    params = case.path_parameters
    if params and params.get("clientId") in PROTECTED:
        params["clientId"] = "fuzz-protected-client"
    target = f"{case.path} {(params or {}).get('connector', '')}".lower()
    if "stripe" in target and isinstance(case.body, dict):
        case.body["endpoint"] = SINK
    _neutralise_endpoints(case.body)
