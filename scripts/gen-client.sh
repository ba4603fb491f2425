#!/usr/bin/env bash
# scripts/gen-client.sh [DIR] — regenerates the Go client of the API into DIR (default e2e/client):
#   DIR/openapi.json   the document as GET /v1/openapi.json serves it (servers: "/")
#   DIR/client.gen.go  oapi-codegen (pinned in go.mod as a go tool) types + client, package client
# `make generate` runs it; scripts/test.sh runs it into a temp dir and fails when the committed
# files differ (a stale client).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir=${1:-e2e/client}
mkdir -p "$dir"
go run ./e2e/client/openapidoc "$dir/openapi.json"
go tool oapi-codegen -config e2e/client/oapi-codegen.yaml -o "$dir/client.gen.go" "$dir/openapi.json"
