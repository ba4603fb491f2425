#!/usr/bin/env bash
# Load run of `make bench`: builds the real gateway binary into a temp dir and drives it with
# e2e/load (zero-latency fake upstream, everything on 127.0.0.1). Extra arguments go to the load
# program, for example: scripts/load.sh -workers 8 -duration 3s
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/capgate-load-bin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$GO" build -o "$tmp/gateway" ./cmd/gateway
"$GO" run ./e2e/load -gateway "$tmp/gateway" "$@"
