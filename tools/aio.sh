#!/usr/bin/env bash
# Start the all-in-one control plane (both APIs, conductor, computes) in
# one process over SQLite and an in-memory message bus.
#
#   tools/aio.sh [stacklite-aio arguments...]
#
# The state directory defaults to ./stacklite-state; set STACKLITE_STATE_DIR
# to move it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/tools/install-packages.sh" --aio
"$ROOT/tools/setup-venv.sh"
exec "$ROOT/.venv/bin/stacklite-aio" \
    --state-dir "${STACKLITE_STATE_DIR:-./stacklite-state}" "$@"
