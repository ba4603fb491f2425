#!/usr/bin/env bash
# scripts/test.sh — the whole test suite, as CI runs it (.ci/run -> make test).
#   1. start throwaway PostgreSQL and Redis (scripts/test-servers.sh)
#   2. go vet ./...
#   3. the committed Go client (e2e/client) is what `make generate` makes of today's document
#   4. the JavaScript of the e2e suite (scripts/js-deps.sh: Debian's nodejs and npm when missing,
#      the official TypeScript MCP SDK and the MCP conformance suite from e2e/js's lock file)
#   5. go test -race over every package
#   6. a short fuzz run of every fuzz target
# Exits non-zero on the first failure.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

FUZZTIME=${FUZZTIME:-5s}

step() { printf '\n==> %s\n' "$*"; }

step "starting test servers"
# shellcheck source=scripts/test-servers.sh
source scripts/test-servers.sh || exit 1

go version

step "go vet ./..."
go vet ./...

step "the generated client is current (scripts/gen-client.sh into a temp dir, then diff)"
gen_dir=$(mktemp -d) # removed below, not by an EXIT trap: test-servers.sh owns that trap
bash scripts/gen-client.sh "$gen_dir"
stale=0
for f in openapi.json client.gen.go; do
	if ! cmp -s "$gen_dir/$f" "e2e/client/$f"; then
		echo "e2e/client/$f is stale: run make generate and commit the result" >&2
		diff -u "e2e/client/$f" "$gen_dir/$f" | head -40 >&2 || true
		stale=1
	fi
done
rm -rf "$gen_dir"
[ "$stale" = 0 ] || exit 1

step "e2e JavaScript: the TypeScript MCP SDK and the MCP conformance suite (scripts/js-deps.sh)"
bash scripts/js-deps.sh

step "go test -race -count=1 -p 2 -timeout 30m ./..."
go test -race -count=1 -p 2 -timeout 30m ./...

step "fuzzing each target for ${FUZZTIME}"
mapfile -t fuzz_files < <(grep -rl 'func Fuzz' --include='*_test.go' \
	--exclude-dir=.git --exclude-dir=vendor --exclude-dir=node_modules --exclude-dir=testdata . | sort)
fuzz_count=0
for file in "${fuzz_files[@]}"; do
	pkg=$(dirname "$file")
	mapfile -t targets < <(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/p' "$file" | sort -u)
	for target in "${targets[@]}"; do
		echo "--- fuzz $pkg $target"
		go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" "$pkg"
		fuzz_count=$((fuzz_count + 1))
	done
done
echo "fuzzed $fuzz_count target(s)"
